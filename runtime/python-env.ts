// Which Python opforge runs (the reference, the torch columns, Paddle, builds that ask Python for
// torch's paths): the one a user would expect, in this order:
//   1. $OPFORGE_PYTHON;
//   2. the active virtual environment ($VIRTUAL_ENV) or conda environment ($CONDA_PREFIX);
//   3. python3, then python, on PATH.
// What it finds, and why, is printed by `opforge test` (with the torch/paddle/jax versions).

import { existsSync } from 'node:fs';
import path from 'node:path';

export interface FoundPython {
  /** Command or path to run. */
  python: string;
  /** Why this one: `OPFORGE_PYTHON`, `VIRTUAL_ENV`, `CONDA_PREFIX` or `PATH`. */
  from: 'OPFORGE_PYTHON' | 'VIRTUAL_ENV' | 'CONDA_PREFIX' | 'PATH';
}

const isWindows = process.platform === 'win32';

/** The interpreter of an environment prefix (a venv or a conda env), if it has one. */
function envPython(prefix: string): string | undefined {
  const candidates = isWindows
    ? [path.join(prefix, 'Scripts', 'python.exe'), path.join(prefix, 'python.exe')]
    : [path.join(prefix, 'bin', 'python3'), path.join(prefix, 'bin', 'python')];
  return candidates.find((p) => existsSync(p));
}

/** The first of python3, python on PATH (as a command name), else undefined. */
function onPath(env: NodeJS.ProcessEnv): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const name of isWindows ? ['python3.exe', 'python.exe'] : ['python3', 'python']) {
    if (dirs.some((d) => existsSync(path.join(d, name)))) return name.replace(/\.exe$/, '');
  }
  return undefined;
}

/** The Python to use, by the order above; `python3` when nothing is found (its failure then says so). */
/**
 * The Python that compiles Triton kernels (kernels.triton) ahead of time in a CUDA build:
 * $OPFORGE_TRITON_PYTHON, else `python` (the one a caller already runs: a test run's, a wheel
 * build's), else the Python opforge finds (findPython). It needs Triton, no GPU.
 */
export function tritonPython(python?: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.OPFORGE_TRITON_PYTHON || python || findPython(env).python;
}

export function findPython(env: NodeJS.ProcessEnv = process.env): FoundPython {
  if (env.OPFORGE_PYTHON) return { python: env.OPFORGE_PYTHON, from: 'OPFORGE_PYTHON' };
  for (const key of ['VIRTUAL_ENV', 'CONDA_PREFIX'] as const) {
    const prefix = env[key];
    const py = prefix ? envPython(prefix) : undefined;
    if (py) return { python: py, from: key };
  }
  return { python: onPath(env) ?? 'python3', from: 'PATH' };
}
