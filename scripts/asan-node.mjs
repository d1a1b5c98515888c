// Drive the ASan build with the runtime suite's inputs: every op, valid and invalid calls.
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const addon = require(
  process.env.OPFORGE_ASAN_ADDON ?? new URL('../build/node-asan/Release/opforge_node.node', import.meta.url).pathname,
);
const { bind } = await import(new URL('../out/node/index.js', import.meta.url).href);
const ops = bind(addon);
const f32 = (dims, fill = 0.5) => ({
  dtype: 'float32',
  dims,
  data: new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(fill),
});
const i32 = (dims, values) => ({ dtype: 'int32', dims, data: Int32Array.from(values) });
let ok = 0,
  errors = 0;
const attempt = (f) => {
  try {
    f();
    ok++;
  } catch {
    errors++;
  }
};
for (let r = 0; r < 200; r++) {
  const n = 1 + (r % 17);
  attempt(() => ops.customRelu(f32([n, 3]), { alpha: 0.1 }));
  attempt(() => ops.leakyRelu({ dtype: 'float16', dims: [n], data: new Uint16Array(n) }));
  attempt(() => ops.myAdd(f32([n]), f32([n])));
  attempt(() => ops.myAdd(f32([n]), f32([n + 1])));
  attempt(() => ops.dynamicTrtResize(f32([1, 2, n, 3]), f32([1, 1, 2 * n, 5]), { align_corners: r % 2 === 0 }));
  attempt(() =>
    ops.knnQuery(f32([n, 3], Math.random()), i32([1], [n]), f32([4, 3]), i32([1], [4]), { nsample: 1 + (r % 9) }),
  );
  attempt(() => ops.knnQuery(f32([n, 3]), i32([2], [n + 5, 1]), f32([4, 3]), i32([2], [2, 4]), { nsample: 3 }));
  // Hostile raw calls straight into the addon, bypassing index.js checks.
  attempt(() => addon.run_custom_relu([{ dtype: 'float32', dims: [1e9], data: new Float32Array(4) }], { alpha: 1 }));
  attempt(() => addon.run_custom_relu([{ dtype: 'float32', dims: [4], data: new Float64Array(4) }], { alpha: 1 }));
  attempt(() =>
    addon.run_custom_relu([{ dtype: 'float32', dims: [2, 2], data: new Float32Array(new ArrayBuffer(20), 4, 4) }], {
      alpha: 1,
    }),
  );
  attempt(() => addon.run_knn_query([f32([3, 3]), i32([1], [3]), f32([2, 3]), i32([1], [2])], { nsample: -5 }));
  attempt(() => addon.run_my_add([f32([2])], {}));
  attempt(() => addon.run_my_add('nope', {}));
  attempt(() => addon.run_dynamic_trt_resize([f32([1, 1, 0, 0]), f32([1, 1, 4, 4])], { align_corners: 1 }));
}
console.log(`asan run: ${ok} calls returned, ${errors} threw, no sanitizer report`);
