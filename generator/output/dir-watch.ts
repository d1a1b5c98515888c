// Watching a project's source folders for `opforge gen --watch` and `opforge test --watch`. Every
// directory is watched on its own (inotify on the directory): Node's recursive watching on Linux
// watches files, and loses a file replaced by an atomic save (write a temp file, rename it over
// the spec: vim, VS Code), missing later edits.

import { readdirSync, watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * Calls `onChange` once a burst of changes in any directory `list()` gives has settled (`delayMs`
 * without another), the set of directories synced to `list()` first (a folder made or removed).
 * `accept` filters events by directory and file name. Returns the function that stops watching.
 */
export function watchDirectories(
  list: () => readonly string[],
  onChange: () => void,
  opts: { delayMs?: number; accept?: (dir: string, file: string | null) => boolean } = {},
): () => void {
  const dirs = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  const sync = (): void => {
    const now = new Set(list());
    for (const [d, w] of dirs)
      if (!now.has(d)) {
        w.close();
        dirs.delete(d);
      }
    for (const d of now) {
      if (dirs.has(d)) continue;
      try {
        // (a removed directory: dropped at the next sync)
        const w = watch(d, (_event, file) => {
          if (opts.accept && !opts.accept(d, file === null ? null : String(file))) return;
          clearTimeout(timer);
          timer = setTimeout(() => {
            sync();
            onChange();
          }, opts.delayMs ?? 15); // editors write in bursts (a temp file, then a rename)
        });
        dirs.set(
          d,
          w.on('error', () => {}),
        );
      } catch {
        /* removed meanwhile */
      }
    }
  };
  sync();
  return () => {
    clearTimeout(timer);
    for (const w of dirs.values()) w.close();
    dirs.clear();
  };
}

/** `dir` and every directory below it, less those `skip` names (and what is under them). */
export function directories(dir: string, skip: (d: string) => boolean = () => false): string[] {
  const out = [dir];
  for (let i = 0; i < out.length; i++) {
    try {
      for (const e of readdirSync(out[i]!, { withFileTypes: true })) {
        const d = path.join(out[i]!, e.name);
        if (e.isDirectory() && !skip(d)) out.push(d);
      }
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}
