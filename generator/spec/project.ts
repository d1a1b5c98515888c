// load -> validate -> IR for a whole ops dir. Reports every error of every file together.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveProjectBackward } from './backward.js';
import { buildOp, type RawGradient } from './build-ir.js';
export type { RawGradient } from './build-ir.js';
import { SpecErrors, type Diagnostic, type KeyPath } from './diagnostics.js';
import type { OpIR, ProjectIR } from './ir.js';
import { diagAt, listSpecFiles, loadSpec, type LoadedSpec } from './load.js';
import { paddleOpType } from './ir-helpers.js';
import { checkSchema } from './schema-check.js';
import { specHash } from '../output/stamp.js';

export interface ProjectOptions {
  /** Directory holding the *.yaml specs. */
  opsDir: string;
  /** Project root: kernel files must lie inside it; paths in messages are relative to it. Default: parent of opsDir. */
  root?: string;
  /** Ops built by an earlier run, reused when their spec text is unchanged (generator/output/incremental.ts). */
  cache?: SpecCache;
}

/** Built ops by spec file: `get` answers only for the same text's hash (and kernel files as they were). */
export interface SpecCache {
  /** The spec's text as the run read it already (its input digest), if it did. */
  text?(file: string): string | undefined;
  /** The spec text's sha256 as the run knows it already (stamp.ts readInputs), if it does. */
  hash?(file: string): string | undefined;
  get(file: string, hash: string): { op: OpIR; backward: RawGradient[] | undefined } | undefined;
  /** Called before backward resolution, which adds to `op`. */
  put(file: string, hash: string, op: OpIR, backward: RawGradient[] | undefined): void;
  /**
   * The backward `op` resolved to in an earlier run, while it and the gradient ops it names are
   * as they were then (`ops`: every op by name); after resolution, `resolvedNow` records it.
   */
  resolved?(op: OpIR, raw: readonly RawGradient[], ops: ReadonlyMap<string, OpIR>): OpIR['backward'] | undefined;
  resolvedNow?(op: OpIR, raw: readonly RawGradient[], ops: ReadonlyMap<string, OpIR>): void;
}

