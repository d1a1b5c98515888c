// A project made of copies of seed ops (their specs and kernel files), and the opforge command run
// in one as a user runs it, with the test's Python.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync } from 'node:fs';
import path from 'node:path';
import { root } from './paths.js';
import { PYTHON } from './python.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');

/** Copies of the seed ops `ops` (snake names) in `dir`/ops; with `grads`, each op's gradient op comes along. */
export function seedProject(dir: string, ops: readonly string[], opts: { grads?: boolean } = {}): string {
  const all = opts.grads
    ? ops.flatMap((o) => (existsSync(path.join(root, 'ops', `${o}_grad.yaml`)) ? [o, `${o}_grad`] : [o]))
    : ops;
  for (const op of all) {
    cpSync(path.join(root, 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_ref.py', '_impl.h']) {
      const f = path.join(root, 'ops', 'kernels', `${op}${ext}`);
      if (existsSync(f)) cpSync(f, path.join(dir, 'ops', 'kernels', `${op}${ext}`));
    }
  }
  return dir;
}

/** `opforge <args>` in cwd with OPFORGE_PYTHON set to the test's Python (env overrides it). */
export function runOpforge(
  cwd: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, OPFORGE_PYTHON: PYTHON, ...env },
    maxBuffer: 64 << 20,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}
