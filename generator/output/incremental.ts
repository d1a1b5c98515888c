// Incremental gen: after one spec changes in a large project, only that spec is read
// and validated again and only the ops it affects are emitted again; the project-wide files
// (registries, CMake, the Node addon) are emitted from the whole IR every time, and only files
// whose bytes differ are written. The output is the cold run's, byte for byte (test/incremental).
//
// `.opforge-cache` in out/ keeps, per spec file, the op built from it (before backward
// resolution, which reads other specs) with the spec's hash and its kernel files' stats, and per
// op its emit key (emitKey) and the files it produced. The cache is used only while out/
// is exactly as the last stamped run left it; anything else is a full run.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { fragmentContext, type GeneratedFile } from '../emit/emitter.js';
import { EMITTERS } from '../emit/index.js';
import { checkOutDir, generate, type GenOptions } from './gen.js';
import { kernelFiles } from '../model/ir-helpers.js';
import type { GradientIR, OpIR, ProjectIR } from '../model/ir.js';
import { readProjectConfig } from '../model/project-names.js';
import { loadProjectReusing, type RawGradient, type SpecOp, type SpecReuse } from '../model/project.js';
import {
  fileStat,
  generatorDigest,
  preflight,
  writeStamp,
  type Inputs,
  type OutputState,
  type Preflight,
} from './stamp.js';
import {
  CACHE_FILE,
  checkPaths,
  listTree,
  sameContent,
  writeChanges,
  writeOut,
  type WriteResult,
} from './write-out.js';

interface SpecEntry {
  /** sha256 of the spec text (stamp.ts knows it by stat for a spec not edited since). */
  hash: string;
  /** Kernel files of the op (relative to the root) and their stats when it was built. */
  kernels: string[];
  kernelStats: string;
  /** v8-serialized { op, backward }, as built (before backward resolution). */
  built: Uint8Array;
  /** Its field names and the fields read of every op (lazyOp); the spec's raw backward, if any. */
  head?: { keys: string[]; eager: Partial<OpIR>; raw: RawGradient[] | undefined };
  /**
   * The backward it resolved to, and what from: the spec file and digest (`hash:kernelStats`) of
   * each gradient op it names, in name order. It stands while those entries do (reuseOf).
   */
  resolved?: { from: [file: string, digest: string][]; backward: GradientIR[] };
}

/**
 * What loading, emit keys and the project-wide files read of every op (names, kernels, `backward`:
 * as built, before resolution sets it from the cache or afresh): kept decoded in the cache, so that
 * the ops a run does not emit need not be decoded (lazyOp).
 */
const EAGER = ['name', 'ident', 'domain', 'version', 'source', 'kernels', 'backward'] as const;

interface OpEntry {
  /** Digest of what the op's files are emitted from (generator/output/incremental.ts emitKey). */
  key: string;
  files: string[];
}

interface Cache {
  /** What the cache is valid for: the generator, the options, the root, the cwd (message paths), out/. */
  key: string;
  specs: Record<string, SpecEntry>;
  ops: Record<string, OpEntry>;
  /** Per-op fragments of project-wide files (emitter.ts perOp), by fragment and emit key. */
  fragments: Map<string, string>;
  /** sha1 of each project-wide file as written: out/ is untouched, so no need to read it back. */
  written: Map<string, string>;
}

const sha = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');
// Only compares a file with what this tool wrote there itself: speed over collision resistance.
const quickHash = (data: string): string => createHash('sha1').update(data).digest('base64');

function rootOf(opts: GenOptions): string {
  return path.resolve(opts.root ?? path.dirname(path.resolve(opts.opsDir)));
}

function cacheKey(opts: GenOptions): string {
  // The project's names and version (its package.json) are in the files: another namespace is another cache.
  const project = readProjectConfig(rootOf(opts));
  return sha(JSON.stringify([generatorDigest(), rootOf(opts), process.cwd(), path.resolve(opts.outDir), project]));
}

/**
 * The cache this process last wrote, while the file is still the one it wrote (`gen --watch` runs
 * again and again in one process: no re-reading, and decoded ops are reused).
 */
let lastWritten: { file: string; stat: string; cache: Cache } | undefined;
const decoded = new WeakMap<SpecEntry, { op: OpIR; backward: RawGradient[] | undefined }>();
/** The project-wide files' contents behind a cache's `written` hashes, while in memory. */
const contents = new WeakMap<Cache, Map<string, string>>();