/** Loads and validates every spec; throws SpecErrors with all diagnostics when any spec is invalid. */
export function loadProject(opts: ProjectOptions): ProjectIR {
  const opsDir = path.resolve(opts.opsDir);
  const root = path.resolve(opts.root ?? path.dirname(opsDir));
  const diagnostics: Diagnostic[] = [];
  const ops: OpIR[] = [];
  const byName = new Map<string, { file: string; name: string }>();
  /** Op names taken (beside their snake forms: ops may share a name under different `snake:` overrides). */
  const names = new Map<string, { file: string; name: string }>();
  const specs = new Map<OpIR, LoadedSpec>();
  const backward = new Map<OpIR, RawGradient[]>();
  const brokenNames = new Set<string>();
  let files: string[];
  try {
    files = listSpecFiles(opsDir);
  } catch (e) {
    throw new SpecErrors([
      {
        file: opts.opsDir,
        line: 1,
        col: 1,
        path: '(dir)',
        message: `cannot read the ops directory: ${(e as Error).message}`,
      },
    ]);
  }
  if (files.length === 0)
    throw new SpecErrors([{ file: opts.opsDir, line: 1, col: 1, path: '(dir)', message: 'no *.yaml specs found' }]);
  let reused = false;
  for (const file of files) {
    const display = path.relative(process.cwd(), file) || file;
    // A spec the run knows by its hash (stamp.ts) is read only when it must be built.
    let text = opts.cache?.text?.(file);
    if (opts.cache && !opts.cache.hash) text ??= readText(file);
    const hash = opts.cache?.hash?.(file) ?? (text === undefined ? undefined : specHash(text));
    const hit = hash === undefined ? undefined : opts.cache!.get(file, hash);
    if (hit) {
      reused = true;
      const key = hit.op.ident.snake;
      if (byName.has(key) || names.has(hit.op.name))
        diagnostics.push({ file: display, line: 1, col: 1, path: 'name', message: 'clash' }); // located below, without the cache
      else {
        byName.set(key, { file: display, name: hit.op.name });
        names.set(hit.op.name, { file: display, name: hit.op.name });
      }
      ops.push(hit.op);
      if (hit.backward) backward.set(hit.op, hit.backward);
      continue;
    }
    if (opts.cache) text ??= readText(file);
    const { spec, errors } = loadSpec(file, display, text);
    diagnostics.push(...errors);
    if (!spec) continue;
    const schemaErrors = checkSchema(spec);
    const rawName = (spec.value as { name?: unknown } | null)?.name;
    if (schemaErrors.length) {
      diagnostics.push(...schemaErrors);
      if (typeof rawName === 'string') brokenNames.add(rawName);
      continue;
    }
    const built = buildOp(spec, { root });
    diagnostics.push(...built.errors);
    if (!built.op) {
      if (typeof rawName === 'string') brokenNames.add(rawName);
      continue;
    }
    const key = built.op.ident.snake;
    const prev = byName.get(key);
    // With a `snake:` override the clash is that key's; two ops may also share a name under different overrides.
    const overridden = (spec.value as { snake?: unknown }).snake !== undefined;
    const sameName = names.get(built.op.name);
    if (prev)
      diagnostics.push(
        diagAt(
          spec,
          [prev.name !== built.op.name && overridden ? 'snake' : 'name'],
          `op \`${built.op.name}\` clashes with op \`${prev.name}\` in ${prev.file} (${prev.name === built.op.name ? 'same name' : `same snake_case form \`${key}\``})`,
        ),
      );
    else if (sameName)
      diagnostics.push(
        diagAt(
          spec,
          ['name'],
          `op \`${built.op.name}\` clashes with op \`${sameName.name}\` in ${sameName.file} (same name: the ONNX, TensorRT and Paddle types would coincide)`,
        ),
      );
    else {
      byName.set(key, { file: display, name: built.op.name });
      names.set(built.op.name, { file: display, name: built.op.name });
    }
    // Kept by the hash of the text parsed (a spec edited since the run's stat is read again next run).
    if (text !== undefined) opts.cache!.put(file, specHash(text), built.op, built.backward);
    ops.push(built.op);
    specs.set(built.op, spec);
    if (built.backward) backward.set(built.op, built.backward);
  }
  // Backward declarations name other ops: resolved once every spec is in (a gradient op whose own
  // spec failed is not reported again as missing).
  // A reused op has no parsed document to point into: any error is found again by a full load.
  const locate = (op: OpIR, p: KeyPath, m: string, o?: Parameters<typeof diagAt>[3]): Diagnostic => {
    const spec = specs.get(op);
    return spec
      ? diagAt(spec, p, m, o ?? {})
      : { file: op.source.file, line: 1, col: 1, path: p.join('.'), message: m };
  };
  // A backward resolved before from the same specs is taken as it was (nor are its ops decoded).
  const opsByName = new Map(ops.map((o) => [o.name, o]));
  const pending = new Map<OpIR, RawGradient[]>();
  for (const [op, raw] of backward) {
    const was = opts.cache?.resolved?.(op, raw, opsByName);
    if (was) op.backward = was;
    else pending.set(op, raw);
  }
  diagnostics.push(...resolveProjectBackward(ops, pending, locate, brokenNames));
  // Paddle's op types must differ too (`_grad` is written `_bwd` there: FooGrad and FooBwd would
  // both register foo_bwd).
  const paddleTypes = new Map<string, OpIR>();
  for (const op of ops) {
    const t = paddleOpType(op);
    const prev = paddleTypes.get(t);
    if (prev && prev.ident.snake !== op.ident.snake)
      diagnostics.push(
        locate(
          op,
          ['name'],
          `op \`${op.name}\` and op \`${prev.name}\` would both register the Paddle op type \`${t}\` (Paddle reserves _grad, so it is written _bwd there): rename one`,
        ),
      );
    else paddleTypes.set(t, op);
  }
  if (diagnostics.length && reused) return loadProject({ ...opts, cache: undefined });
  if (diagnostics.length) throw new SpecErrors(diagnostics);
  for (const [op, raw] of pending) opts.cache?.resolvedNow?.(op, raw, opsByName);
  ops.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ops, root, opsDir: path.relative(root, opsDir).split(path.sep).join('/') || '.' };
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // loadSpec reports it
  }
}
