// The generated Node binding, built with cmake-js: every seed op's spec test cases and extra
// random shapes against independent references (test/helpers/references.ts), and the documented errors.

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import { NVCC, testNeeding } from './helpers/optional-tools.js';
import * as assert from 'uvu/assert';
import type { OpIR, TestCaseIR } from '../generator/model/ir.js';
import { loadProject } from '../generator/model/project.js';
import { cachedValues, needsConfigure } from '../runtime/cmake-cache.js';
import { addonPath, build, load } from '../runtime/index.js';
import { caseInputs, mismatch, randomCases, reference, rng, tensor, type T } from './helpers/references.js';
import { opsDir, root } from './helpers/paths.js';
import { python } from './helpers/python.js';

type AnyOps = Record<string, (...args: unknown[]) => Record<string, T>>;

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
  // The addon's own units get the warnings too (they are set in out/, which out/node adds).
  const commands = JSON.parse(readFileSync(path.join(buildDir, 'compile_commands.json'), 'utf8')) as {
    file: string;
    command: string;
  }[];
  assert.ok(
    commands.some((c) => /opforge_node\.dir/.test(c.command)),
    'no addon unit in compile_commands.json',
  );
  for (const c of commands)
    assert.ok(/ -Wall -Wextra -Werror /.test(c.command), `${c.file} compiles without -Wall -Wextra -Werror`);
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

test('KNNQuery CPU: the sorted-list (k <= 32) and heap (k > 32) paths match the reference, ties included', () => {
  const op = project.ops.find((o) => o.name === 'KNNQuery')!;
  const g = rng(3);
  // Grid points: distances are small integers, so most candidates tie and the index decides.
  const grid = (len: number) => Array.from({ length: 3 * len }, () => Math.floor(g() * 5));
  for (const [k, n0, n1] of [
    [1, 40, 60],
    [32, 40, 60],
    [33, 40, 60],
    [60, 150, 30],
    [100, 80, 300],
    [1024, 1500, 700],
  ] as const) {
    const xyz = grid(n0 + n1),
      q = grid(30);
    const t: TestCaseIR = {
      ...op.tests[0]!,
      attributes: { nsample: k },
      inputs: [
        { name: 'xyz', shape: [n0 + n1, 3], values: xyz, range: [0, 0] },
        { name: 'offset', shape: [2], values: [n0, n0 + n1], range: [0, 0] },
        { name: 'new_xyz', shape: [30, 3], values: q, range: [0, 0] },
        { name: 'new_offset', shape: [2], values: [13, 30], range: [0, 0] },
      ],
    };
    runCase(op, t);
  }
});

const f32 = (dims: number[]): T => tensor('float32', dims, new Array(dims.reduce((a, b) => a * b, 1)).fill(0.5));

