// `opforge test`'s Paddle columns: the generated Paddle custom ops (out/paddle), built with
// Paddle's own JIT loader against the installed wheel, run by runtime/python/opforge_paddle_test.py
// on the case files Node wrote. paddle: dygraph outputs against the baseline; paddle-grad:
// paddle.grad through PD_BUILD_GRAD_OP against autograd of the reference; paddle-infer: the op in a
// jit.save'd model run by paddle.inference, equal to dygraph, its InferShape equal to the kernel's dims.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { runHarnessScript, type PythonSession } from '../../python-session.js';
import type { OpIR, ProjectNames } from '../../../../generator/model/ir.js';
import { paddleOpType } from '../../../../generator/model/ir-helpers.js';

export const PADDLE_COLUMNS = ['paddle', 'paddle-grad', 'paddle-infer'] as const;

/** What the harness reports per case and column: written files, a check's result, a skip or an error. */
export type PaddleCell =
  | Record<string, { dtype: string; dims: number[]; file: string }>
  | { skip: string }
  | { error: string }
  | { maxError: number; static?: string; noBackward?: string };
export interface PaddleRun {
  env: { paddle: string; module?: string; builtin_clashes?: string[] };
  cases: ({ op: string; case: number } & Partial<Record<(typeof PADDLE_COLUMNS)[number], PaddleCell>>)[];
}

/** Runs the Paddle harness over casesDir (every op of the project is built into one module). */
export async function runPaddle(o: {
  python: string;
  root: string;
  outDir: string;
  buildDir: string;
  casesDir: string;
  ops: readonly OpIR[];
  grad: boolean;
  infer: boolean;
  /** Per op (snake name): its CPU kernel objects from the shared kernel build; absent: compile the kernels. */
  kernelObjects?: ReadonlyMap<string, readonly string[]> | undefined;
  /** The project's names (the packages' names); default: the one package in each folder. */
  names?: ProjectNames;
  /** The run's Python-side interpreter: the harness runs there when it has the same Python. */
  session?: PythonSession | undefined;
}): Promise<PaddleRun> {
  // The CPU kernel of every op and its Paddle op type; with the shared kernel build's objects
  // (runtime/kernels.ts) the module links those, as every other backend does, instead of compiling
  // each kernel again one file at a time in Paddle's loader.
  const meta = Object.fromEntries(
    o.ops.map((op) => {
      const objects = o.kernelObjects?.get(op.ident.snake);
      return [op.name, { kernel: op.kernels.cpu, type: paddleOpType(op), ...(objects ? { objects } : {}) }];
    }),
  );
  writeFileSync(path.join(o.casesDir, 'paddle-ops.json'), `${JSON.stringify(meta)}\n`);
  const args = ['--cases', o.casesDir, '--root', o.root, '--out', o.outDir, '--build', o.buildDir];
  if (o.grad) args.push('--grad');
  if (o.infer) args.push('--infer');
  if (o.names) args.push('--package-name', o.names.paddlePackage, '--python-package-name', o.names.torchPackage);
  const r = await runHarnessScript(o.python, 'paddle', args, o.session);
  const last = String(r.stdout).trim().split('\n').at(-1) ?? '';
  if (r.exitCode !== 0 || !last.startsWith('{')) {
    // A failed JIT build prints the compiler's errors on stderr: keep those lines first.
    const err = String(r.stderr).split('\n');
    // (with the include chains, which name the kernel a header error belongs to)
    const compiler = err
      .filter(
        (l) => (/(error|Error)\b/.test(l) && /:\d+:/.test(l)) || /^(In file included from |\s+from )\S+:\d+/.test(l),
      )
      .slice(0, 60);
    throw new Error(
      `the Paddle side of opforge test failed (exit ${r.exitCode}):\n${[...compiler, ...err.slice(-12)].join('\n')}`,
    );
  }
  return JSON.parse(last) as PaddleRun;
}
