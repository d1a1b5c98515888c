// The grad column: the spec's backward through the extension, checked by the PyTorch side against
// autograd of the reference (and torch.autograd.gradcheck in float64). An op without a backward
// must raise its named error: never a silent zero gradient.

import { gradOpsWithoutCuda, noCudaKernels } from '../../../../generator/model/cuda-training.js';
import { onDevice, wantsGrad, type TestBackend } from '../../backend.js';

type GradCell =
  | { skip: string }
  | { error: string }
  | { maxError: number; gradcheck?: boolean | string; noBackward?: true };

export const gradBackend: TestBackend = {
  name: 'grad',
  wanted: (ctx) =>
    wantsGrad(ctx) &&
    !!ctx.torchRun &&
    ctx.columnsHas(onDevice(ctx, 'grad')) &&
    !ctx.results.some((r) => r.backend === onDevice(ctx, 'grad') && r.case === null),
  async run(ctx) {
    const column = onDevice(ctx, 'grad');
    for (const c of ctx.cases) {
      const o = ctx.torchRun!.cases.find((x) => x.op === c.op.name && x.case === c.doc.index)?.[`grad-${ctx.device}`] as
        | GradCell
        | undefined;
      if (!o) continue;
      const r = { op: c.op.name, case: c.doc.index, backend: column };
      // An op whose gradient op has no CUDA kernel cannot train on CUDA (check/gen warn): its clear
      // error, naming that gradient op, is the expected outcome there, not a failure.
      const noCuda = ctx.device === 'cuda' ? gradOpsWithoutCuda(c.op, ctx.project.ops) : [];
      if ('skip' in o) ctx.results.push({ ...r, status: 'skip', message: o.skip });
      else if ('error' in o && noCuda.some((g) => o.error.includes(`${g} has no CUDA kernel`)))
        ctx.results.push({ ...r, status: 'cannot', message: `cannot train on CUDA: ${noCudaKernels(noCuda)}` });
      else if ('error' in o) ctx.results.push({ ...r, status: 'fail', message: o.error });
      else if (o.noBackward)
        ctx.results.push({
          ...r,
          status: 'ok',
          raised: true,
          message: 'no backward: asking for a gradient raises the named error',
        });
      else if (o.gradcheck === false)
        ctx.results.push({
          ...r,
          status: 'fail',
          maxError: o.maxError,
          message: 'torch.autograd.gradcheck (float64) failed',
        });
      // Without a reference, gradcheck holds the backward to the forward's own numerical gradient.
      else
        ctx.results.push({
          ...r,
          status: 'ok',
          maxError: o.maxError,
          compared: c.op.kernels.reference ? 'reference' : 'backends',
          ...(typeof o.gradcheck === 'string' ? { message: `gradcheck ${o.gradcheck}` } : {}),
        });
    }
  },
};
