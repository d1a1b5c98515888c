// Heterogeneous variadic inputs (`homogeneous: false`, test/fixtures/hetero): members of dtypes of
// their own in one call. MultiTensorL2Norm (apex's multi_tensor_l2norm, torch._foreach_norm),
// MemberSums (a type variable bound beside them) and ForeachAddScalar (torch._foreach_add: a
// variadic output whose member m has member m's dtype) against their PyTorch references on every
// CPU column `opforge test` has; a kernel that reads float16 members as another type fails on
// each; the Node binding takes a mixed array (and returns one), refuses a member dtype the spec
// does not allow, by name, and its typings say which dtypes each member may have.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { addonPath } from '../runtime/index.js';
import type { TestReport } from '../runtime/testing/results.js';
import { trtIncludeDir } from '../runtime/testing/backends/trt/lifecycle.js';
import { fixtureProject } from './helpers/fixture-project.js';
import { root } from './helpers/paths.js';
import { PYTHON, hasModule, hasPaddle, testWith } from './helpers/python.js';
import { runTests } from './helpers/run-tests.js';
import { type PoprtCall, poprtShapeInference } from './helpers/poprt.js';

const project = fixtureProject('hetero');

/** The columns this machine runs that compute values (each compared with the reference). */
function columns(): string[] {
  return [
    'torch',
    'node',
    'ort',
    'ort-legacy',
    'ort-dynamo',
    ...(hasModule('jax') ? ['jax'] : []),
    ...(hasPaddle ? ['paddle', 'paddle-infer'] : []),
  ];
}

const L2 = [0, 1, 2, 3].map((k) => `MultiTensorL2Norm#${k}`);
const SUMS = [0, 1, 2].map((k) => `MemberSums#${k}`);
const FOREACH = [0, 1, 2].map((k) => `ForeachAddScalar#${k}`);
/** Cases a column skips by name: Paddle has no empty inputs nor bfloat16 through numpy; TensorRT no float64. */
const SKIPPED: Record<string, string[]> = {
  paddle: ['MultiTensorL2Norm#2', 'MemberSums#2', 'ForeachAddScalar#2'],
  'paddle-infer': ['MultiTensorL2Norm#1', 'MultiTensorL2Norm#2', 'MemberSums#2', 'ForeachAddScalar#2'],
  trt: ['MultiTensorL2Norm#0', 'MultiTensorL2Norm#2', 'MemberSums#1', 'ForeachAddScalar#1'],
};

testWith(
  ['torch'],
  'MultiTensorL2Norm, MemberSums and ForeachAddScalar agree with their references on every CPU column',
  async () => {
    const r = await runTests({ root: project(), python: PYTHON });
    for (const column of [...columns(), 'serialize', ...(trtIncludeDir() ? ['trt'] : [])]) {
      const cells = r.results.filter((x) => x.backend === column);
      assert.equal(
        cells.filter((x) => x.status === 'fail'),
        [],
        column,
      );
      const ok = cells.filter((x) => x.status === 'ok').map((x) => `${x.op}#${x.case}`);
      const want = [...FOREACH, ...SUMS, ...L2].filter((k) => !(SKIPPED[column] ?? []).includes(k)).sort();
      assert.equal(ok.sort(), want, column);
      // paddle-infer is held to Paddle's dygraph run (docs/paddle-popart.md).
      if (columns().includes(column) && column !== 'paddle-infer')
        assert.ok(
          cells.filter((x) => x.status === 'ok').every((x) => x.compared === 'reference'),
          column,
        );
    }
  },
);

