// Writes the generated file set to out/ as one atomic step: the new tree is assembled in a
// sibling directory (unchanged files hard-linked, so their mtimes stay and builds stay
// incremental) and swapped in with renames. A run killed at any point leaves either the
// old or the new complete set; the next run finishes or rolls back an interrupted swap.

import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  copyFileSync,
} from 'node:fs';
import path from 'node:path';
import { CACHE_FILE, type GeneratedFile, STAMP_FILE } from '../emit/emitter.js';

const COMPLETE_MARKER = '.opforge-complete';
/** In `${out}.next` of an incremental write: the files to move into out/ and those to delete. */
const JOURNAL = '.opforge-journal';
export { CACHE_FILE, STAMP_FILE };
/** Files of out/ that are the generator's bookkeeping, not output. */
export const BOOKKEEPING: ReadonlySet<string> = new Set([COMPLETE_MARKER, STAMP_FILE, CACHE_FILE]);

export interface WriteResult {
  written: string[];
  unchanged: number;
  removed: string[];
}

/** Lists files under dir (relative, forward slashes), sorted. */
export function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, rel: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(d, e.name), r);
      else if (!BOOKKEEPING.has(r)) out.push(r);
    }
  };
  if (existsSync(dir)) walk(dir, '');
  return out.sort();
}

/** Completes or rolls back a swap a killed run left behind. */
export function recoverOut(outDir: string): void {
  const next = `${outDir}.next`;
  const old = `${outDir}.old`;
  if (existsSync(outDir) && existsSync(path.join(next, COMPLETE_MARKER)) && existsSync(path.join(next, JOURNAL))) {
    applyJournal(outDir, next); // an incremental write was complete: finish moving it in
    return;
  }
  if (!existsSync(outDir)) {
    if (existsSync(path.join(next, COMPLETE_MARKER))) renameSync(next, outDir);
    else if (existsSync(old)) renameSync(old, outDir);
  }
  rmSync(next, { recursive: true, force: true });
  rmSync(old, { recursive: true, force: true });
}

export function writeOut(
  outDir: string,
  files: readonly GeneratedFile[],
  keep?: (relPath: string) => boolean,
): WriteResult {
  outDir = path.resolve(outDir);
  recoverOut(outDir);
  const seen = checkPaths(files);
  const existing = listTree(outDir);
  // Files kept as they are (--only leaves other ops' files alone).
  const kept = keep ? existing.filter((p) => !seen.has(p) && keep(p)) : [];
  const written: string[] = [];
  let unchanged = 0;
  for (const f of files) {
    const cur = path.join(outDir, f.path);
    if (sameContent(cur, f.content)) unchanged++;
    else written.push(f.path);
  }
  const finalSet = new Set([...seen, ...kept]);
  const removed = existing.filter((p) => !finalSet.has(p));
  if (written.length === 0 && removed.length === 0) return { written, unchanged, removed };

  const next = `${outDir}.next`;
  mkdirSync(next, { recursive: true });
  const dirFor = dirMaker();
  const toWrite = new Set(written);
  for (const rel of kept) {
    const dst = path.join(next, rel);
    dirFor(dst);
    linkOrCopy(path.join(outDir, rel), dst);
  }
  for (const f of files) {
    const dst = path.join(next, f.path);
    dirFor(dst);
    if (toWrite.has(f.path)) writeFileSync(dst, f.content);
    else linkOrCopy(path.join(outDir, f.path), dst);
  }
  writeFileSync(path.join(next, COMPLETE_MARKER), '');
  const old = `${outDir}.old`;
  if (existsSync(outDir)) renameSync(outDir, old);
  renameSync(next, outDir);
  rmSync(path.join(outDir, COMPLETE_MARKER), { force: true });
  rmSync(old, { recursive: true, force: true });
  return { written, unchanged, removed };
}

/** The output paths, refused when two emitters produce one or a path leaves out/. */
export function checkPaths(files: readonly GeneratedFile[]): Set<string> {
  const seen = new Set<string>();
  for (const f of files) {
    if (seen.has(f.path)) throw new Error(`two emitters produced ${f.path}`);
    if (f.path.split('/').some((s) => s === '..' || s === '') || path.isAbsolute(f.path))
      throw new Error(`bad output path ${f.path}`);
    seen.add(f.path);
  }
  return seen;
}

/** mkdir -p of each file's directory, once per directory: on a slow disk, mkdir per file costs as much as the writes. */
function dirMaker(): (file: string) => void {
  const made = new Set<string>();
  return (file) => {
    const d = path.dirname(file);
    if (!made.has(d)) {
      mkdirSync(d, { recursive: true });
      made.add(d);
    }
  };
}

/** Whether `file` holds exactly `content` (false when it is missing). */
export function sameContent(file: string, content: string): boolean {
  const buf = Buffer.from(content, 'utf8');
  if (statSync(file, { throwIfNoEntry: false })?.size !== buf.length) return false;
  return readFileSync(file).equals(buf);
}

function linkOrCopy(src: string, dst: string): void {
  try {
    linkSync(src, dst);
  } catch {
    copyFileSync(src, dst);
  }
}

/**
 * Writes only what changed into an out/ that holds the rest (incremental gen), as one step as far
 * as a reader after recoverOut() can tell: the new files go to `${out}.next` with a journal of
 * moves and deletions; once that is complete, the journal is applied (renames within one file
 * system). A run killed before the marker leaves out/ as it was; after it, the next run (or this
 * one) finishes the journal.
 */
export function writeChanges(outDir: string, files: readonly GeneratedFile[], removed: readonly string[]): void {
  outDir = path.resolve(outDir);
  recoverOut(outDir);
  if (files.length === 0 && removed.length === 0) return;
  checkPaths(files);
  const next = `${outDir}.next`;
  const dirFor = dirMaker();
  for (const f of files) {
    const dst = path.join(next, f.path);
    dirFor(dst);
    writeFileSync(dst, f.content);
  }
  mkdirSync(next, { recursive: true });
  writeFileSync(path.join(next, JOURNAL), JSON.stringify({ moves: files.map((f) => f.path), removes: removed }));
  writeFileSync(path.join(next, COMPLETE_MARKER), '');
  applyJournal(outDir, next);
}

function applyJournal(outDir: string, next: string): void {
  const { moves, removes } = JSON.parse(readFileSync(path.join(next, JOURNAL), 'utf8')) as {
    moves: string[];
    removes: string[];
  };
  const dirFor = dirMaker();
  for (const rel of moves) {
    const src = path.join(next, rel);
    if (!existsSync(src)) continue; // moved by the run that was killed
    const dst = path.join(outDir, rel);
    dirFor(dst);
    renameSync(src, dst);
  }
  for (const rel of removes) {
    rmSync(path.join(outDir, rel), { force: true });
    // A removed op leaves its directories empty: a cold run would not have them.
    for (let d = path.dirname(rel); d !== '.'; d = path.dirname(d)) {
      const abs = path.join(outDir, d);
      if (!existsSync(abs) || readdirSync(abs).length > 0) break;
      rmSync(abs, { recursive: true });
    }
  }
  rmSync(next, { recursive: true, force: true });
}
