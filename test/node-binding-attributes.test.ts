// The Node binding on the adapter fixture (test/fixtures/adapters): StridedScale has an optional
// input and all six attribute types, so it drives the parts of the call ABI the seed ops do not —
// string and list attributes passed as arguments, int/float/bool ones in the scratch slots, an
// absent optional input, float64 — against a reference written here.

import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, load } from '../runtime/index.js';
import { root } from './helpers/paths.js';
import { sh } from './helpers/cxx.js';

interface T {
  dtype: string;
  dims: number[];
  data: Float32Array | Float64Array;
}
interface Attrs {
  stride?: number;
  scale?: number;
  mode?: string;
  enabled?: boolean;
  pads?: number[];
  weights?: number[];
}
type StridedScale = (x: T, bias: T | undefined, attrs?: Attrs) => { y: T };

// Under build/ so that node-addon-api resolves from the project's node_modules.
const project = path.join(root, 'build', 'node-fixture');
let stridedScale: StridedScale;
let stridedScaleAsync: (...a: Parameters<StridedScale>) => Promise<{ y: T }>;

test.before(async () => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  cpSync(path.join(root, 'test', 'fixtures', 'adapters', 'ops'), path.join(project, 'ops'), { recursive: true });
  sh(process.execPath, [
    path.join(root, 'dist', 'cli', 'opforge.js'),
    'gen',
    '--quiet',
    '--ops',
    path.join(project, 'ops'),
    '--out',
    path.join(project, 'out'),
  ]);
  const buildDir = path.join(project, 'build');
  await build({ root: project, buildDir });
  const mod = await import(path.join(project, 'out', 'node', 'index.js'));
  const addon = load(buildDir);
  stridedScale = mod.bind(addon).stridedScale as StridedScale;
  stridedScaleAsync = mod.bindAsync(addon).stridedScale;
});

/** StridedScale as the spec describes it, in float64; float32 attributes rounded like the kernel's. */
function reference(x: T, bias: T | undefined, a: Required<Attrs>): number[] {
  const [rows, cols] = x.dims as [number, number];
  const outCols = Math.ceil(cols / a.stride);
  const extra = a.pads.length + a.weights.reduce((s, w) => s + Math.fround(w), 0);
  const out: number[] = [];
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < outCols; j++) {
      const k = i * cols + j * a.stride;
      let v = x.data[k]! + (bias ? bias.data[k]! : 0);
      if (a.enabled) v *= Math.fround(a.scale);
      if (a.mode === 'negate') v = -v;
      out.push(x.dtype === 'float32' ? Math.fround(v + extra) : v + extra);
    }
  }
  return out;
}

function tensor(dtype: 'float32' | 'float64', dims: number[], seed: number): T {
  const n = dims.reduce((p, d) => p * d, 1);
  const values = Array.from({ length: n }, (_, i) => Math.sin(seed + i * 1.3) * 4);
  return { dtype, dims, data: dtype === 'float32' ? Float32Array.from(values) : Float64Array.from(values) };
}

const DEFAULTS: Required<Attrs> = { stride: 1, scale: 1, mode: 'plain', enabled: true, pads: [], weights: [] };

test('every attribute type and an optional input match the reference, sync and async', async () => {
  const cases: { dtype: 'float32' | 'float64'; dims: number[]; bias: boolean; attrs: Attrs }[] = [
    { dtype: 'float32', dims: [3, 7], bias: false, attrs: { stride: 2, scale: 0.5 } },
    {
      dtype: 'float64',
      dims: [2, 4],
      bias: true,
      attrs: { stride: 3, mode: 'negate', enabled: false, pads: [1, 2], weights: [0.5, 0.25] },
    },
    {
      dtype: 'float32',
      dims: [4, 9],
      bias: true,
      attrs: { scale: 1.7, mode: 'negate', pads: [7], weights: [0.1, 0.2, 0.3] },
    },
    { dtype: 'float64', dims: [1, 1], bias: false, attrs: {} },
    { dtype: 'float32', dims: [0, 5], bias: true, attrs: { stride: 4 } },
  ];
  for (const [i, c] of cases.entries()) {
    const x = tensor(c.dtype, c.dims, i);
    const bias = c.bias ? tensor(c.dtype, c.dims, i + 10) : undefined;
    const want = reference(x, bias, { ...DEFAULTS, ...c.attrs });
    const { y } = stridedScale(x, bias, c.attrs);
    assert.is(y.dtype, c.dtype, `case ${i}`);
    assert.equal(y.dims, [c.dims[0], Math.ceil(c.dims[1]! / (c.attrs.stride ?? 1))], `case ${i}`);
    assert.equal(Array.from(y.data), want, `case ${i}`);
    const later = await stridedScaleAsync(x, bias, c.attrs);
    assert.equal(Array.from(later.y.data), want, `case ${i} async`);
  }
});

test('list and string attributes are checked before the call; strings reach the kernel intact', () => {
  const x = tensor('float32', [2, 3], 1);
  assert.throws(
    () => stridedScale(x, undefined, { mode: 'bogus' }),
    (e: Error) =>
      e instanceof RangeError && /StridedScale: attribute mode must be one of plain, negate/.test(e.message),
  );
  assert.throws(
    () => stridedScale(x, undefined, { pads: [1.5] }),
    (e: Error) => e instanceof TypeError && /attribute pads must be an array of integers/.test(e.message),
  );
  assert.throws(
    () => stridedScale(x, undefined, { weights: [Number.NaN] }),
    (e: Error) => e instanceof TypeError && /attribute weights must be an array of finite numbers/.test(e.message),
  );
  assert.throws(
    () => stridedScale(x, undefined, { stride: 0 }),
    (e: Error) => e instanceof RangeError && /attribute stride must be >= 1/.test(e.message),
  );
  // An exclusive bound refuses the bound itself, and takes the next value up.
  assert.throws(
    () => stridedScale(x, undefined, { scale: 0 }),
    (e: Error) => e instanceof RangeError && /attribute scale must be > 0, got 0/.test(e.message),
  );
  assert.equal(
    Array.from(stridedScale(x, undefined, { scale: 1e-30 }).y.data),
    reference(x, undefined, { ...DEFAULTS, scale: 1e-30 }),
  );
  // Back to back: the scratch slots and argument positions of one call do not leak into the next.
  const a = stridedScale(x, undefined, { mode: 'negate', pads: [1, 2, 3] }).y;
  const b = stridedScale(x, undefined).y;
  assert.equal(Array.from(a.data), reference(x, undefined, { ...DEFAULTS, mode: 'negate', pads: [1, 2, 3] }));
  assert.equal(Array.from(b.data), reference(x, undefined, DEFAULTS));
});

test.run();
