// The no-op fast path: a digest of everything a run reads (the generator itself, every file
// under the ops dir, the options) and of the output tree as it was left. When both match the
// stamp of the last run, `gen` has nothing to do and skips loading entirely.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { listTree } from './write-out.js';

export const STAMP_FILE = '.opforge-stamp';
const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function walk(dir: string, f: (file: string) => void): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, f);
    else f(p);
  }
}

/** Digest of the generator code, the schema and every file under the ops dir, plus options. */
export function inputDigest(opsDir: string, options: string): string {
  const h = createHash('sha256');
  h.update(options);
  for (const d of [path.join(pkgRoot, 'dist', 'generator'), path.join(pkgRoot, 'generator', 'cpp'), path.join(pkgRoot, 'generator', 'python'), path.join(pkgRoot, 'schema')]) {
    walk(d, (f) => { h.update(f); h.update(readFileSync(f)); });
  }
  // Specs by content; other files (kernels) by size and mtime: their existence is validated.
  walk(path.resolve(opsDir), (f) => {
    h.update(f);
    if (/\.ya?ml$/.test(f)) h.update(readFileSync(f));
    else { const st = statSync(f); h.update(`${st.size}:${st.mtimeMs}`); }
  });
  return h.digest('hex');
}

/** Digest of the output tree as files on disk (paths, sizes, mtimes). */
export function outputDigest(outDir: string): string {
  return outputState(outDir).digest;
}

/** Digest of the output tree and its file count (one walk). */
function outputState(outDir: string): { digest: string; files: number } {
  const h = createHash('sha256');
  let files = 0;
  for (const p of listTree(outDir)) {
    if (p === STAMP_FILE) continue;
    const st = statSync(path.join(outDir, p));
    h.update(`${p}:${st.size}:${st.mtimeMs}\n`);
    files += 1;
  }
  return { digest: h.digest('hex'), files };
}

export function readStamp(outDir: string): string | undefined {
  try {
    return readFileSync(path.join(outDir, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
}

export function writeStamp(outDir: string, input: string): void {
  writeFileSync(path.join(outDir, STAMP_FILE), `${input}\n${outputDigest(outDir)}\n`);
}

export function stampMatches(outDir: string, input: string): boolean {
  return upToDateFiles(outDir, input) !== undefined;
}

/** The number of output files when the stamp matches (nothing to do), else undefined. */
export function upToDateFiles(outDir: string, input: string): number | undefined {
  const s = readStamp(outDir);
  if (s === undefined || !s.startsWith(`${input}\n`)) return undefined;
  const out = outputState(outDir);
  return s === `${input}\n${out.digest}\n` ? out.files : undefined;
}

/** The input digest `gen` stamps for these options. */
export function genDigest(opts: { opsDir: string; only?: string | undefined; root?: string | undefined }): string {
  return inputDigest(opts.opsDir, JSON.stringify({ only: opts.only ?? null, root: opts.root ?? null }));
}
