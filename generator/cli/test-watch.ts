// `opforge test --watch`: runs the tests, then again whenever a spec, a kernel, a reference or the
// project's package.json changes, until interrupted. Between runs the interpreters the next run
// will want start ahead (runtime/testing/standby.ts), so an edit's run does not wait for torch,
// paddle or jax to import. A change during a run starts one more run after it.

import path from 'node:path';
import type { Standby } from '../../runtime/testing/standby.js';
import { kernelFiles } from '../model/ir-helpers.js';
import { loadProject } from '../model/project.js';
import { directories, watchDirectories } from '../output/dir-watch.js';

export interface WatchedProject {
  root: string;
  opsDir: string;
  outDir: string;
  buildDir: string;
}

/**
 * The folders a run reads from: the specs folder and those below it, each kernel's and
 * reference's folder (kernels may live outside ops/), and the project root (its package.json),
 * never out/ or build/ (which the run writes).
 */
export function watchedFolders(p: WatchedProject): string[] {
  const written = [p.outDir, p.buildDir];
  const inside = (d: string, base: string): boolean => d === base || d.startsWith(`${base}${path.sep}`);
  const skip = (d: string): boolean =>
    written.some((w) => inside(d, w)) || ['node_modules', '__pycache__'].includes(path.basename(d));
  const dirs = new Set([...directories(p.opsDir, skip), p.root]);
  try {
    for (const op of loadProject({ opsDir: p.opsDir, root: p.root }).ops)
      for (const f of kernelFiles(op)) dirs.add(path.dirname(path.resolve(p.root, f)));
  } catch {
    /* specs with errors: the run reports them; the specs folder is watched */
  }
  return [...dirs].filter((d) => !skip(d) || d === p.root).sort();
}

/**
 * Runs `run` now and after every change, with `standby` filled between runs; resolves with the
 * last run's exit code when the process is asked to stop (SIGINT, SIGTERM).
 */
export async function watchTests(
  p: WatchedProject,
  standby: Standby,
  run: () => Promise<number>,
  say: (line: string) => void,
): Promise<number> {
  let code = 0;
  let running: Promise<void> | undefined;
  let again = false;
  const cycle = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        code = await run();
        const took = standby.takenSinceLast();
        standby.refill();
        say(
          `[opforge test --watch ${new Date().toTimeString().slice(0, 8)}] the run took ${took} Python side(s) started ahead; ${standby.waiting} wait for the next; waiting for changes`,
        );
      } while (again);
      running = undefined;
    })();
  };
  // The root is watched for package.json alone; every other folder for any file.
  const stop = watchDirectories(() => watchedFolders(p), cycle, {
    accept: (dir, file) =>
      (dir !== p.root || file === 'package.json' || file === null) && !(file ?? '').endsWith('.pyc'),
    delayMs: 50,
  });
  cycle();
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  stop();
  await running;
  standby.close();
  return code;
}
