// The no-op fast path: a digest of everything a run reads (the generator itself, every file
// under the ops dir, the options) and of the output files as they were left. When both match the
// stamp of the last run, `gen` has nothing to do and skips loading entirely.
//
// The stamp lists the files the run wrote, so the output check is one stat per file (no walk of
// out/, whose 2000 directories on a 500-op project cost more than the stats): an
// edited or deleted output is noticed; a stray file someone adds to out/ is removed by the next
// gen that writes anything.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PKG_ROOT as pkgRoot } from './pkg-root.js';
import { STAMP_FILE } from './write-out.js';

export { STAMP_FILE };


function walk(dir: string, f: (file: string) => void): void {
  if (!existsSync(dir)) return;
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, f);
    else f(p);
  }
}

let generator: string | undefined;

/**
 * Digest of the generator itself: its code, the static sources it copies and the schema, by
 * path, size, mtime, ctime and inode (a reinstall or rebuild changes ctime even where npm pins
 * mtime), not by content: reading ~1 MB each run was a tenth of a no-op `gen`.
 */
export function generatorDigest(): string {
  if (generator === undefined) {
    const h = createHash('sha256');
    for (const d of [path.join(pkgRoot, 'dist', 'generator'), path.join(pkgRoot, 'dist', 'cli'), path.join(pkgRoot, 'generator', 'cpp'), path.join(pkgRoot, 'generator', 'python'), path.join(pkgRoot, 'schema')]) {
      walk(d, (f) => {
        const st = statSync(f);
        h.update(`${f}\0${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}\n`);
      });
    }
    generator = h.digest('hex');
  }
  return generator;
}

/** "size:mtime" of a file, or "-" when it is missing: what the output and kernel checks compare. */
export function fileStat(file: string): string {
  const st = statSync(file, { throwIfNoEntry: false });
  return st ? `${st.size}:${st.mtimeMs}` : '-';
}

/** What a run reads from the ops dir, read once: its digest, and the texts and stats behind it. */
export interface Inputs {
  digest: string;
  /** Spec texts by absolute path (a run loads these, not a second read that could differ). */
  specs: Map<string, string>;
  /** fileStat of the other files under the ops dir (kernels) by absolute path. */
  stats: Map<string, string>;
}

/** The digest of the generator, every file under the ops dir and the options; the spec texts and kernel stats read for it. */
export function readInputs(opsDir: string, options: string): Inputs {
  const h = createHash('sha256');
  h.update(options);
  h.update(generatorDigest());
  const specs = new Map<string, string>();
  const stats = new Map<string, string>();
  // Specs by content; other files (kernels) by size and mtime: their existence is validated.
  walk(path.resolve(opsDir), (f) => {
    h.update(f);
    if (/\.ya?ml$/.test(f)) {
      const bytes = readFileSync(f);
      h.update(bytes);
      specs.set(f, bytes.toString('utf8'));
    } else {
      const st = fileStat(f);
      h.update(st);
      stats.set(f, st);
    }
  });
  return { digest: h.digest('hex'), specs, stats };
}

/** Per listed output file (relative to outDir), its fileStat. */
function outputStats(outDir: string, files: readonly string[]): Map<string, string> {
  // Stamped paths are normalized already (write-out.ts checkPaths): a join per file is wasted.
  const dir = `${outDir}/`;
  const stats = new Map<string, string>();
  for (const p of files) stats.set(p, fileStat(dir + p));
  return stats;
}

/** Digest of the output files as on disk (paths, sizes, mtimes); `files` sorted. */
export function outputDigest(files: readonly string[], stats: ReadonlyMap<string, string>): string {
  // One update: a call per line cost more than the hashing.
  let text = '';
  for (const p of files) text += `${p}:${stats.get(p)}\n`;
  return createHash('sha256').update(text).digest('hex');
}

export interface Stamp {
  input: string;
  output: string;
  /** The files the last run left in out/, sorted. */
  files: string[];
}

export function readStamp(outDir: string): Stamp | undefined {
  let text: string;
  try {
    text = readFileSync(path.join(outDir, STAMP_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const [input, output, ...files] = text.split('\n');
  if (!input || !output || files.pop() !== '') return undefined;
  return { input, output, files };
}

/** What a stamp says of out/: the stamp and the stats of the files it lists. */
export interface OutputState { stamp: Stamp; stats: Map<string, string> }

/** Stamps out/ for `input`; `stats` may carry the fileStat of files known unchanged since. */
export function writeStamp(outDir: string, input: string, files: readonly string[], stats?: ReadonlyMap<string, string>): OutputState {
  const all = new Map(files.map((p) => [p, stats?.get(p) ?? fileStat(path.join(outDir, p))]));
  const stamp = { input, output: outputDigest(files, all), files: [...files] };
  writeFileSync(path.join(outDir, STAMP_FILE), `${input}\n${stamp.output}\n${files.map((f) => `${f}\n`).join('')}`);
  return { stamp, stats: all };
}

/** The stamp and the output files' stats when out/ is as the last run left it, else undefined. */
export function untouchedOutput(outDir: string, stamp = readStamp(outDir)): OutputState | undefined {
  if (stamp === undefined) return undefined;
  const stats = outputStats(outDir, stamp.files);
  return outputDigest(stamp.files, stats) === stamp.output ? { stamp, stats } : undefined;
}

/** The inputs `gen` stamps for these options. */
export function genInputs(opts: { opsDir: string; only?: string | undefined; root?: string | undefined }): Inputs {
  return readInputs(opts.opsDir, JSON.stringify({ only: opts.only ?? null, root: opts.root ?? null }));
}
