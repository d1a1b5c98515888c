// Five ops written from docs/spec.md alone (test/fixtures/user-ops), as a user project outside
// ops/: gen, then `opforge test` (the Node addon, ONNX Runtime, the PyTorch extension and the
// legacy export against the spec's own PyTorch reference on every case; serialization), and nvcc. No generated file
// is edited: what gen writes is what runs.

import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtures, root } from './helpers/paths.js';
import { NVCC } from './helpers/optional-tools.js';
import { LEG_BACKENDS, firstLegTest, hasModule, hasPaddle, torchAtLeast, testWith } from './helpers/python.js';
import {
  compileCuda,
  describeFailures,
  prepare,
  runOpforgeTest,
  type BackendReport,
  type Project,
} from './specspace/run.js';

const dir = path.join(root, 'build', 'user-ops');
let project: Project;

function clean(r: BackendReport): void {
  assert.is(r.failures.length, 0, describeFailures(r));
  assert.ok(r.cases > 0);
}

test.before(() => {
  rmSync(path.join(dir, 'ops'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(path.join(fixtures, 'user-ops', 'ops'), path.join(dir, 'ops'), { recursive: true });
  project = prepare(dir);
});

test('the five ops generate', () => {
  assert.equal(
    project.ops.map((o) => o.name),
    ['ChannelScale', 'GridSample', 'Histogram', 'MaxPool2x2', 'TopK'],
  );
});

testWith(
  ['torch'],
  'opforge test: every case = the reference on node, torch, ort and the legacy export; serialization round-trips',
  async () => {
    // (The oldest-torch leg asks for the columns that depend on torch alone: LEG_BACKENDS.)
    const { reports, report } = await runOpforgeTest(project, LEG_BACKENDS ? { backends: [...LEG_BACKENDS] } : {});
    for (const r of reports) clean(r);
    // grad: the ops declare no backward, so a gradient through them must raise (never a silent zero).
    const paddle = ['paddle', 'paddle-grad', 'paddle-infer'];
    const jax = ['jax', 'jax-grad'];
    assert.equal(
      report.backends.filter((b) => b !== 'ort-dynamo' && !paddle.includes(b) && !jax.includes(b)),
      LEG_BACKENDS ? ['torch', 'grad', 'ort-legacy'] : ['torch', 'grad', 'node', 'ort', 'ort-legacy', 'serialize'],
    );
    // JAX where installed: every case under jit, each op under vmap; jax-grad checks that differentiating raises.
    assert.equal(
      report.backends.filter((b) => jax.includes(b)),
      hasModule('jax') && !LEG_BACKENDS ? jax : [],
    );
    // Paddle where installed (no op here declares a backward: no paddle-grad column).
    assert.equal(
      report.backends.filter((b) => paddle.includes(b)),
      hasPaddle && !LEG_BACKENDS ? ['paddle', 'paddle-infer'] : [],
    );
    assert.is(
      report.backends.includes('ort-dynamo'),
      torchAtLeast(2, 5),
      'the dynamo export runs exactly where torch has it',
    );
  },
);
firstLegTest('CUDA kernels compile with nvcc', () => clean(compileCuda(project)), [NVCC]);

test.run();
