// `opforge test`'s Paddle columns: the generated Paddle custom ops (out/paddle) built by CMake
// against the installed wheel (the library `opforge build` and the wheel ship, linking the shared
// kernel build's objects), loaded with opforge_paddle.load and run by
// runtime/python/opforge_paddle_test.py on the case files Node wrote. paddle: dygraph outputs
// against the baseline; paddle-grad: paddle.grad through PD_BUILD_GRAD_OP against autograd of the
// reference; paddle-infer: the op in a jit.save'd model run by paddle.inference, equal to dygraph,
// its InferShape equal to the kernel's dims.

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runHarnessScript, type PythonSession } from '../../python-session.js';
import { configureAndBuild } from '../../../run-logged.js';
import type { OpIR, ProjectNames } from '../../../../generator/model/ir.js';
import { paddleOpType } from '../../../../generator/model/ir-helpers.js';
import { DEFAULT_NAMES } from '../../../../generator/model/project-names.js';
import { paddleLibrary } from '../../../../generator/emit/paddle/names.js';

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

/**
 * Builds the Paddle op library (libopforge_paddle_ops, or the project's: every op of out/paddle,
 * CPU kernels) in buildDir with CMake against `python`'s paddlepaddle wheel; incremental, through
 * ccache where it is installed. Returns the library's path.
 */
export async function buildPaddleLibrary(o: {
  root: string;
  outDir: string;
  buildDir: string;
  python: string;
  /** The shared kernel build's definitions (runtime/kernels.ts): its objects are linked, not compiled again. */
  kernels?: Readonly<Record<string, string>>;
  /** The project's names (the library's target); default: opforge's own. */
  names?: ProjectNames;
  onLine?: (l: string) => void;
}): Promise<string> {
  const target = paddleLibrary(o.names ?? DEFAULT_NAMES);
  if (!existsSync(path.join(o.outDir, 'paddle', 'CMakeLists.txt')))
    throw new Error(`no generated Paddle backend in ${path.join(o.outDir, 'paddle')}: run \`opforge gen\` first`);
  const defs: Record<string, string> = {
    WITH_PADDLE: 'ON',
    PADDLE_PYTHON: o.python,
    OPFORGE_PROJECT_ROOT: o.root,
    CMAKE_BUILD_TYPE: 'Release',
    WITH_CUDA: 'OFF',
    OPFORGE_KERNELS: 'OFF',
    ...o.kernels,
  };
  // Reconfigured when the options differ from the cache (another Python: another wheel).
  await configureAndBuild({
    source: o.outDir,
    buildDir: o.buildDir,
    defs,
    target,
    configuring: 'cmake configure of out/paddle',
    building: 'building the Paddle op library',
    onLine: o.onLine,
  });
  return path.join(o.buildDir, 'paddle', `lib${target}.so`);
}

/** Runs the Paddle harness over casesDir on the built library (every op of the project is in it). */
export async function runPaddle(o: {
  python: string;
  outDir: string;
  library: string;
  casesDir: string;
  ops: readonly OpIR[];
  grad: boolean;
  infer: boolean;
  /** The project's names (the packages' names); default: the one package in each folder. */
  names?: ProjectNames;
  /** The run's Python-side interpreter: the harness runs there when it has the same Python. */
  session?: PythonSession | undefined;
}): Promise<PaddleRun> {
  // Every op's Paddle op type: the harness leaves out the ops whose type is one of Paddle's own.
  const meta = Object.fromEntries(o.ops.map((op) => [op.name, { type: paddleOpType(op) }]));
  writeFileSync(path.join(o.casesDir, 'paddle-ops.json'), `${JSON.stringify(meta)}\n`);
  const args = ['--cases', o.casesDir, '--out', o.outDir, '--library', o.library];
  if (o.grad) args.push('--grad');
  if (o.infer) args.push('--infer');
  if (o.names) args.push('--package-name', o.names.paddlePackage, '--python-package-name', o.names.torchPackage);
  const r = await runHarnessScript(o.python, 'paddle', args, o.session);
  const last = String(r.stdout).trim().split('\n').at(-1) ?? '';
  if (r.exitCode !== 0 || !last.startsWith('{')) {
    throw new Error(
      `the Paddle side of opforge test failed (exit ${r.exitCode}):\n${String(r.stderr).split('\n').slice(-15).join('\n')}`,
    );
  }
  return JSON.parse(last) as PaddleRun;
}
