// Incremental builds reuse a configured build directory, and `cmake --build` / `cmake-js compile`
// never re-read -D options once a CMakeCache.txt exists. So a build asked for with other options
// (CUDA on after a CPU build, another project root) silently kept the old ones; the GPU run of
// `opforge test --device cuda` after a CPU run found it. Compare the cache with what is asked for.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The cached values of `names` in buildDir's CMakeCache.txt (absent names are left out). */
export function cachedValues(buildDir: string, names: readonly string[]): Record<string, string> {
  const file = path.join(buildDir, 'CMakeCache.txt');
  const found: Record<string, string> = {};
  if (!existsSync(file)) return found;
  const want = new Set(names);
  // Entries read `NAME:TYPE=value`; comments start with # or //.
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*):[A-Z_]+=(.*)$/.exec(line);
    if (m && want.has(m[1]!)) found[m[1]!] = m[2]!;
  }
  return found;
}

/** Whether buildDir must be (re)configured to hold `defs`: no cache yet, or any value differs. */
export function needsConfigure(buildDir: string, defs: Readonly<Record<string, string>>): boolean {
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt'))) return true;
  const cached = cachedValues(buildDir, Object.keys(defs));
  return Object.entries(defs).some(([k, v]) => cached[k] !== v);
}

/** `-DNAME=value` arguments for cmake. */
export function defineArgs(defs: Readonly<Record<string, string>>, prefix = '-D'): string[] {
  return Object.entries(defs).map(([k, v]) => `${prefix}${k}=${v}`);
}
