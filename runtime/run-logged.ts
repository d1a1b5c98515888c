// A build step (cmake, a compiler, Paddle's or JAX's build) run at the lowest priority while the
// machine is busy, its output passed on line by line, its error lines in the exception it throws.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { defineArgs, needsConfigure } from './cmake-cache.js';
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

/**
 * Configures `source` into buildDir with `defs` when it has no build files yet or its cache holds
 * other values (CMake never re-reads -D options on its own), then builds `target`.
 */
export async function configureAndBuild(o: {
  source: string;
  buildDir: string;
  defs: Readonly<Record<string, string>>;
  target: string;
  /** What the two steps are, in their error messages. */
  configuring: string;
  building: string;
  onLine?: ((l: string) => void) | undefined;
}): Promise<void> {
  // (a failed configure can leave a cache but no build files)
  const generated = ['Makefile', 'build.ninja'].some((f) => existsSync(path.join(o.buildDir, f)));
  if (!generated || needsConfigure(o.buildDir, o.defs))
    await runLogged('cmake', ['-S', o.source, '-B', o.buildDir, ...defineArgs(o.defs)], o.configuring, o.onLine);
  await runLogged('cmake', ['--build', o.buildDir, '--target', o.target, '-j', '2'], o.building, o.onLine);
}
