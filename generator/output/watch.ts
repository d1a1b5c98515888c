// `opforge gen --watch`: regenerate when a spec, a kernel or the project's package.json (its
// namespace and version are in the output) changes. Quiet on success (one line),
// errors shown in place (the screen is redrawn on a TTY).

import { watch, type FSWatcher } from 'node:fs';
import { directories, watchDirectories } from './dir-watch.js';
import path from 'node:path';
import { formatDiagnostic, SpecErrors } from '../model/diagnostics.js';
import type { GenOptions } from './gen.js';
import { generateIncremental } from './incremental.js';
import { preflight, type OutputState } from './stamp.js';

export function watchAndGenerate(opts: GenOptions, out: NodeJS.WriteStream = process.stdout): () => void {
  const tty = out.isTTY === true;
  let timer: NodeJS.Timeout | undefined;
  // out/ as the last run left it: between its own runs the watcher trusts out/ instead of stat'ing
  // every output again (a hand edit made meanwhile is restored by the next plain `opforge gen`).
  let known: OutputState | undefined;
  const once = (): void => {
    const t0 = performance.now();
    let text: string;
    try {
      const { project, result, state } = generateIncremental(opts, preflight(opts, known));
      known = state;
      const ms = Math.round(performance.now() - t0);
      text =
        project === undefined
          ? `up to date (${ms} ms)`
          : `${project.ops.length} op(s): ${result.written.length} written, ${result.removed.length} removed (${ms} ms)`;
    } catch (e) {
      known = undefined;
      text =
        e instanceof SpecErrors
          ? `${e.diagnostics.map((d) => formatDiagnostic(d, tty)).join('\n')}\n${e.diagnostics.length} error(s); out/ left as it was`
          : `error: ${(e as Error).message}`;
    }
    out.write(`${tty ? '\x1b[2J\x1b[H' : ''}[opforge watch ${new Date().toTimeString().slice(0, 8)}] ${text}\n`);
  };
  // Watch before the first run: a change made while the first generation runs must trigger
  // another one, not be lost.
  const stopDirs = watchDirectories(() => directories(opts.opsDir), once);
  const onEvent = (): void => {
    clearTimeout(timer);
    timer = setTimeout(once, 15);
  };
  // package.json beside the ops dir: its directory is watched, for the file alone (an atomic save
  // replaces the file, which a watch on the file itself would lose).
  const root = path.resolve(opts.root ?? path.dirname(path.resolve(opts.opsDir)));
  let project: FSWatcher | undefined;
  try {
    project = watch(root, (_event, file) => {
      if (file === 'package.json') onEvent();
    }).on('error', () => {});
  } catch {
    /* no project directory to watch */
  }
  once();
  return () => {
    clearTimeout(timer);
    project?.close();
    stopDirs();
  };
}
