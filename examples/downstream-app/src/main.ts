// A downstream app: builds the project's generated Node addon (incrementally, offline), then uses
// the generated typed ops — a point-cloud neighbour search, then an activation on the distances,
// sync and async — and checks the answers it knows. `opforge/runtime` is the runtime's public
// entry; `out/node/index.js` is what `opforge gen` wrote for this project's specs.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, load } from 'opforge/runtime';
import { bind, bindAsync, type Tensor } from '../../../out/node/index.js';

const project = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const buildDir = path.join(project, 'build', 'node');

function grid(n: number): Tensor<'float32'> {
  // n points on a line, 1 apart: every point's nearest neighbour is itself, then its neighbours.
  const data = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) data[3 * i] = i;
  return { dtype: 'float32', dims: [n, 3], data };
}

async function main(): Promise<void> {
  await build({ root: project, buildDir });
  const addon = load(buildDir);
  const ops = bind(addon);
  const pts = grid(10);
  const offsets: Tensor<'int32'> = { dtype: 'int32', dims: [2], data: Int32Array.of(4, 10) };
  const { idx, dist2 } = ops.knnQuery(pts, offsets, pts, offsets, { nsample: 3 });
  // Point 0 (batch 0 = points 0..3): itself, then 1, then 2.
  const first = Array.from(idx.data.slice(0, 3));
  // Point 4 starts batch 1: it cannot see point 3.
  const fifth = Array.from(idx.data.slice(12, 15));
  const { y } = ops.customRelu({ dtype: 'float32', dims: dist2.dims, data: dist2.data.map((d) => 1 - d) }, { alpha: 0.5 });
  const scores = Array.from(y.data.slice(0, 3));
  const later = await bindAsync(addon).leakyRelu({ dtype: 'float32', dims: [3], data: Float32Array.of(-2, 0, 2) }, { alpha: 0.25 });
  const out = { first, fifth, scores, leaky: Array.from(later.output.data) };
  console.log(JSON.stringify(out));
  const expected = '{"first":[0,1,2],"fifth":[4,5,6],"scores":[1,0,-1.5],"leaky":[-0.5,0,2]}';
  if (JSON.stringify(out) !== expected) {
    console.error(`unexpected result; expected ${expected}`);
    process.exitCode = 1;
  }
}

main().catch((e: unknown) => { console.error(e); process.exitCode = 1; });
