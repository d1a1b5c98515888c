// The npm package built with `opforge package npm --cuda`, installed in a project with no
// compiler: the prebuilt addon has the CUDA kernels and a GPU, and every seed op with a float32
// input agrees on CUDA with the same package's CPU kernel (scripts/gpu/npm-check.sh runs it).
import { addon, device, ops } from 'acme_ops';

const dev = device(addon);
if (!dev.builtWithCuda() || !dev.cudaAvailable())
  throw new Error('the packaged addon has no CUDA kernels or sees no GPU');
const t = (dims, f) => ({
  dtype: 'float32',
  dims,
  data: Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => f(i)),
});
const cases = {
  customRelu: [[t([64, 33], (i) => Math.sin(i) * 3)], { alpha: 0.1 }],
  leakyRelu: [[t([5, 7, 9], (i) => Math.cos(i) * 2)], { alpha: 0.3 }],
  myAdd: [[t([1000], (i) => i / 7), t([1000], (i) => -i / 3)], {}],
  dynamicTrtResize: [[t([1, 2, 4, 4], (i) => i % 5), t([1, 2, 8, 6], () => 0)], { align_corners: true }],
};
let max = 0;
for (const [op, [inputs, attrs]] of Object.entries(cases)) {
  const cpu = ops[op](...inputs, attrs);
  const gpu = ops[op](...inputs.map((x) => dev.toDevice(x)), attrs);
  for (const [name, c] of Object.entries(cpu)) {
    const g = dev.toHost(gpu[name]);
    if (g.dims.join() !== c.dims.join()) throw new Error(`${op}.${name}: dims ${g.dims} vs ${c.dims}`);
    for (let i = 0; i < c.data.length; i++) {
      const d = Math.abs(g.data[i] - c.data[i]);
      if (!(d <= 1e-5 + 1e-5 * Math.abs(c.data[i])))
        throw new Error(`${op}.${name}[${i}]: ${g.data[i]} on CUDA, ${c.data[i]} on the CPU`);
      max = Math.max(max, d);
    }
  }
  console.log(`${op}: CUDA agrees with the CPU kernel`);
}
console.log(`ok (largest difference ${max})`);
