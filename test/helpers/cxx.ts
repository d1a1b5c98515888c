// Compiling and running C++ from tests, with the flags the standards ask for.
import { spawnSync } from 'node:child_process';

export const CXXFLAGS = ['-std=c++17', '-Wall', '-Wextra', '-Werror', '-Wpedantic', '-Wshadow', '-O2'];

/** Runs a command; throws with its output when it fails. */
export function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
