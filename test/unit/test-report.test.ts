// `opforge test`'s report (runtime/testing/results.ts) on hand-made results: a `cannot` cell (an op
// that runs on CUDA but cannot train there) is shown as such, listed with its reason, and neither
// fails the run nor counts as a comparison; and which ops are such, from their specs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cannotTrainOnCuda, cudaTrainingGaps, formatCudaTrainingGap } from '../../generator/model/cuda-training.js';
import type { OpIR, ProjectIR } from '../../generator/model/ir.js';
import { formatReport, summarize, type CaseResult, type TestReport } from '../../runtime/testing/results.js';

test('cannot cells: their own status in the table and a section of their own, not failures, not comparisons', () => {
  const results: CaseResult[] = [
    { op: 'Scale', case: 0, backend: 'torch:cuda', status: 'ok', maxError: 0, compared: 'reference' },
    { op: 'Scale', case: 1, backend: 'torch:cuda', status: 'ok', maxError: 0, compared: 'reference' },
    {
      op: 'Scale',
      case: 0,
      backend: 'grad:cuda',
      status: 'cannot',
      message: 'cannot train on CUDA: ScaleGrad has no kernels.cuda',
    },
    {
      op: 'Scale',
      case: 1,
      backend: 'grad:cuda',
      status: 'cannot',
      message: 'cannot train on CUDA: ScaleGrad has no kernels.cuda',
    },
  ];
  const report: TestReport = {
    ok: !results.some((r) => r.status === 'fail'),
    backends: ['torch:cuda', 'grad:cuda'],
    results,
    skipped: {},
    env: {},
    summary: summarize(results),
  };
  assert.ok(report.ok);
  assert.equal(report.summary, { cases: 2, reference: 2, backends: 0, nothing: 0 });
  const text = formatReport(report);
  assert.match(text, /^Scale\s+ok 2 0\s+cannot 2$/m);
  assert.match(
    text,
    /cannot \(the spec rules these out; not failures\):\n {2}Scale \[grad:cuda\]: cannot train on CUDA: ScaleGrad has no kernels\.cuda \(2 cases\)/,
  );
  // Beside other outcomes in one cell; a failure still shows as one.
  const mixed = [
    ...results,
    { op: 'Scale', case: 2, backend: 'grad:cuda', status: 'skip', message: 'no input takes a gradient' } as CaseResult,
  ];
  assert.match(formatReport({ ...report, results: mixed }), /^Scale\s+ok 2 0\s+skip \+2 cannot$/m);
  const failed = [
    ...results,
    { op: 'Scale', case: 2, backend: 'grad:cuda', status: 'fail', message: 'x' } as CaseResult,
  ];
  assert.match(formatReport({ ...report, results: failed }), /^Scale\s+ok 2 0\s+FAIL 1\/3$/m);
});

test('which ops cannot train on CUDA: a CUDA forward whose gradient op has no CUDA kernel', () => {
  const op = (name: string, cuda: boolean, backward?: string[]): OpIR =>
    ({
      name,
      source: { file: `/p/ops/${name}.yaml`, relFile: `ops/${name}.yaml` },
      kernels: { cpu: `kernels/${name}.cpp`, ...(cuda ? { cuda: `kernels/${name}.cu` } : {}) },
      backward: backward?.map((g) => ({ op: g, inputs: [], attributes: [], outputs: [] })),
    }) as unknown as OpIR;
  const ops = [
    op('A', true, ['AGrad']),
    op('AGrad', false),
    op('B', true, ['BGrad']),
    op('BGrad', true),
    op('C', false, ['CGrad']),
    op('CGrad', false),
    op('D', true, ['AGrad', 'BGrad']),
  ];
  assert.is(cannotTrainOnCuda(ops[0]!, ops), 'cannot train on CUDA: AGrad has no kernels.cuda');
  assert.is(cannotTrainOnCuda(ops[2]!, ops), undefined, 'its gradient op has a CUDA kernel');
  assert.is(cannotTrainOnCuda(ops[4]!, ops), undefined, 'no CUDA forward: nothing to say');
  assert.is(cannotTrainOnCuda(ops[1]!, ops), undefined, 'no backward');
  const gaps = cudaTrainingGaps({ ops } as unknown as ProjectIR);
  assert.equal(
    gaps.map((g) => [g.op, g.gradOps]),
    [
      ['A', ['AGrad']],
      ['D', ['AGrad']],
    ],
  );
  assert.match(
    formatCudaTrainingGap(gaps[0]!),
    /^warning: \S*A\.yaml: A runs on CUDA \(kernels\.cuda\) but cannot train there: AGrad has no kernels\.cuda/,
  );
});

test.run();
