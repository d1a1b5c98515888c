// The generated Node binding, built with cmake-js: every seed op's spec test cases and extra
// random shapes against independent references (test/helpers/references.ts), and the documented errors.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OpIR, TestCaseIR } from '../generator/ir.js';
import { loadProject } from '../generator/project.js';
import { build, load } from '../runtime/index.js';
import { caseInputs, mismatch, randomCases, reference, tensor, type T } from './helpers/references.js';
import { opsDir, root } from './helpers/paths.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the generated module is plain JS
type AnyOps = Record<string, (...args: any[]) => Record<string, T>>;

const project = loadProject({ opsDir });
const buildDir = path.join(root, 'build', 'node-test');
let ops: AnyOps;

function runCase(op: OpIR, t: TestCaseIR): void {
  const { args, ins } = caseInputs(op, t);
  const out = ops[op.ident.camel]!(...args, t.attributes);
  const bad = mismatch(op, t, out, reference(op, ins, t.attributes));
  if (bad) assert.unreachable(bad);
}

test.before(async () => {
  await build({ root, buildDir });
  ops = (await import(path.join(root, 'out', 'node', 'index.js'))).bind(load(buildDir)) as AnyOps;
});

for (const op of project.ops) {
  test(`${op.name}: every spec test case matches the reference`, () => {
    for (const t of op.tests) runCase(op, t);
  });
  test(`${op.name}: random shapes and attributes match the reference`, () => {
    for (const t of randomCases(op, 5)) runCase(op, t);
  });
}

const f32 = (dims: number[]): T => tensor('float32', dims, new Array(dims.reduce((a, b) => a * b, 1)).fill(0.5));

test('wrong inputs throw TypeError or RangeError naming the op and argument', () => {
  const cases: [() => unknown, ErrorConstructor, RegExp][] = [
    [() => ops.customRelu!(tensor('int32', [2], [1, 2])), TypeError, /CustomRelu: input x has dtype int32/],
    [() => ops.customRelu!({ dtype: 'float32', dims: [2], data: new Float64Array(2) }), TypeError, /CustomRelu: input x: float32 data must be a Float32Array/],
    [() => ops.customRelu!(f32([2, 3]), { alpah: 1 }), TypeError, /CustomRelu: unknown attribute alpah/],
    [() => ops.customRelu!(f32([2, 3]), { alpha: 'x' }), TypeError, /CustomRelu: attribute alpha must be a finite number/],
    [() => ops.customRelu!({ dtype: 'float32', dims: [2, 3], data: new Float32Array(5) }), RangeError, /CustomRelu: input x has 5 elements, dims \[2, 3\] need 6/],
    [() => ops.myAdd!(f32([2, 3]), f32([3, 2])), RangeError, /MyAdd: input b must have the shape of a/],
    [() => ops.myAdd!(f32([2]), tensor('float16', [2], [1, 2])), TypeError, /MyAdd: input b has dtype float16, expected float32/],
    [() => ops.dynamicTrtResize!(f32([1, 3, 4]), f32([1, 1, 8, 8])), RangeError, /DynamicTRTResize: input input must have rank 4, got 3/],
    [() => ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2])), TypeError, /KNNQuery: attribute nsample is required/],
    [() => ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 0 }), RangeError, /KNNQuery: attribute nsample must be >= 1/],
    [() => ops.knnQuery!(f32([4, 2]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }), RangeError, /KNNQuery: dim 1 of input xyz must equal 3/],
    [() => ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [9]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }), Error, /KNNQuery: offset must be non-decreasing and at most xyz rows/],
    [() => ops.knnQuery!(f32([4, 3]), undefined, f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }), TypeError, /KNNQuery: input offset is required/],
  ];
  for (const [f, E, re] of cases) {
    try {
      f();
    } catch (e) {
      assert.instance(e, E, `${re}: ${String(e)}`);
      assert.match((e as Error).message, re);
      continue;
    }
    assert.unreachable(`no error for ${re}`);
  }
});

test('CLI: opforge build, then opforge run prints shapes, values and time', () => {
  const cli = (args: string[]) => spawnSync(process.execPath, [path.join(root, 'dist', 'generator', 'cli.js'), ...args], { cwd: root, encoding: 'utf8' });
  const b = cli(['build', '--quiet']);
  assert.is(b.status, 0, b.stderr);
  const r = cli(['run', 'KNNQuery', '--input', 'xyz=10,3', '--input', 'offset=1:10', '--input', 'new_xyz=4,3', '--input', 'new_offset=1:4', '--attr', 'nsample=3']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /KNNQuery on cpu: [\d.]+ ms\n {2}idx: \[4, 3\] /);
  const bad = cli(['run', 'MyAdd', '--input', 'a=2,2', '--input', 'b=2,3']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /MyAdd: input b must have the shape of a/);
  assert.match(cli(['run', 'MyAdd', '--input', 'a=2', '--input', 'b=2', '--device', 'cuda']).stderr, /CPU only/);
});

test('load() without a build names what to do', () => {
  assert.throws(() => load(path.join(root, 'build', 'does-not-exist')), /not built .*run `opforge build`/);
});

test.run();