function readCache(outDir: string, key: string): Cache | undefined {
  const file = path.resolve(outDir, CACHE_FILE);
  if (lastWritten?.file === file && lastWritten.stat === fileStat(file))
    return lastWritten.cache.key === key ? lastWritten.cache : undefined;
  try {
    const c = v8.deserialize(readFileSync(file)) as Omit<Cache, 'fragments'> & { fragments: PackedFragments };
    return c.key === key ? { ...c, fragments: unpack(c.fragments) } : undefined;
  } catch {
    return undefined; // absent or from another Node: a full run writes a new one
  }
}

/** Stats of kernel files (relative to `root`), joined: from `inputs` for those under the ops dir. */
function kernelStats(root: string, inputs: Inputs): (files: readonly string[]) => string {
  return (files) =>
    files
      .map((f) => {
        const p = path.join(root, f);
        return inputs.stats.get(p) ?? fileStat(p);
      })
      .join('|');
}

/** What an entry's op is built from: its spec's hash and its kernel files' stats. */
const digestOf = (e: SpecEntry): string => `${e.hash}:${e.kernelStats}`;

/**
 * The previous run's entries as loadProjectReusing takes them (project.ts SpecReuse), with the
 * texts and hashes `inputs` read. An entry stands while its spec's hash and its kernel files' stats
 * are as they were; its resolved backward while the entries of the gradient ops' specs stand too,
 * with the digests it was resolved from.
 */
function reuseOf(
  previous: Record<string, SpecEntry>,
  statsOf: (files: readonly string[]) => string,
  inputs: Inputs,
): SpecReuse {
  const standing = (file: string, hash: string | undefined): SpecEntry | undefined => {
    const e = previous[file];
    return e !== undefined && e.hash === hash && e.kernelStats === statsOf(e.kernels) ? e : undefined;
  };
  const stands = ([file, digest]: readonly [string, string]): boolean => {
    const e = standing(file, inputs.hashes.get(file)?.hash);
    return e !== undefined && digestOf(e) === digest;
  };
  return {
    texts: inputs.specs,
    hashes: inputs.hashes,
    lookup(file, hash) {
      const e = standing(file, hash);
      if (e === undefined) return undefined;
      const { op, backward } = decodedOp(e);
      return { op, backward, resolved: e.resolved?.from.every(stands) ? e.resolved.backward : undefined };
    },
  };
}

/**
 * The op of an entry, decoded once per entry: lazily (lazyOp) where the entry has its head.
 * Backward resolution only ever sets op.backward afresh, so a decoded op can be used again.
 */
function decodedOp(e: SpecEntry): { op: OpIR; backward: RawGradient[] | undefined } {
  let hit = decoded.get(e);
  if (hit === undefined) {
    const decode = (): { op: OpIR; backward: RawGradient[] | undefined } =>
      v8.deserialize(e.built) as { op: OpIR; backward: RawGradient[] | undefined };
    hit = e.head ? { op: lazyOp(e.head.keys, e.head.eager, () => decode().op), backward: e.head.raw } : decode();
    decoded.set(e, hit);
  }
  return hit;
}

/**
 * This run's entries from what the load returned: a reused spec's entry as it was, a built one's
 * afresh; then, per op with a backward, what it resolved to and from (the gradient ops' spec files
 * and digests). `digests`: every op's (emitKey).
 */
function specEntries(
  specs: ReadonlyMap<string, SpecOp>,
  previous: Record<string, SpecEntry>,
  statsOf: (files: readonly string[]) => string,
): { entries: Record<string, SpecEntry>; digests: Map<OpIR, string> } {
  const entries: Record<string, SpecEntry> = {};
  const digests = new Map<OpIR, string>();
  const fileOf = new Map<string, string>();
  for (const [file, s] of specs) {
    const e = s.reused ? previous[file]! : builtEntry(s, statsOf);
    entries[file] = e;
    digests.set(s.op, digestOf(e));
    fileOf.set(s.op.name, file);
  }
  for (const [file, s] of specs) {
    if (!s.backward) continue;
    const grads = [...new Set(s.backward.map((g) => g.op))].sort();
    const from = grads.map((g): [string, string] => [fileOf.get(g)!, digestOf(entries[fileOf.get(g)!]!)]);
    entries[file]!.resolved = { from, backward: s.op.backward! };
  }
  return { entries, digests };
}

