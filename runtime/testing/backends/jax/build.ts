// The JAX library (out/jax) built with CMake against the jaxlib of the Python that runs the tests,
// and the harness that runs the case files through opforge_jax (runtime/python/opforge_jax_test.py).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { runHarnessScript, type PythonSession } from '../../python-session.js';
import { configureAndBuild } from '../../../run-logged.js';
import type { ProjectNames } from '../../../../generator/model/ir.js';
import { DEFAULT_NAMES } from '../../../../generator/model/project-names.js';
import { jaxLibraryTarget } from '../../../../generator/emit/jax/names.js';

/** What the harness reports per case and column: written files, a check's result, a skip or an error. */
export type JaxCell =
  | Record<string, { dtype: string; dims: number[]; file: string }>
  | { skip: string }
  | { error: string }
  | { maxError: number; noBackward?: boolean };
export interface JaxRun {
  env: {
    jax: string;
    jaxlib: string;
    device: string;
    library: { path: string; jaxlib: string; ffi_api: [number, number]; cuda: boolean };
  };
  cases: ({ op: string; case: number } & Partial<Record<'jax' | 'jax-grad', JaxCell>>)[];
}

/**
 * Builds the JAX library (libopforge_jax_ops, or the project's; every op of out/, CPU handlers; CUDA ones too with `cuda`) in buildDir
 * against `python`'s jaxlib; incremental. Returns the library's path.
 */
export async function buildJaxLibrary(o: {
  root: string;
  outDir: string;
  buildDir: string;
  python: string;
  cuda?: boolean;
  /** The shared kernel build's definitions (runtime/kernels.ts): its objects are linked, not compiled again. */
  kernels?: Readonly<Record<string, string>>;
  /** The project's names (the library's target); default: opforge's own. */
  names?: ProjectNames;
  onLine?: (l: string) => void;
}): Promise<string> {
  const target = jaxLibraryTarget(o.names ?? DEFAULT_NAMES);
  if (!existsSync(path.join(o.outDir, 'jax', 'CMakeLists.txt')))
    throw new Error(`no generated JAX backend in ${path.join(o.outDir, 'jax')}: run \`opforge gen\` first`);
  const defs: Record<string, string> = {
    WITH_JAX: 'ON',
    JAX_PYTHON: o.python,
    OPFORGE_PROJECT_ROOT: o.root,
    CMAKE_BUILD_TYPE: 'Release',
    WITH_CUDA: o.cuda ? 'ON' : 'OFF',
    OPFORGE_KERNELS: 'OFF',
    ...o.kernels,
  };
  // Reconfigured when the options differ from the cache (another Python: another jaxlib).
  await configureAndBuild({
    source: o.outDir,
    buildDir: o.buildDir,
    defs,
    target,
    configuring: 'cmake configure of out/jax',
    building: 'building the JAX library',
    onLine: o.onLine,
  });
  return path.join(o.buildDir, 'jax', `lib${target}.so`);
}

/** Runs the JAX harness over casesDir (one Python process for every case). */
export async function runJaxHarness(o: {
  python: string;
  outDir: string;
  library: string;
  casesDir: string;
  grad: boolean;
  device: 'cpu' | 'cuda';
  /** The project's names (the packages' names); default: the one package in each folder. */
  names?: ProjectNames;
  /** The run's Python-side interpreter: the harness runs there when it has the same Python. */
  session?: PythonSession | undefined;
}): Promise<JaxRun> {
  const args = [
    '--cases',
    o.casesDir,
    '--package',
    path.join(o.outDir, 'jax'),
    '--python-package',
    path.join(o.outDir, 'python'),
    '--library',
    o.library,
    '--device',
    o.device,
  ];
  if (o.grad) args.push('--grad');
  if (o.names) args.push('--package-name', o.names.jaxPackage, '--python-package-name', o.names.torchPackage);
  const r = await runHarnessScript(o.python, 'jax', args, o.session);
  const last = String(r.stdout).trim().split('\n').at(-1) ?? '';
  if (r.exitCode !== 0 || !last.startsWith('{')) {
    throw new Error(
      `the JAX side of opforge test failed (exit ${r.exitCode}):\n${String(r.stderr).split('\n').slice(-15).join('\n')}`,
    );
  }
  return JSON.parse(last) as JaxRun;
}
