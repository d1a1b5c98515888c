// What a compile read, as one hash: a compile whose key is unchanged is not run again (the
// TensorRT lifecycle driver, the serialization check). Contents, not times: gen rewrites out/
// whole but byte-identical, and a kernel edit undone is the same input again.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** A hash of `parts`, every file under `dirs` and `files` (paths and contents). */
export function compileKey(parts: readonly string[], dirs: readonly string[], files: readonly string[] = []): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  const walk = (d: string): string[] =>
    existsSync(d)
      ? readdirSync(d, { withFileTypes: true })
          .sort((a, b) => (a.name < b.name ? -1 : 1))
          .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]))
      : [];
  for (const f of [...dirs.flatMap(walk), ...files])
    if (existsSync(f) && statSync(f).isFile()) h.update(f).update('\0').update(readFileSync(f)).update('\0');
  return h.digest('hex');
}

/** Whether `keyFile` holds `key` and every output exists. */
export function upToDate(keyFile: string, key: string, outputs: readonly string[]): boolean {
  return existsSync(keyFile) && readFileSync(keyFile, 'utf8') === key && outputs.every((f) => existsSync(f));
}
