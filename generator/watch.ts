// `opforge gen --watch`: regenerate when a spec or kernel changes. Quiet on success (one line),
// errors shown in place (the screen is redrawn on a TTY).

import { watch } from 'node:fs';
import { formatDiagnostic, SpecErrors } from './diagnostics.js';
import type { GenOptions } from './gen.js';
import { generateIncremental } from './incremental.js';
import type { OutputState } from './stamp.js';

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
      const { project, result, state } = generateIncremental(opts, undefined, known);
      known = state;
      const ms = Math.round(performance.now() - t0);
      text = project === undefined ? `up to date (${ms} ms)` : `${project.ops.length} op(s): ${result.written.length} written, ${result.removed.length} removed (${ms} ms)`;
    } catch (e) {
      known = undefined;
      text = e instanceof SpecErrors ? `${e.diagnostics.map((d) => formatDiagnostic(d, tty)).join('\n')}\n${e.diagnostics.length} error(s); out/ left as it was` : `error: ${(e as Error).message}`;
    }
    out.write(`${tty ? '\x1b[2J\x1b[H' : ''}[opforge watch ${new Date().toTimeString().slice(0, 8)}] ${text}\n`);
  };
  // Watch before the first run: Node sets up recursive watching on Linux asynchronously, and a
  // change made while the first generation runs must trigger another one, not be lost.
  const watcher = watch(opts.opsDir, { recursive: true }, () => {
    clearTimeout(timer);
    timer = setTimeout(once, 15); // editors write in bursts (a temp file, then a rename: milliseconds apart)
  });
  once();
  return () => { clearTimeout(timer); watcher.close(); };
}
