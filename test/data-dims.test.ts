// Dims the kernel decides (`data_dims`, test/fixtures/datadep): NonZero against torch.nonzero,
// Nms and BatchedNms against torchvision's nms and batched_nms (or ports of them, where
// torchvision's compiled ops do not load: docs/decisions.md), on every CPU column `opforge test`
// has; and a kernel that sets a value beyond its bound, or none, is the op's error on each, not a
// silently wrong size.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestReport } from '../runtime/testing/results.js';
import { trtIncludeDir } from '../runtime/testing/backends/trt/lifecycle.js';
import { fixtureProject } from './helpers/fixture-project.js';
import { PYTHON, hasModule, hasPaddle, testWith } from './helpers/python.js';
import { runTests } from './helpers/run-tests.js';
import { checkOrtCudaUnit } from './helpers/cxx.js';
import { NVCC, cudaIncludeDir, testNeeding } from './helpers/optional-tools.js';
import { ortIncludeDir } from '../runtime/ort.js';

/** The fixture's project, made once for the file (the wrong-kernel test edits a kernel of it). */
const project = fixtureProject('datadep');

/** The columns this machine runs (each must pass every case of every op, but the skips named). */
function columns(): string[] {
  return [
    'torch',
    'node',
    'ort',
    'ort-legacy',
    'ort-dynamo',
    'serialize',
    ...(hasModule('jax') ? ['jax'] : []),
    ...(hasPaddle ? ['paddle', 'paddle-infer'] : []),
    ...(trtIncludeDir() ? ['trt'] : []),
  ];
}

const CASES = ['BatchedNms#0', 'BatchedNms#1', 'BatchedNms#2', 'Nms#0', 'Nms#1', 'Nms#2'].concat(
  [0, 1, 2, 3, 4].map((k) => `NonZero#${k}`),
);

/** Cases a column skips by design: Paddle's own `nms` op clashes with Nms; it gets no empty input. */
function skipped(column: string, key: string): boolean {
  if (column.startsWith('paddle')) return key.startsWith('Nms#') || key === 'BatchedNms#2' || key === 'NonZero#3';
  return false;
}

testWith(['torch'], 'NonZero, Nms and BatchedNms agree with their references on every CPU column', async () => {
  const dir = project();
  const r = await runTests({ root: dir, python: PYTHON });
  for (const column of columns()) {
    const cells = r.results.filter((x) => x.backend === column);
    const failed = cells.filter((x) => x.status === 'fail');
    assert.equal(failed, [], `${column}: ${JSON.stringify(failed)}`);
    const ok = cells.filter((x) => x.status === 'ok').map((x) => `${x.op}#${x.case}`);
    assert.equal(
      ok.sort(),
      CASES.filter((k) => !skipped(column, k)),
      column,
    );
    // The columns that compute values: compared with the reference (the exact outputs). serialize
    // and trt without a GPU check the host steps, paddle-infer against dygraph bit for bit.
    if (!['serialize', 'trt', 'paddle-infer'].includes(column))
      assert.ok(
        cells.filter((x) => x.status === 'ok').every((x) => x.compared === 'reference'),
        column,
      );
  }
});

// The CUDA EP's path (device scratch, the slots read back, the exact outputs copied on the stream)
// runs on the GPU machine (docs/gpu.md); here each unit compiles with it, warnings as errors.
testNeeding([NVCC], "each op's ONNX Runtime unit compiles with its CUDA-EP kernels", () => {
  const out = path.join(project(), 'out');
  for (const op of ['non_zero', 'nms', 'batched_nms'])
    checkOrtCudaUnit(out, `ort/${op}/${op}_ort.cpp`, ortIncludeDir(), cudaIncludeDir());
});

/** NonZero with its kernel's `io.nnz.set(n)` replaced. */
async function wrongCount(replacement: string): Promise<TestReport> {
  const dir = project();
  const kernel = path.join(dir, 'ops', 'kernels', 'non_zero.cpp');
  const text = readFileSync(kernel, 'utf8');
  const wrong = text.replace('io.nnz.set(n);', replacement);
  assert.ok(wrong !== text, 'non_zero.cpp sets nnz as expected');
  writeFileSync(kernel, wrong);
  return runTests({
    root: dir,
    python: PYTHON,
    only: ['NonZero'],
    backends: ['node', 'torch', 'ort', 'paddle', 'jax'],
  });
}

function failsNamed(r: TestReport, pattern: RegExp): void {
  for (const column of [
    'node',
    'torch',
    'ort',
    ...(hasModule('jax') ? ['jax'] : []),
    ...(hasPaddle ? ['paddle'] : []),
  ]) {
    const cells = r.results.filter((x) => x.backend === column);
    assert.ok(cells.length > 0, `${column}: no result`);
    // The empty input's case (NonZero#3, bound 0) is within 0..0 whatever the kernel sets below.
    for (const c of cells.filter((x) => x.status !== 'skip'))
      assert.ok(
        c.status === 'fail' && pattern.test(c.message ?? ''),
        `${column} ${c.op}#${c.case}: ${JSON.stringify(c)}`,
      );
  }
}

// One run for both faults: NonZero#4 (35 elements) sets its bound + 1, the others set nothing.
testWith(
  ['torch'],
  'a kernel that sets a data dim beyond its bound, or never, fails by name on every column',
  async () => {
    const r = await wrongCount('if (io.x.shape.numel() % 2 == 1) io.nnz.set(io.nnz.bound + 1);');
    failsNamed(r, /NonZero: the kernel set nnz to (36, outside 0\.\.35|-1, outside 0\.\.\d+)/);
    const messages = r.results.filter((x) => x.backend === 'node').map((x) => x.message ?? '');
    assert.ok(
      messages.some((m) => m.includes('to 36, outside 0..35')) && messages.some((m) => m.includes('to -1, outside')),
    );
  },
);

test.run();