/** The entry of a spec built this run: its op stored as built (resolution sets only `backward`). */
function builtEntry(s: SpecOp, statsOf: (files: readonly string[]) => string): SpecEntry {
  const op = { ...s.op, backward: undefined };
  const kernels = kernelFiles(op);
  const head = { keys: Object.keys(op), eager: Object.fromEntries(EAGER.map((k) => [k, op[k]])), raw: s.backward };
  return {
    hash: s.hash,
    kernels,
    kernelStats: statsOf(kernels),
    built: v8.serialize({ op, backward: s.backward }),
    head,
  };
}

/**
 * An op whose fields other than `eager` are decoded on first read: a one-op change in a large
 * project reads only names and kernels of the other ops (about half its time was decoding them).
 * Every field keeps its place in key order; a field written (backward resolution) is just set.
 */
function lazyOp(keys: readonly string[], eager: Partial<OpIR>, decode: () => OpIR): OpIR {
  const op: Record<string, unknown> = {};
  let full: OpIR | undefined;
  const settle = (k: string, value: unknown): unknown => {
    Object.defineProperty(op, k, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  for (const k of keys) {
    if (k in eager) op[k] = eager[k as keyof OpIR];
    else {
      Object.defineProperty(op, k, {
        enumerable: true,
        configurable: true,
        get: () => settle(k, (full ??= decode())[k as keyof OpIR]),
        set: (v: unknown) => {
          settle(k, v);
        },
      });
    }
  }
  return op as unknown as OpIR;
}

/**
 * What an op's own files are emitted from, by what they are built from (the generator, root and
 * out/ are the cache's key): its spec (path and text) and kernel files, and the specs of the gradient ops it names
 * (its resolved backward; the Paddle grad op includes their headers). Not the IR itself: v8 does
 * not serialize a number the same before and after a round trip (double vs small integer).
 */
function emitKey(op: OpIR, byName: ReadonlyMap<string, OpIR>, digests: ReadonlyMap<OpIR, string>): string {
  const grads = [...new Set(op.backward?.map((b) => b.op) ?? [])].sort();
  // The spec's path too: the files name it ("Generated by opforge from ops/x.yaml"), so a spec
  // renamed with its text unchanged is emitted again.
  const of = (o: OpIR): [string, string | undefined] => [o.source.file, digests.get(o)];
  return quickHash(JSON.stringify([of(op), ...grads.map((g) => [g, ...of(byName.get(g)!)])]));
}

/**
 * The fragments as stored: keys joined by newlines (theirs never hold one), texts as one string
 * with their lengths. Two thousand strings in a Map took v8 four times as long to read back.
 */
interface PackedFragments {
  keys: string;
  lengths: number[];
  text: string;
}

function pack(m: ReadonlyMap<string, string>): PackedFragments {
  return {
    keys: [...m.keys()].join('\n'),
    lengths: [...m.values()].map((v) => v.length),
    text: [...m.values()].join(''),
  };
}

function unpack(p: PackedFragments): Map<string, string> {
  const m = new Map<string, string>();
  if (p.lengths.length === 0) return m;
  const keys = p.keys.split('\n');
  let at = 0;
  keys.forEach((k, i) => {
    m.set(k, p.text.slice(at, (at += p.lengths[i]!)));
  });
  return m;
}

function writeCache(outDir: string, cache: Cache): void {
  const file = path.resolve(outDir, CACHE_FILE);
  writeFileSync(file, v8.serialize({ ...cache, fragments: pack(cache.fragments) }));
  lastWritten = { file, stat: fileStat(file), cache };
}

export interface GenResult {
  /** undefined when out/ was up to date (nothing loaded). */
  project: ProjectIR | undefined;
  result: WriteResult;
  /** How the run went: nothing to do, only what changed, or everything. */
  mode: 'up-to-date' | 'incremental' | 'full';
  /** out/ as this run left it (what `gen --watch` passes to its next run). */
  state?: OutputState;
}

/** `opforge gen`: nothing when out/ is up to date, the changed ops when the cache allows, else all. */
export function generateIncremental(opts: GenOptions, pre: Preflight = preflight(opts)): GenResult {
  const { inputs, state, current } = pre;
  if (current)
    return {
      project: undefined,
      result: { written: [], unchanged: current.stamp.files.length, removed: [] },
      mode: 'up-to-date',
      state: current,
    };
  if (opts.only !== undefined) {
    // One op's files, the others left as they are: the cache (per-op digests) stays as it was.
    const r = generate(opts);
    return {
      project: r.project,
      result: r.result,
      mode: 'full',
      state: writeStamp(opts.outDir, inputs, listTree(opts.outDir)),
    };
  }
  return complete(plan(opts, inputs, state ? readCache(opts.outDir, cacheKey(opts)) : undefined), inputs, state);
}

/** What a run emits before it writes: the project-wide files and the changed ops' files. */
interface Plan {
  opts: GenOptions;
  project: ProjectIR;
  files: GeneratedFile[];
  /** The previous run's cache: read only when out/ is as that run left it. */
  cache: Cache | undefined;
  next: Cache;
}

function plan(opts: GenOptions, inputs: Inputs, cache: Cache | undefined): Plan {
  const previous = cache?.specs ?? {};
  const statsOf = kernelStats(rootOf(opts), inputs);
  const loaded = loadProjectReusing(
    { opsDir: opts.opsDir, ...(opts.root !== undefined ? { root: opts.root } : {}) },
    reuseOf(previous, statsOf, inputs),
  );
  const { project } = loaded;
  const specs = specEntries(loaded.specs, previous, statsOf);
  checkOutDir(project, opts.outDir);
  project.outDir = path.resolve(opts.outDir);
  const byName = new Map(project.ops.map((o) => [o.name, o]));
  const keys = new Map(project.ops.map((op) => [op, emitKey(op, byName, specs.digests)]));

  const ctx = fragmentContext(keys, cache?.fragments ?? new Map());
  const shared = EMITTERS.flatMap((e) => e.project(project, ctx));
  const fragments = ctx.used;
  const files: GeneratedFile[] = [...shared];
  const ops: Record<string, OpEntry> = {};
  for (const op of project.ops) {
    const k = keys.get(op)!;
    const prev = cache?.ops[op.name];
    if (prev && prev.key === k) {
      ops[op.name] = prev;
      continue;
    }
    const own = EMITTERS.flatMap((e) => e.op(op, project));
    files.push(...own);
    ops[op.name] = { key: k, files: own.map((f) => f.path).sort() };
  }
  // Hashes of what is written now: reused where the content is the last run's in this process (watch).
  const before = cache ? contents.get(cache) : undefined;
  const written = new Map(
    shared.map((f) => {
      const same = before?.get(f.path) === f.content ? cache!.written.get(f.path) : undefined;
      return [f.path, same ?? quickHash(f.content)];
    }),
  );
  const next: Cache = { key: cacheKey(opts), specs: specs.entries, ops, fragments, written };
  contents.set(next, new Map(shared.map((f) => [f.path, f.content])));
  return { opts, project, files, cache, next };
}

function complete(p: Plan, inputs: Inputs, state: OutputState | undefined): GenResult {
  const { opts, project, files, cache, next } = p;
  if (!cache || !state) {
    // Everything was emitted: the atomic whole-tree write, which also clears stray files.
    const result = writeOut(
      opts.outDir,
      files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)),
    );
    const after = writeStamp(
      opts.outDir,
      inputs,
      files.map((f) => f.path),
    );
    writeCache(opts.outDir, next);
    return { project, result, mode: 'full', state: after };
  }
  return {
    project,
    ...writeIncrement(opts.outDir, inputs, state, files, next.ops, next, cache.written),
    mode: 'incremental',
  };
}