testWith(['torch'], 'a kernel that reads float16 members as another type fails on every column', async () => {
  const dir = project();
  const header = path.join(dir, 'ops', 'kernels', 'hetero_reduce.h');
  const text = readFileSync(header, 'utf8');
  // float16 members read as their raw bits, in both kernels (asDouble serves the switch and the visitor).
  const wrong = text.replace(
    'asDouble(opforge::float16 v) { return static_cast<double>(opforge::toFloat(v)); }',
    'asDouble(opforge::float16 v) { return static_cast<double>(v.bits); }',
  );
  assert.ok(wrong !== text, 'hetero_reduce.h converts float16 members as expected');
  writeFileSync(header, wrong);
  let r: TestReport;
  try {
    r = await runTests({ root: dir, python: PYTHON, backends: ['node', 'torch', 'ort', 'paddle', 'jax'] });
  } finally {
    writeFileSync(header, text);
  }
  // The cases with a float16 member, less those a column skips.
  const half = ['MemberSums#0', 'MemberSums#2', 'MultiTensorL2Norm#0', 'MultiTensorL2Norm#2', 'MultiTensorL2Norm#3'];
  for (const column of [
    'node',
    'torch',
    'ort',
    ...(hasModule('jax') ? ['jax'] : []),
    ...(hasPaddle ? ['paddle'] : []),
  ]) {
    const cells = r.results.filter((x) => x.backend === column);
    const failed = cells.filter((x) => x.status === 'fail').map((x) => `${x.op}#${x.case}`);
    assert.equal(
      failed.sort(),
      half.filter((k) => !(SKIPPED[column] ?? []).includes(k)),
      `${column}: ${JSON.stringify(cells)}`,
    );
    assert.ok(
      cells.filter((x) => x.status === 'fail').every((x) => /\b(norms|sums)\[/.test(x.message ?? '')),
      `${column}: the failure names the output (${JSON.stringify(cells)})`,
    );
  }
});

type Binding = Record<string, (...args: unknown[]) => Record<string, unknown>>;

test('the Node binding takes members of mixed dtypes and refuses one the spec does not allow, by member', async () => {
  const dir = project();
  // The addon as opforge test builds it (already built when the first test ran).
  await runTests({ root: dir, python: PYTHON, backends: ['node'] });
  const mod = (await import(pathToFileURL(path.join(dir, 'out', 'node', 'index.js')).href)) as {
    bind(addon: unknown): Binding;
  };
  const ops = mod.bind(createRequire(import.meta.url)(addonPath(path.join(dir, 'build', 'node'))));
  const f32 = { dtype: 'float32', dims: [2], data: Float32Array.from([3, 4]) };
  const i32 = { dtype: 'int32', dims: [3], data: Int32Array.from([1, 2, 2]) };
  const f64 = { dtype: 'float64', dims: [1], data: Float64Array.from([-12]) };
  const r = ops.multiTensorL2Norm!([f32, i32, f64]) as { norms: { dtype: string; data: Float32Array } };
  assert.is(r.norms.dtype, 'float32');
  assert.equal([...r.norms.data], [5, 3, 12]);
  const scale = { dtype: 'float64', dims: [1], data: Float64Array.from([2]) };
  const u8 = { dtype: 'uint8', dims: [2], data: Uint8Array.from([200, 100]) };
  const s = ops.memberSums!(scale, [u8, i32, f32]) as { sums: { dtype: string; data: Float64Array } };
  assert.is(s.sums.dtype, 'float64');
  assert.equal([...s.sums.data], [600, 10, 14]);
  // Member m of the output in member m's dtype.
  const h = { dtype: 'float16', dims: [1, 2], data: Uint16Array.from([0x3c00, 0xc000]) }; // 1, -2
  const x2 = { ...f32, dims: [1, 2] };
  const e = ops.foreachAddScalar!([x2, h, { ...u8, dims: [2, 1] }], { n: 3, alpha: 3 }) as {
    sums: { dtype: string; data: ArrayLike<number> }[];
  };
  assert.equal(
    e.sums.map((s) => [s.dtype, [...Array.from(s.data)]]),
    [
      ['float32', [6, 7]],
      ['float16', [0x4400, 0x3c00]],
      ['uint8', [203, 103]],
    ],
  );
  assert.throws(() => ops.foreachAddScalar!([x2, h], { n: 3 }), /one output per tensor/);
  assert.throws(() => ops.multiTensorL2Norm!([f32, u8]), /tensors.*1.*uint8/);
  assert.throws(() => ops.memberSums!(scale, [u8, f64]), /values.*1.*float64/);
});

// PopRT's shape inference: each member of ForeachAddScalar's output in its input member's dtype and dims.
testWith(['onnx'], "PopRT's shape inference types each output member as its input member", async () => {
  const dir = project();
  await runTests({ root: dir, python: PYTHON, backends: ['serialize'] });
  const calls: PoprtCall[] = [
    [
      'ForeachAddScalar',
      [
        ['a', 'FLOAT', [2, 3]],
        ['b', 'FLOAT16', [1, 4]],
        ['c', 'UINT8', [2, 2]],
      ],
      ['s0', 's1', 's2'],
      { n: 3 },
    ],
    ['ForeachAddScalar', [['a', 'INT32', [3, 1]]], ['s0'], { n: 1 }],
  ];
  // TensorProto: FLOAT 1, UINT8 2, INT32 6, FLOAT16 10.
  assert.equal(poprtShapeInference(dir, 'test.hetero', calls), [
    [
      true,
      [
        [1, [2, 3]],
        [10, [1, 4]],
        [2, [2, 2]],
      ],
    ],
    [true, [[6, [3, 1]]]],
  ]);
});

test("index.d.ts types each member as any of the allowed dtypes' tensors, under tsc --strict", async () => {
  const dir = project();
  await runTests({ root: dir, python: PYTHON, backends: ['serialize'] });
  const use = path.join(dir, 'use.ts');
  writeFileSync(
    use,
    [
      "import type { Ops, Tensor } from './out/node/index.js';",
      'declare const ops: Ops;',
      "declare const f32: Tensor<'float32'>, i32: Tensor<'int32'>, u8: Tensor<'uint8'>, f64: Tensor<'float64'>;",
      'const a: Float32Array = ops.multiTensorL2Norm([f32, i32, f64]).norms.data;',
      'const b: Float64Array = ops.memberSums(f64, [u8, i32, f32]).sums.data;',
      'ops.multiTensorL2Norm([f32, u8]);',
      'ops.memberSums(f32, [f64]);',
      "const c: (Tensor<'float32'> | Tensor<'float16'> | Tensor<'float64'> | Tensor<'int32'> | Tensor<'uint8'>)[] = ops.foreachAddScalar([f32, u8], { n: 2 }).sums;",
      'export { a, b, c };',
      '',
    ].join('\n'),
  );
  const r = spawnSync(
    path.join(root, 'node_modules', '.bin', 'tsc'),
    [
      '--ignoreConfig',
      '--pretty',
      'false',
      '--noEmit',
      '--strict',
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--skipLibCheck',
      use,
    ],
    { encoding: 'utf8' },
  );
  // The two calls with a member dtype the spec does not allow (lines 6 and 7), and nothing else.
  const lines = [...r.stdout.matchAll(/use\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1]));
  assert.equal([...new Set(lines)].sort(), [6, 7], r.stdout + r.stderr);
});

test.run();