test('wrong inputs throw TypeError or RangeError naming the op and argument', () => {
  const cases: [() => unknown, ErrorConstructor, RegExp][] = [
    [() => ops.customRelu!(tensor('int32', [2], [1, 2])), TypeError, /CustomRelu: input x has dtype int32/],
    [
      () => ops.customRelu!({ dtype: 'float32', dims: [2], data: new Float64Array(2) }),
      TypeError,
      /CustomRelu: input x: float32 data must be a Float32Array/,
    ],
    [() => ops.customRelu!(f32([2, 3]), { alpah: 1 }), TypeError, /CustomRelu: unknown attribute alpah/],
    [
      () => ops.customRelu!(f32([2, 3]), { alpha: 'x' }),
      TypeError,
      /CustomRelu: attribute alpha must be a finite number/,
    ],
    [
      () => ops.customRelu!({ dtype: 'float32', dims: [2, 3], data: new Float32Array(5) }),
      RangeError,
      /CustomRelu: input x has 5 elements, dims \[2, 3\] need 6/,
    ],
    [() => ops.myAdd!(f32([2, 3]), f32([3, 2])), RangeError, /MyAdd: input b must have the shape of a/],
    [
      () => ops.myAdd!(f32([2]), tensor('float16', [2], [1, 2])),
      TypeError,
      /MyAdd: input b has dtype float16, expected float32/,
    ],
    [
      () => ops.dynamicTrtResize!(f32([1, 3, 4]), f32([1, 1, 8, 8])),
      RangeError,
      /DynamicTRTResize: input input must have rank 4, got 3/,
    ],
    [
      () => ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2])),
      TypeError,
      /KNNQuery: attribute nsample is required/,
    ],
    [
      () =>
        ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 0 }),
      RangeError,
      /KNNQuery: attribute nsample must be >= 1/,
    ],
    [
      () =>
        ops.knnQuery!(f32([4, 2]), tensor('int32', [1], [4]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }),
      RangeError,
      /KNNQuery: dim 1 of input xyz must equal 3/,
    ],
    [
      () =>
        ops.knnQuery!(f32([4, 3]), tensor('int32', [1], [9]), f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }),
      Error,
      /KNNQuery: offset must be non-decreasing and at most xyz rows/,
    ],
    [
      () => ops.knnQuery!(f32([4, 3]), undefined, f32([2, 3]), tensor('int32', [1], [2]), { nsample: 2 }),
      TypeError,
      /KNNQuery: input offset is required/,
    ],
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
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  const b = cli(['build', '--quiet']);
  assert.is(b.status, 0, b.stderr);
  const r = cli([
    'run',
    'KNNQuery',
    '--input',
    'xyz=10,3',
    '--input',
    'offset=1:10',
    '--input',
    'new_xyz=4,3',
    '--input',
    'new_offset=1:4',
    '--attr',
    'nsample=3',
  ]);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /KNNQuery on cpu: [\d.]+ ms\n {2}idx: \[4, 3\] /);
  const bad = cli(['run', 'MyAdd', '--input', 'a=2,2', '--input', 'b=2,3']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /MyAdd: input b must have the shape of a/);
  assert.match(
    cli(['run', 'MyAdd', '--input', 'a=2', '--input', 'b=2', '--device', 'cuda']).stderr,
    /the addon was built without CUDA; run `opforge build --cuda`/,
  );
  // .npy inputs: dtype and dims come from the file (written by numpy).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-npy-'));
  python(
    `import numpy as np, sys
np.save(sys.argv[1] + '/a.npy', np.array([[-1, 2], [3, -4]], dtype=np.float32))
np.save(sys.argv[1] + '/b.npy', np.array([[1, 1], [1, 1]], dtype=np.float32))
np.save(sys.argv[1] + '/i.npy', np.array([1, 2], dtype=np.int64))
np.save(sys.argv[1] + '/h.npy', np.array([[-1, 2], [3, -4]], dtype=np.float16))`,
    [dir],
  );
  const n = cli(['run', 'MyAdd', '--input', `a=${dir}/a.npy`, '--input', `b=${dir}/b.npy`]);
  assert.is(n.status, 0, n.stderr);
  assert.match(n.stdout, /c: \[2, 2\] -1 5 7 -7\n/);
  // float16 travels as raw bits; the CLI prints the values.
  const h = cli(['run', 'MyAdd', '--input', `a=${dir}/h.npy`, '--input', `b=${dir}/h.npy`]);
  assert.match(h.stdout, /c: \[2, 2\] -3 6 9 -12\n/, h.stderr);
  const wrong = cli(['run', 'MyAdd', '--input', `a=${dir}/i.npy`, '--input', `b=${dir}/i.npy`]);
  assert.match(wrong.stderr, /--input a: the file holds int64; MyAdd takes float32, float16/);
});

test('async variants: same results as the sync calls, errors reject, the event loop stays free', async () => {
  const asyncOps = (await import(path.join(root, 'out', 'node', 'index.js'))).bindAsync(load(buildDir)) as Record<
    string,
    (...args: unknown[]) => Promise<Record<string, T>>
  >;
  const x = tensor(
    'float32',
    [3, 5],
    Array.from({ length: 15 }, (_, i) => i - 7),
  );
  const sync = ops.customRelu!(x, { alpha: 0.5 });
  const got = await asyncOps.customRelu!(x, { alpha: 0.5 });
  assert.equal(Array.from(got.y!.data), Array.from(sync.y!.data));
  await asyncOps.customRelu!(tensor('int32', [2], [1, 2])).then(
    () => assert.unreachable('resolved'),
    (e: unknown) => {
      assert.instance(e, TypeError);
      assert.match((e as Error).message, /CustomRelu: input x has dtype int32/);
    },
  );
  // A KNN query large enough to take a while on one core: timers keep firing meanwhile.
  const r = rng(3);
  const n = 6000;
  const pts = tensor(
    'float32',
    [n, 3],
    Array.from({ length: 3 * n }, () => r()),
  );
  let ticks = 0;
  const timer = setInterval(() => {
    ticks += 1;
  }, 1);
  const t0 = performance.now();
  const res = await asyncOps.knnQuery!(pts, tensor('int32', [1], [n]), pts, tensor('int32', [1], [n]), { nsample: 8 });
  const ms = performance.now() - t0;
  clearInterval(timer);
  assert.is(res.idx!.dims.join(), `${n},8`);
  assert.ok(ticks >= 3, `only ${ticks} timer ticks during a ${ms.toFixed(0)} ms kernel`);
});

