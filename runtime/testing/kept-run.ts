// A harness run kept by content: its report and the files it wrote into the case folder, restored
// instead of starting Python when nothing the run reads has changed (the key: runtime/testing/
// compile-key.ts over the cases, the harness, the generated package, the built library, the Python
// and what it has). What `opforge test` does for the JAX column here, and for the PyTorch side in
// backends/pytorch/build.ts (which also keeps its exported models apart).

import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type CaseFileOwner, caseFileOwner } from './case-files.js';

/** Every file under dir that `owner` writes, with its size and modification time (what tells a file the run wrote). */
function listing(dir: string, owner: CaseFileOwner): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    if (!existsSync(d)) return;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) {
        const rel = path.relative(dir, p);
        if (caseFileOwner(rel) !== owner) continue;
        const s = statSync(p);
        out.set(rel, `${s.size}:${s.mtimeMs}`);
      }
    }
  };
  walk(dir);
  return out;
}

/**
 * `run()`'s result, or the one kept under cacheDir for `key` (the files it wrote, those of `owner`
 * alone, copied back into casesDir). A failed run keeps nothing.
 */
export async function keptRun<T>(o: {
  cacheDir: string;
  key: string;
  casesDir: string;
  /** Whose files the run writes (case-files.ts): another harness's, written meanwhile, are not kept. */
  owner: CaseFileOwner;
  run: () => Promise<T>;
}): Promise<T> {
  const keyFile = path.join(o.cacheDir, 'key');
  const report = path.join(o.cacheDir, 'report.json');
  const files = path.join(o.cacheDir, 'files');
  if (existsSync(keyFile) && readFileSync(keyFile, 'utf8') === o.key && existsSync(report)) {
    if (existsSync(files)) cpSync(files, o.casesDir, { recursive: true });
    return JSON.parse(readFileSync(report, 'utf8')) as T;
  }
  rmSync(o.cacheDir, { recursive: true, force: true });
  const before = listing(o.casesDir, o.owner);
  const result = await o.run();
  mkdirSync(files, { recursive: true });
  for (const [rel, stamp] of listing(o.casesDir, o.owner))
    if (before.get(rel) !== stamp) cpSync(path.join(o.casesDir, rel), path.join(files, rel));
  writeFileSync(report, JSON.stringify(result));
  writeFileSync(keyFile, o.key); // last: a run cut short leaves no key
  return result;
}
