// The torch column: the extension's outputs the PyTorch side wrote, against the baseline, and the
// output shapes opforge_ops' Python shape functions give (fake tensors, export) against the dims
// the kernel wrote.

import { onDevice, type TestBackend } from '../../backend.js';
import type { PyCase } from './build.js';
import type { TensorFile } from '../../cases.js';
import { readOutputs, shapeMismatch } from '../../outputs.js';

export const torchBackend: TestBackend = {
  name: 'torch',
  // Only when the extension built: a build failure was already reported per op.
  wanted: (ctx) =>
    ctx.want.has('torch') &&
    !!ctx.torchRun &&
    ctx.columnsHas(onDevice(ctx, 'torch')) &&
    !ctx.results.some((r) => r.backend === onDevice(ctx, 'torch') && r.case === null),
  async run(ctx) {
    const column = onDevice(ctx, 'torch');
    for (const c of ctx.cases) {
      const p = ctx.torchRun!.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);
      const o = p?.[`torch-${ctx.device}`] as PyCase['reference'];
      if (!o) continue;
      const at = { op: c.op.name, case: c.doc.index, backend: column };
      if ('skip' in o) ctx.results.push({ ...at, status: 'skip', message: (o as { skip: string }).skip });
      else if ('error' in o) ctx.results.push({ ...at, status: 'fail', message: (o as { error: string }).error });
      else {
        const got = readOutputs(c.dir, o as Record<string, TensorFile>);
        ctx.check(
          c,
          column,
          got,
          shapeMismatch('opforge_ops output_shapes (fake tensors, export)', p?.['python-shapes'], c.op.outputs, got),
        );
      }
    }
  },
};
