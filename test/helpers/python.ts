// The Python the tests run, found as opforge finds it (runtime/python-env.ts): $OPFORGE_PYTHON,
// else the active venv (npm test activates .venv, holding requirements-test.txt), else python3.
import { spawnSync } from 'node:child_process';
import type { test } from 'uvu';
import { findPython } from '../../runtime/python-env.js';
import { type PythonProbe, readProbe } from './python-probe.js';
import { type OptionalTool, testNeeding, testUnless } from './optional-tools.js';

export { testUnless };

export const PYTHON = findPython().python;

/**
 * What `npm test`'s runner found PYTHON to import, once for every file of its leg
 * (python-probe.ts): each import of torch or paddle costs seconds of CPU. Undefined when a file runs
 * alone or with another Python; then each question is asked here.
 */
const PROBED: PythonProbe | undefined = readProbe(process.env, PYTHON);

/** The torch version PYTHON imports ('' without torch). */
export const TORCH_VERSION =
  PROBED?.torch ??
  spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).stdout?.trim() ??
  '';

/** TORCH_VERSION as a directory-name suffix: build dirs per torch, so the two test legs never share a CMake cache. */
export const TORCH_TAG = (TORCH_VERSION || 'none').replace(/[^A-Za-z0-9.]+/g, '_');

/** PYTHON's torch is at least major.minor. */
export function torchAtLeast(major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(TORCH_VERSION);
  return m !== null && (Number(m[1]) > major || (Number(m[1]) === major && Number(m[2]) >= minor));
}

export function python(code: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(PYTHON, ['-c', code, ...args], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env },
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`python failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

const importable = new Map<string, boolean>();

/** PYTHON imports `module` (asked once). */
export function hasModule(module: string): boolean {
  let ok = importable.get(module) ?? PROBED?.modules[module];
  if (ok === undefined) {
    ok = spawnSync(PYTHON, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
    importable.set(module, ok);
  }
  return ok;
}

/**
 * `test`, where PYTHON imports every module of `modules`; elsewhere the test is skipped and says
 * which modules it lacks (npm test's venv has them all, so CI runs every such test). A machine
 * without torch still passes the suite: opforge-test.test.ts checks what `opforge test` reports there.
 */
export function testWith(modules: readonly string[], name: string, fn: Parameters<typeof test>[1]): void {
  const missing = modules.filter((m) => !hasModule(m));
  testUnless(missing.length ? `${PYTHON} cannot import ${missing.join(', ')}` : undefined, name, fn);
}

/** PYTHON imports paddle (the test venv has the pinned wheel; Debian's leg has none). */
export const hasPaddle = hasModule('paddle');

/** npm test's second leg (Debian's torch 1.13, run-suite.ts): it repeats what proves the oldest torch. */
export const OLDEST_TORCH_LEG = process.env.OPFORGE_TEST_LEG === 'oldest-torch';

/**
 * The `opforge test` columns whose outcome depends on the torch version: the compiled extension,
 * its gradients, and the exported models (which also run the ONNX Runtime library).
 */
export const TORCH_BACKENDS = ['torch', 'grad', 'export'] as const;

/**
 * The backends a corpus test of a Python-side file asks `opforge test` for: every one (undefined)
 * in the first leg; in the oldest-torch leg only TORCH_BACKENDS, since node, ort, serialize, Paddle
 * and JAX read nothing of torch and the first leg ran them on the same code and builds.
 */
export const LEG_BACKENDS: readonly (typeof TORCH_BACKENDS)[number][] | undefined = OLDEST_TORCH_LEG
  ? TORCH_BACKENDS
  : undefined;

/**
 * `test`, except in the oldest-torch leg: for tests of the Python-side files that do not depend
 * on torch (a Node-only check, nvcc), which the first leg has already run on the same code.
 * `tools`: the optional system tools it needs (optional-tools.ts: skipped, or failed under
 * OPFORGE_REQUIRE_TOOLS=1, without them).
 */
export function firstLegTest(name: string, fn: Parameters<typeof test>[1], tools: readonly OptionalTool[] = []): void {
  testNeeding(
    tools,
    name,
    fn,
    OLDEST_TORCH_LEG ? 'in the oldest-torch leg: it does not use torch, and the first leg ran it' : undefined,
  );
}