test('small outputs share an untransferable pool and stay independent; raw calls get their own buffers', async () => {
  const seen = new Set<ArrayBufferLike>();
  const outs: T[] = [];
  for (let i = 0; i < 200; i++) {
    const x = tensor(
      'float32',
      [1000],
      Array.from({ length: 1000 }, (_, k) => (k % 50) - (i % 50)),
    );
    outs.push(ops.customRelu!(x).y!);
    seen.add(outs[i]!.data.buffer);
  }
  // 200 outputs of 4000 bytes: 16 per 64 KiB pool, and the one that found a pool full gets its own
  // buffer while index.js hands the addon a new pool.
  assert.ok(seen.size >= 13 && seen.size <= 30, `${seen.size} buffers for 200 small outputs`);
  // Later calls did not overwrite earlier outputs.
  outs.forEach((o, i) =>
    assert.equal(
      Array.from(o.data),
      Array.from({ length: 1000 }, (_, k) => Math.max((k % 50) - (i % 50), 0)),
      `output ${i}`,
    ),
  );
  // Transferring a pooled output's buffer would detach its neighbours: the pool is untransferable, as
  // Node's Buffer pool is (Node 20 copies instead, later versions throw); either way nothing detaches.
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(outs[0]!.data, [outs[0]!.data.buffer as ArrayBuffer]);
  } catch {
    /* newer Node: DataCloneError */
  }
  port1.close();
  port2.close();
  assert.is(outs[1]!.data.length, 1000);
  assert.ok(outs[0]!.data.buffer.byteLength > 0, 'the pool was detached');
  // Large outputs have their own buffers.
  const big = ops.customRelu!(
    tensor(
      'float32',
      [2000],
      Array.from({ length: 2000 }, (_, k) => k),
    ),
  ).y!;
  assert.is(big.data.buffer.byteLength, 8000);
  // Without bind() (a fresh load is the same addon object; a raw call through its ABI) outputs are not pooled.
  const raw = load(buildDir) as {
    abi: { scratch: ArrayBuffer; outputBase: number };
    run_my_add: (a: Float32Array, b: Float32Array) => Float32Array;
  };
  const slots = new Float64Array(raw.abi.scratch);
  for (const base of [0, 10]) slots.set([0, 1, 3], base); // float32, rank 1, dims [3] for a and b
  const c = raw.run_my_add(Float32Array.of(1, 2, 3), Float32Array.of(10, 20, 30));
  assert.equal(Array.from(c), [12, 24, 36]); // MyAdd: 2a + b
  assert.equal(Array.from(slots.subarray(raw.abi.outputBase, raw.abi.outputBase + 3)), [0, 1, 3]);
});

testNeeding([NVCC], 'a CUDA-enabled build loads and runs on the CPU without a GPU', async () => {
  const cudaBuild = path.join(root, 'build', 'node-test-cuda');
  await build({ root, buildDir: cudaBuild, cuda: true });
  const mod = await import(path.join(root, 'out', 'node', 'index.js'));
  const addon = load(cudaBuild);
  const dev = mod.device(addon);
  assert.is(dev.cudaAvailable(), false);
  assert.is(dev.builtWithCuda(), true);
  assert.throws(() => dev.toDevice(f32([2])), /toDevice: no CUDA device/);
  const cudaOps = mod.bind(addon) as AnyOps;
  for (const op of project.ops) {
    const saved = ops;
    ops = cudaOps;
    try {
      for (const t of op.tests) runCase(op, t);
    } finally {
      ops = saved;
    }
  }
});

test('a build asked for with other options reconfigures (CUDA off after on), not silently keeps the cache', async () => {
  // cmake-js compile alone configures only a fresh directory: a CPU build after a CUDA one kept CUDA.
  const cudaBuild = path.join(root, 'build', 'node-test-cuda');
  await build({ root, buildDir: cudaBuild, cuda: false });
  assert.equal(cachedValues(cudaBuild, ['WITH_CUDA']), { WITH_CUDA: 'OFF' });
  // The loaded copy of this path is cached in this process: ask a fresh one.
  const probe = `process.stdout.write(String(require(${JSON.stringify(addonPath(cudaBuild))}).built_with_cuda))`;
  assert.is(execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }), 'false');
  assert.is(needsConfigure(cudaBuild, { WITH_CUDA: 'OFF', OPFORGE_PROJECT_ROOT: root }), false);
  assert.is(needsConfigure(cudaBuild, { WITH_CUDA: 'ON' }), true);
});

test('load() without a build names what to do', () => {
  assert.throws(() => load(path.join(root, 'build', 'does-not-exist')), /not built .*run `opforge build`/);
});

test('an addon that does not match index.js (another out/, another opforge) is reported, not misread', async () => {
  const mod = await import(path.join(root, 'out', 'node', 'index.js'));
  for (const addon of [{}, { abi: { version: 1 } }, null]) {
    assert.throws(() => mod.bind(addon), /the loaded addon does not match out\/node\/index.js .*run `opforge build`/);
  }
});

test.run();