function writeIncrement(
  outDir: string,
  inputs: Inputs,
  state: OutputState,
  emitted: GeneratedFile[],
  ops: Record<string, OpEntry>,
  cache: Cache,
  before: ReadonlyMap<string, string>,
): { result: WriteResult; state: OutputState } {
  const seen = checkPaths(emitted);
  const keep = new Set(seen);
  for (const o of Object.values(ops)) for (const f of o.files) keep.add(f);
  const removed = state.stamp.files.filter((p) => !keep.has(p));
  // The stamp's list is sorted already: sort again only when files were added.
  const all = removed.length === 0 && keep.size === state.stamp.files.length ? state.stamp.files : [...keep].sort();
  // Project-wide files by the hash of what the last run wrote (out/ is as it left it); op files by content.
  const changed = emitted.filter((f) => {
    const was = before.get(f.path);
    return was === undefined ? !sameContent(path.join(outDir, f.path), f.content) : was !== cache.written.get(f.path);
  });
  writeChanges(outDir, changed, removed);
  // Files just written are stat'ed again; the others' stats are the stamp's.
  const after = writeStamp(outDir, inputs, all, state, new Set(changed.map((f) => f.path)));
  writeCache(outDir, cache);
  return {
    result: { written: changed.map((f) => f.path).sort(), unchanged: all.length - changed.length, removed },
    state: after,
  };
}
