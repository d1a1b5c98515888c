// The runtime's modules (build, run, test) are ES modules outside the `opforge` bundle. When the
// command's entry (cli-entry.cts) runs the bundle as a vm script with a V8 code cache, the script
// cannot import() on Node 20 without an experimental loader; the entry then passes its own import.
// Specifiers are paths under dist/ (e.g. 'runtime/index.js'), resolved from the package root, so
// they mean the same from dist/generator/cli/ and from the bundle in dist/cli/.

import { PKG_ROOT_URL } from '../pkg-root.js';

const ENTRY_IMPORT = Symbol.for('opforge.cli.import');

export function importRuntime<T>(distPath: string): Promise<T> {
  const url = new URL(`dist/${distPath}`, PKG_ROOT_URL).href;
  const viaEntry = (globalThis as Record<symbol, unknown>)[ENTRY_IMPORT] as
    | ((s: string) => Promise<unknown>)
    | undefined;
  return (viaEntry ? viaEntry(url) : import(url)) as Promise<T>;
}

/** Tells the entry that this run generated code (worth keeping its compiled functions in the cache). */
export function markGenerated(): void {
  (globalThis as Record<symbol, unknown>)[Symbol.for('opforge.cli.generated')] = true;
}
