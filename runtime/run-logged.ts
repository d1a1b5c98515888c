// A build step (cmake, a compiler, Paddle's or JAX's build) run at the lowest priority while the
// machine is busy, its output passed on line by line, its error lines in the exception it throws.

import { execa } from 'execa';
import { lowerIfIdle } from './build-priority.js';

/** Runs a build step, passing each output line to onLine; throws with its error lines on failure. */
export async function runLogged(
  cmd: string,
  args: string[],
  what: string,
  onLine?: (l: string) => void,
  env?: NodeJS.ProcessEnv,
): Promise<void> {
  const child = lowerIfIdle(execa(cmd, args, { all: true, reject: false, ...(env ? { env } : {}) }));
  const lines: string[] = [];
  child.all?.on('data', (d: Buffer) => {
    for (const l of d.toString().split('\n').filter(Boolean)) {
      lines.push(l);
      onLine?.(l);
    }
  });
  const r = await child;
  if (r.exitCode !== 0) {
    const errors = lines
      .filter((l) => /error|Error/.test(l))
      .slice(0, 20)
      .join('\n');
    throw new Error(`${what} failed (exit ${r.exitCode}):\n${errors || lines.slice(-30).join('\n')}`);
  }
}
