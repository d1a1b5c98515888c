// What a Python imports, asked once by `npm test`'s runner for every file of a leg and handed to
// them in OPFORGE_TEST_PYTHON_PROBE: each file's helpers (python.ts) would otherwise import torch,
// paddle and jax themselves to decide what runs, several seconds of CPU per file.

import { spawnSync } from 'node:child_process';

/** The modules the test files ask about (testWith, hasModule, hasPaddle). */
export const PROBED_MODULES = ['torch', 'paddle', 'jax', 'onnx'] as const;

export interface PythonProbe {
  python: string;
  /** torch.__version__ ('' without torch). */
  torch: string;
  /** Whether `python -c "import m"` succeeds, for each of PROBED_MODULES. */
  modules: Record<string, boolean>;
}

export const PROBE_ENV = 'OPFORGE_TEST_PYTHON_PROBE';

/** Asks `python` once: each module in a process of its own, as the files would (one import cannot hide another's failure). */
export function probePython(python: string): PythonProbe {
  const modules: Record<string, boolean> = {};
  let torch = '';
  for (const m of PROBED_MODULES) {
    const r = spawnSync(python, ['-c', `import ${m}; print(getattr(${m}, '__version__', ''))`], { encoding: 'utf8' });
    modules[m] = r.status === 0;
    if (m === 'torch' && r.status === 0) torch = r.stdout.trim();
  }
  return { python, torch, modules };
}

/** The probe in env, when it was made for `python`; else undefined (the caller asks itself). */
export function readProbe(env: NodeJS.ProcessEnv, python: string): PythonProbe | undefined {
  const text = env[PROBE_ENV];
  if (!text) return undefined;
  try {
    const p = JSON.parse(text) as PythonProbe;
    return p.python === python ? p : undefined;
  } catch {
    return undefined;
  }
}
