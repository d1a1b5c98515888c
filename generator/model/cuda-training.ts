// Ops that run on CUDA but cannot train there: a forward op with `kernels.cuda` whose backward
// runs a gradient op without one. A CUDA tensor that needs such an op's gradient raises at
// backward time; `opforge check`/`gen` say so before any kernel runs, and `opforge test
// --device cuda` reports those cells as `cannot` instead of failing them.

import path from 'node:path';
import type { OpIR, ProjectIR } from './ir.js';
import { hasCudaKernel } from './ir-helpers.js';

export interface CudaTrainingGap {
  op: string;
  file: string;
  /** The gradient ops of its backward that have no kernels.cuda, in backward order. */
  gradOps: string[];
  message: string;
}

/** The gradient ops of `op`'s backward without a CUDA kernel (empty: it trains on CUDA, or has no CUDA kernel). */
export function gradOpsWithoutCuda(op: OpIR, ops: readonly OpIR[]): string[] {
  if (!hasCudaKernel(op) || !op.backward) return [];
  const missing = op.backward
    .map((g) => g.op)
    .filter((n) => {
      const g = ops.find((o) => o.name === n);
      return !g || !hasCudaKernel(g);
    });
  return [...new Set(missing)];
}

/** `A, B have no kernels.cuda`: the gradient ops gradOpsWithoutCuda found. */
export function noCudaKernels(gradOps: readonly string[]): string {
  return `${gradOps.join(', ')} ${gradOps.length > 1 ? 'have' : 'has'} no kernels.cuda`;
}

/** Why a CUDA gradient through `op` cannot run, or undefined when it can. */
export function cannotTrainOnCuda(op: OpIR, ops: readonly OpIR[]): string | undefined {
  const missing = gradOpsWithoutCuda(op, ops);
  return missing.length ? `cannot train on CUDA: ${noCudaKernels(missing)}` : undefined;
}

/** Every such op of the project, by name (deterministic). */
export function cudaTrainingGaps(project: ProjectIR): CudaTrainingGap[] {
  return [...project.ops]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .flatMap((op) => {
      const gradOps = gradOpsWithoutCuda(op, project.ops);
      if (gradOps.length === 0) return [];
      const file = path.relative(process.cwd(), op.source.file) || op.source.file;
      const message = `${op.name} runs on CUDA (kernels.cuda) but cannot train there: ${noCudaKernels(gradOps)} (a CUDA tensor that needs its gradient raises)`;
      return [{ op: op.name, file, gradOps, message }];
    });
}

/** The line `opforge gen` and `check` print on stderr. */
export function formatCudaTrainingGap(g: CudaTrainingGap): string {
  return `warning: ${g.file}: ${g.message}`;
}
