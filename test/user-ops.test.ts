// Five ops written from docs/spec.md alone (test/fixtures/user-ops), as a user project outside
// ops/: gen, then the Node addon, ONNX Runtime and the PyTorch extension (+ legacy export) against
// the spec's own PyTorch reference on every case, and nvcc on the CUDA kernels. No generated file
// is edited: what gen writes is what runs.

import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtures, root } from './helpers/paths.js';
import { compileCuda, describeFailures, prepare, runNode, runOrt, runTorch, type BackendReport, type Project } from './specspace/run.js';

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
  assert.equal(project.ops.map((o) => o.name), ['ChannelScale', 'GridSample', 'Histogram', 'MaxPool2x2', 'TopK']);
});

test('Node addon: every case = the reference', async () => clean(await runNode(project)));
test('ONNX Runtime: every case = the reference', async () => clean(await runOrt(project)));
test('PyTorch extension: every case = the reference; legacy export', () => {
  const r = runTorch(project);
  clean(r);
  assert.is(r.summary.checks.parity, project.ops.reduce((n, o) => n + o.tests.length * o.outputs.length, 0), r.log.slice(-2000));
});
test('CUDA kernels compile with nvcc', () => clean(compileCuda(project)));

test.run();
