// Variadic outputs (`variadic: <count>`, test/fixtures/varout): TensorSplit against
// torch.tensor_split and MultiLevelGridPriors against MMDetection's grid_priors written out in
// PyTorch, on every CPU column `opforge test` has; a kernel that writes a member from the wrong
// rows fails on each; and the Node binding returns the members as one array, refusing a count
// outside min_count..max_count by name.

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

/** The fixture's project, made once for the file (the wrong-kernel test edits a kernel of it). */
const project = fixtureProject('varout');

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

const CASES = ['MultiLevelGridPriors#0', 'MultiLevelGridPriors#1'].concat([0, 1, 2, 3].map((k) => `TensorSplit#${k}`));

testWith(
  ['torch'],
  'TensorSplit and MultiLevelGridPriors agree with their references on every CPU column',
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
      // TensorRT has no float64 tensors (TensorSplit#1).
      assert.equal(
        ok.sort(),
        CASES.filter((k) => !(column === 'trt' && k === 'TensorSplit#1')),
        column,
      );
      if (columns().includes(column) && column !== 'paddle-infer')
        assert.ok(
          cells.filter((x) => x.status === 'ok').every((x) => x.compared === 'reference'),
          column,
        );
    }
  },
);

testWith(['torch'], 'a kernel that fills one member from the wrong rows fails on every column', async () => {
  const dir = project();
  const kernel = path.join(dir, 'ops', 'kernels', 'tensor_split.cpp');
  const text = readFileSync(kernel, 'utf8');
  const wrong = text.replace('io.x.data + at * row', 'io.x.data + (m == 1 ? 0 : at) * row');
  assert.ok(wrong !== text, 'tensor_split.cpp copies as expected');
  writeFileSync(kernel, wrong);
  let r: TestReport;
  try {
    r = await runTests({
      root: dir,
      python: PYTHON,
      only: ['TensorSplit'],
      backends: ['node', 'torch', 'ort', 'paddle', 'jax'],
    });
  } finally {
    writeFileSync(kernel, text);
  }
  for (const column of [
    'node',
    'torch',
    'ort',
    ...(hasModule('jax') ? ['jax'] : []),
    ...(hasPaddle ? ['paddle'] : []),
  ]) {
    const cells = r.results.filter((x) => x.backend === column && x.op === 'TensorSplit');
    // Case 1 has one member: nothing to get wrong.
    const failed = cells.filter((x) => x.status === 'fail').map((x) => x.case);
    assert.equal(failed.sort(), [0, 2, 3], `${column}: ${JSON.stringify(cells)}`);
    assert.ok(
      cells.filter((x) => x.status === 'fail').every((x) => /parts_1/.test(x.message ?? '')),
      `${column}: the failure names the member (${JSON.stringify(cells)})`,
    );
  }
});

// PopRT's shape inference: a node lists as many members as its attributes ask for, each of its own dims.
testWith(
  ['onnx'],
  "PopRT's shape inference gives each member its dims, and none while a member's dims are unknown",
  async () => {
    const dir = project();
    await runTests({ root: dir, python: PYTHON, backends: ['serialize'] });
    const feats: PoprtCall[1] = [
      ['f0', 'FLOAT', [1, 2, 5, 4]],
      ['f1', 'FLOAT', [1, 2, 3, 2]],
      ['f2', 'FLOAT', [1, 2, 1, 1]],
    ];
    const calls: PoprtCall[] = [
      ['TensorSplit', [['x', 'FLOAT', [7, 3]]], ['p0', 'p1', 'p2'], { sections: 3 }],
      ['TensorSplit', [['x', 'FLOAT', [9, 2]]], ['p0', 'p1'], {}],
      [
        'MultiLevelGridPriors',
        [['b', 'FLOAT', [3, 2, 4]], ...feats],
        ['a0', 'a1', 'a2'],
        { strides: [8, 4, 16, 8, 32, 16] },
      ],
      [
        'MultiLevelGridPriors',
        [['b', 'FLOAT', [3, 2, 4]], feats[0]!, ['f1', 'FLOAT', [1, 2, 'n', 2]], feats[2]!],
        ['a0', 'a1', 'a2'],
        { strides: [8, 4, 16, 8, 32, 16] },
      ],
    ];
    // The members' dims (their dtypes are the inputs' float32).
    const shapes = poprtShapeInference(dir, 'test.varout', calls).map(([ok, outs]) => [ok, outs.map(([, d]) => d)]);
    assert.equal(shapes, [
      [
        true,
        [
          [3, 3],
          [2, 3],
          [2, 3],
        ],
      ],
      [
        true,
        [
          [5, 2],
          [4, 2],
        ],
      ],
      [
        true,
        [
          [40, 4],
          [12, 4],
          [2, 4],
        ],
      ],
      [false, [null, null, null]],
    ]);
  },
);

testWith(
  ['torch', 'onnx'],
  'TensorSplit in PyTorch: opcheck, torch.compile against eager, and both exporters list the members the attributes ask for',
  async () => {
    const dir = project();
    await runTests({ root: dir, python: PYTHON, backends: ['torch'] });
    const r = spawnSync(
      PYTHON,
      [
        path.join(root, 'test', 'python', 'torch_ops_check.py'),
        '--ops',
        path.join(dir, 'ops'),
        '--out',
        path.join(dir, 'out'),
        '--library',
        path.join(dir, 'build', 'torch', 'libopforge_torch.so'),
        '--dynamo',
        '--compile',
      ],
      { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
    );
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      failed: number;
      checks: Record<string, number>;
    };
    assert.is(r.status, 0, `${r.stdout.slice(-3000)}\n${r.stderr.slice(-2000)}`);
    assert.is(summary.failed, 0);
    // Every TensorSplit case: opcheck, compile, and the node's output count in both exporters.
    assert.ok(
      summary.checks.opcheck === 4 && summary.checks.compile === 4 && summary.checks.outputs === 8,
      r.stdout.slice(-500),
    );
  },
);

type Binding = Record<string, (...args: unknown[]) => Record<string, unknown>>;

test('the Node binding returns the members as one array and refuses a count outside min_count..max_count', async () => {
  const dir = project();
  // The addon as opforge test builds it (already built when the first test ran).
  await runTests({ root: dir, python: PYTHON, backends: ['node'] });
  const out = path.join(dir, 'out');
  const mod = (await import(pathToFileURL(path.join(out, 'node', 'index.js')).href)) as {
    bind(addon: unknown): Binding;
  };
  const ops = mod.bind(createRequire(import.meta.url)(addonPath(path.join(dir, 'build', 'node'))));
  const x = { dtype: 'float32', dims: [5, 2], data: Float32Array.from({ length: 10 }, (_, i) => i) };
  const r = ops.tensorSplit!(x, { sections: 3 }) as { parts: { dims: number[]; data: Float32Array }[] };
  assert.equal(
    r.parts.map((p) => p.dims),
    [
      [2, 2],
      [2, 2],
      [1, 2],
    ],
  );
  assert.equal([...r.parts[2]!.data], [8, 9]);
  assert.throws(() => ops.tensorSplit!(x, { sections: 7 }), /output parts has 1 to 6 members/);
  // Fewer feature maps than levels: the spec's own check, before any member is read.
  const base = { dtype: 'float32', dims: [2, 1, 4], data: new Float32Array(8) };
  const feat = { dtype: 'float32', dims: [1, 1, 2, 2], data: new Float32Array(4) };
  assert.throws(() => ops.multiLevelGridPriors!(base, [feat], { strides: [4, 4, 8, 8] }), /one feature map per level/);
});

test.run();
