// The Python the tests run, found as opforge finds it (runtime/python-env.ts): $OPFORGE_PYTHON,
// else the active venv (npm test activates .venv, holding requirements-test.txt), else python3.
import { spawnSync } from 'node:child_process';
import { findPython } from '../../runtime/python-env.js';

export const PYTHON = findPython().python;

/** The torch version PYTHON imports ('' without torch). */
export const TORCH_VERSION = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).stdout?.trim() ?? '';

/** TORCH_VERSION as a directory-name suffix: build dirs per torch, so the two test legs never share a CMake cache. */
export const TORCH_TAG = (TORCH_VERSION || 'none').replace(/[^A-Za-z0-9.]+/g, '_');

/** PYTHON imports paddle (the test venv has the pinned wheel; Debian's leg has none). */
export const hasPaddle = spawnSync(PYTHON, ['-c', 'import paddle'], { stdio: 'ignore' }).status === 0;

/** PYTHON's torch is at least major.minor. */
export function torchAtLeast(major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(TORCH_VERSION);
  return m !== null && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
}

export function python(code: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(PYTHON, ['-c', code, ...args], { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`python failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
