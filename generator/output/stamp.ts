// The no-op fast path: a digest of everything a run reads (the generator itself, every file
// under the ops dir, the options) and of the output files as they were left. When both match the
// stamp of the last run, `gen` has nothing to do and skips loading entirely.
//
// Specs count by content (sha256), but a spec is read only when its stat (size, mtime, ctime,
// inode) differs from what the stamp recorded with its hash, as git's index does. A spec changed
// within RACY_MS of being stat'ed could keep its stat through a second edit (file times tick
// coarsely), so its stat is not recorded and the next run reads it again.
//
// The stamp lists the files the run wrote, so the output check is one stat per file (no walk of
// out/, whose 2000 directories on a 500-op project cost more than the stats): an
// edited or deleted output is noticed; a stray file someone adds to out/ is removed by the next
// gen that writes anything.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PKG_ROOT as pkgRoot } from '../pkg-root.js';
import { specHash } from '../model/spec-hash.js';
import { STAMP_FILE } from './write-out.js';
import { readProjectConfig } from '../model/project-names.js';

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
    for (const d of [
      path.join(pkgRoot, 'dist', 'generator'),
      path.join(pkgRoot, 'dist', 'cli'),
      path.join(pkgRoot, 'generator', 'static'),
      path.join(pkgRoot, 'schema'),
    ]) {
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

/** A spec as the stamp records it: its stat (empty when too recent to trust) and its text's sha256. */
export interface SpecStamp {
  stat: string;
  hash: string;
}

/** What a run reads from the ops dir, read once: its digest, and the texts and stats behind it. */
export interface Inputs {
  digest: string;
  /** Texts of the specs read this run by absolute path (a run loads these, not a second read that could differ). */
  specs: Map<string, string>;
  /** Every spec's stat and hash by absolute path: what the run loads by, and the next stamp records. */
  hashes: Map<string, SpecStamp>;
  /** fileStat of the other files under the ops dir (kernels) by absolute path. */
  stats: Map<string, string>;
}

/** How recently changed (ms, by ctime) a spec's stat is not trusted to tell a later edit. */
export const RACY_MS = 2000;

/**
 * The digest of the generator, every file under the ops dir and the options; the spec texts read
 * for it and the kernel stats. `known`: the last stamp's specs, whose hashes stand while the stat does.
 */
export function readInputs(opsDir: string, options: string, known?: ReadonlyMap<string, SpecStamp>): Inputs {
  const h = createHash('sha256');
  h.update(options);
  h.update(generatorDigest());
  const specs = new Map<string, string>();
  const hashes = new Map<string, SpecStamp>();
  const stats = new Map<string, string>();
  const trustedBefore = Date.now() - RACY_MS;
  // Specs by content; other files (kernels) by size and mtime: their existence is validated.
  walk(path.resolve(opsDir), (f) => {
    h.update(f);
    if (/\.ya?ml$/.test(f)) {
      const st = statSync(f, { throwIfNoEntry: false });
      const stat = st ? `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}` : '';
      let hash = stat === '' ? undefined : known?.get(f);
      if (hash === undefined || hash.stat !== stat) {
        let text = '';
        try {
          text = readFileSync(f, 'utf8');
        } catch {
          /* gone meanwhile: loading reports it */
        }
        specs.set(f, text);
        hash = { stat: st && st.ctimeMs < trustedBefore ? stat : '', hash: specHash(text) };
      }
      hashes.set(f, hash);
      h.update(hash.hash);
    } else {
      const st = fileStat(f);
      h.update(st);
      stats.set(f, st);
    }
  });
  return { digest: h.digest('hex'), specs, hashes, stats };
}

/**
 * Per listed output file (relative to outDir), its size and mtime: two numbers a file in the
 * list's order (-1 for a missing file). Numbers, not strings: a no-op stats every output, and
 * formatting 9,000 stats and joining them cost more than hashing them.
 */
function outputStats(outDir: string, files: readonly string[]): Float64Array {
  // Stamped paths are normalized already (write-out.ts checkPaths): a join per file is wasted.
  const dir = `${outDir}/`;
  const stats = new Float64Array(files.length * 2);
  for (let i = 0; i < files.length; i++) statInto(stats, i, dir + files[i]!);
  return stats;
}

function statInto(stats: Float64Array, i: number, file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  stats[2 * i] = st ? st.size : -1;
  stats[2 * i + 1] = st ? st.mtimeMs : -1;
}

/** Digest of the output files as on disk: their paths (`files`, sorted) and outputStats. */
export function outputDigest(files: readonly string[], stats: Float64Array): string {
  return createHash('sha256')
    .update(files.join('\n'))
    .update(new Uint8Array(stats.buffer, stats.byteOffset, stats.byteLength))
    .digest('hex');
}

export interface Stamp {
  input: string;
  output: string;
  /** The specs the inputs were read from: their stats and hashes (readInputs' `known`). */
  specs: Map<string, SpecStamp>;
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
  const [input, output, specLine, ...files] = text.split('\n');
  if (!input || !output || specLine === undefined || files.pop() !== '') return undefined;
  let specs: Map<string, SpecStamp>;
  try {
    specs = new Map((JSON.parse(specLine) as [string, string, string][]).map(([f, stat, hash]) => [f, { stat, hash }]));
  } catch {
    return undefined; // an older stamp: a full run writes a new one
  }
  return { input, output, specs, files };
}

/** What a stamp says of out/: the stamp and the stats of the files it lists (outputStats, in its order). */
export interface OutputState {
  stamp: Stamp;
  stats: Float64Array;
}

/**
 * Stamps out/ for `inputs` (the digest, and the specs' stats and hashes). `known`: out/ as stamped
 * before, whose stats stand for the files not in `changed` (written since); others are stat'ed.
 */
export function writeStamp(
  outDir: string,
  inputs: Pick<Inputs, 'digest' | 'hashes'>,
  files: readonly string[],
  known?: OutputState,
  changed: ReadonlySet<string> = new Set(),
): OutputState {
  let all: Float64Array;
  if (known === undefined) all = outputStats(outDir, files);
  else if (known.stamp.files === files) {
    // The same list (no file added or removed): the stamp's stats, the written files' afresh.
    all = changed.size === 0 ? known.stats : Float64Array.from(known.stats);
    if (changed.size > 0)
      files.forEach((p, i) => {
        if (changed.has(p)) statInto(all, i, `${outDir}/${p}`);
      });
  } else {
    const at = new Map(known.stamp.files.map((p, i) => [p, i]));
    all = new Float64Array(files.length * 2);
    files.forEach((p, i) => {
      const k = changed.has(p) ? undefined : at.get(p);
      if (k === undefined) statInto(all, i, `${outDir}/${p}`);
      else all.set(known.stats.subarray(2 * k, 2 * k + 2), 2 * i);
    });
  }
  const stamp = {
    input: inputs.digest,
    output: outputDigest(files, all),
    specs: new Map(inputs.hashes),
    files: known !== undefined && files === known.stamp.files ? known.stamp.files : [...files],
  };
  // The specs on one line as JSON: their paths are the user's and may hold any character.
  const specLine = JSON.stringify([...stamp.specs].map(([f, e]) => [f, e.stat, e.hash]));
  writeFileSync(
    path.join(outDir, STAMP_FILE),
    `${stamp.input}\n${stamp.output}\n${specLine}\n${files.map((f) => `${f}\n`).join('')}`,
  );
  return { stamp, stats: all };
}

/** The stamp and the output files' stats when out/ is as the last run left it, else undefined. */
export function untouchedOutput(outDir: string, stamp = readStamp(outDir)): OutputState | undefined {
  if (stamp === undefined) return undefined;
  const stats = outputStats(outDir, stamp.files);
  return outputDigest(stamp.files, stats) === stamp.output ? { stamp, stats } : undefined;
}

/**
 * out/ as stamped when it is up to date for `inputs`, else undefined. Specs read only because
 * their stats were too recent to trust (a fresh checkout: all of them) are stamped again with
 * their stats now settled, so that the next run need not read them.
 */
export function upToDate(outDir: string, inputs: Inputs, state: OutputState | undefined): OutputState | undefined {
  if (state === undefined || state.stamp.input !== inputs.digest) return undefined;
  for (const [f, e] of inputs.hashes) {
    if (e.stat !== '' && state.stamp.specs.get(f)?.stat !== e.stat)
      return writeStamp(outDir, inputs, state.stamp.files, state);
  }
  return state;
}

/** What `gen` knows before loading anything: its inputs, out/ as stamped (if it is), and whether that is up to date. */
export interface Preflight {
  inputs: Inputs;
  state: OutputState | undefined;
  current: OutputState | undefined;
}

/**
 * The stamp check every `gen` starts with. `known`: out/ as the caller knows it (`gen --watch`'s
 * last run), so that the outputs are not stat'ed again.
 */
export function preflight(
  opts: { opsDir: string; outDir: string; only?: string | undefined; root?: string | undefined },
  known?: OutputState,
): Preflight {
  const stamp = known?.stamp ?? readStamp(opts.outDir);
  const inputs = genInputs(opts, stamp);
  const state = known ?? untouchedOutput(opts.outDir, stamp);
  return { inputs, state, current: upToDate(opts.outDir, inputs, state) };
}

/** The inputs `gen` stamps for these options; `stamp`: the last run's, whose spec hashes stand while their stats do. */
export function genInputs(
  opts: { opsDir: string; only?: string | undefined; root?: string | undefined },
  stamp?: Stamp,
): Inputs {
  // The project's names and version (its package.json's opforge.namespace and version) are inputs too.
  const root = path.resolve(opts.root ?? path.dirname(path.resolve(opts.opsDir)));
  const project = readProjectConfig(root);
  return readInputs(
    opts.opsDir,
    JSON.stringify({ only: opts.only ?? null, root: opts.root ?? null, project }),
    stamp?.specs,
  );
}
