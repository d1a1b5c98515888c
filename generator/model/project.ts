// load -> validate -> IR for a whole ops dir. Reports every error of every file together.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { resolveProjectBackward } from './backward.js';
import { buildOp, type RawGradient } from './build-ir.js';
export type { RawGradient } from './build-ir.js';
import { SpecErrors, type Diagnostic, type KeyPath } from './diagnostics.js';
import type { GradientIR, OpIR, ProjectIR, ProjectNames } from './ir.js';
import { diagAt, listSpecFiles, loadSpec, type LoadedSpec } from './load.js';
import { readProjectConfig } from './project-names.js';
import { paddleOpType } from './ir-helpers.js';
import { checkSchema } from './schema-check.js';
import { underRemoved, withoutSchemaErrors } from './schema-repair.js';
import { specHash } from './spec-hash.js';

export interface ProjectOptions {
  /** Directory holding the *.yaml specs. */
  opsDir: string;
  /** Project root: kernel files must lie inside it; paths in messages are relative to it. Default: parent of opsDir. */
  root?: string;
}

/**
 * What an incremental run (generator/output/incremental.ts) gives loadProjectReusing: what it
 * knows of each spec file already, and the ops an earlier run built that may be used again.
 * Files are absolute paths.
 *
 * - `texts`: spec texts the run has read (its input digest), loaded as they are, not read again;
 * - `hashes`: the sha256 of spec texts (stamp.ts knows a spec not edited since by its stat): a spec
 *   known by its hash alone is read only when it must be built;
 * - `lookup(file, hash)`: the op an earlier run built from that text of `file`, while it may be used
 *   again (its kernel files as they were then): as built, with the spec's raw `backward`, and the
 *   backward it resolved to if that still stands (the gradient ops it names are as they were).
 */
export interface SpecReuse {
  texts: ReadonlyMap<string, string>;
  hashes: ReadonlyMap<string, { readonly hash: string }>;
  lookup(file: string, hash: string): ReusableOp | undefined;
}

export interface ReusableOp {
  /** As built: its backward unresolved (decoded on first read, maybe: incremental.ts lazyOp). */
  op: OpIR;
  backward: RawGradient[] | undefined;
  /** The backward `op` resolved to, when `backward` is set and that resolution still stands. */
  resolved: GradientIR[] | undefined;
}

/**
 * What loadProjectReusing returns per spec file (absolute path), for the next run's lookup: the hash
 * of the text the op is from, the op with its backward resolved (resolution sets only `backward`:
 * buildOp leaves it undefined), the spec's raw `backward`, and whether the op is the lookup's.
 */
export interface SpecOp {
  hash: string;
  op: OpIR;
  backward: RawGradient[] | undefined;
  reused: boolean;
}

/** Loads and validates every spec; throws SpecErrors with all diagnostics when any spec is invalid. */
export function loadProject(opts: ProjectOptions): ProjectIR {
  return load(opts, undefined).project;
}

/**
 * loadProject for an incremental run: specs the lookup knows are not loaded again, and each spec's
 * op is returned by file. When a reused op is involved in an error (it has no parsed document to
 * point into), the specs are all loaded again, nothing reused, for the located diagnostics.
 */
export function loadProjectReusing(
  opts: ProjectOptions,
  reuse: SpecReuse,
): { project: ProjectIR; specs: Map<string, SpecOp> } {
  return load(opts, reuse);
}

/** What loading gathers spec by spec, for backward resolution and the checks across specs. */
interface Loading {
  root: string;
  /** From the root's package.json (project-names.ts). */
  names: ProjectNames;
  reuse: SpecReuse | undefined;
  diagnostics: Diagnostic[];
  ops: OpIR[];
  /** Op names taken, by snake form and by name (ops may share a name under different `snake:` overrides). */
  bySnake: Map<string, Holder>;
  byName: Map<string, Holder>;
  /** The parsed document of each op built now, where its errors are located. */
  docs: Map<OpIR, LoadedSpec>;
  /** Raw backwards still to resolve (not resolved by the lookup). */
  pending: Map<OpIR, RawGradient[]>;
  /** Names of ops whose spec failed: a backward naming one is not reported again as missing. */
  brokenNames: Set<string>;
  /** With `reuse`: each spec's op by file. */
  specs: Map<string, SpecOp>;
  /** Whether some op is the lookup's: an error then makes a full load. */
  reused: boolean;
}

/** Which spec holds an op name (for a clash's message). */
interface Holder {
  file: string;
  name: string;
}

/** loadProject, and loadProjectReusing with `reuse`. */
function load(opts: ProjectOptions, reuse: SpecReuse | undefined): { project: ProjectIR; specs: Map<string, SpecOp> } {
  const opsDir = path.resolve(opts.opsDir);
  const root = path.resolve(opts.root ?? path.dirname(opsDir));
  const config = readProjectConfig(root);
  const l: Loading = {
    root,
    names: config.names,
    reuse,
    diagnostics: [...config.errors],
    ops: [],
    bySnake: new Map(),
    byName: new Map(),
    docs: new Map(),
    pending: new Map(),
    brokenNames: new Set(),
    specs: new Map(),
    reused: false,
  };
  for (const file of specFiles(opts.opsDir)) loadFile(l, file);
  // Backward declarations name other ops: resolved once every spec is in (a gradient op whose own
  // spec failed is not reported again as missing).
  // A reused op has no parsed document to point into: any error is found again by a full load.
  const locate = (op: OpIR, p: KeyPath, m: string, o?: Parameters<typeof diagAt>[3]): Diagnostic => {
    const spec = l.docs.get(op);
    return spec
      ? diagAt(spec, p, m, o ?? {})
      : { file: op.source.file, line: 1, col: 1, path: p.join('.'), message: m };
  };
  l.diagnostics.push(...resolveProjectBackward(l.ops, l.pending, locate, l.brokenNames));
  l.diagnostics.push(...paddleTypeClashes(l.ops, locate));
  // Every spec built afresh (from the texts the run read) has its document for the diagnostics.
  if (l.diagnostics.length && l.reused) return load(opts, { ...reuse!, lookup: () => undefined });
  if (l.diagnostics.length) throw new SpecErrors(l.diagnostics);
  l.ops.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    project: {
      ops: l.ops,
      names: l.names,
      version: config.version,
      root: l.root,
      opsDir: path.relative(l.root, opsDir).split(path.sep).join('/') || '.',
    },
    specs: l.specs,
  };
}

/** The spec files of the ops dir; an unreadable or empty dir is the one error. */
function specFiles(opsDir: string): string[] {
  let files: string[];
  try {
    files = listSpecFiles(path.resolve(opsDir));
  } catch (e) {
    throw new SpecErrors([
      {
        file: opsDir,
        line: 1,
        col: 1,
        path: '(dir)',
        message: `cannot read the ops directory: ${(e as Error).message}`,
      },
    ]);
  }
  if (files.length === 0)
    throw new SpecErrors([{ file: opsDir, line: 1, col: 1, path: '(dir)', message: 'no *.yaml specs found' }]);
  return files;
}

/** One spec: the lookup's op when it has one, else loaded, checked and built. */
function loadFile(l: Loading, file: string): void {
  const display = path.relative(process.cwd(), file) || file;
  // A spec the run knows by its hash (stamp.ts) is read only when it must be built.
  let text = l.reuse?.texts.get(file);
  const hash = l.reuse?.hashes.get(file)?.hash ?? (text === undefined ? undefined : specHash(text));
  const hit = hash === undefined ? undefined : l.reuse!.lookup(file, hash);
  if (hit) {
    addReused(l, file, display, hash!, hit);
    return;
  }
  if (l.reuse) text ??= readText(file);
  const { spec, errors } = loadSpec(file, display, text);
  l.diagnostics.push(...errors);
  if (!spec) return;
  const schemaErrors = checkSchema(spec);
  const rawName = (spec.value as { name?: unknown } | null)?.name;
  if (schemaErrors.length) {
    l.diagnostics.push(...schemaErrors, ...semanticDespiteSchema(spec, l));
    if (typeof rawName === 'string') l.brokenNames.add(rawName);
    return;
  }
  const built = buildOp(spec, { root: l.root, defaultDomain: l.names.defaultDomain });
  l.diagnostics.push(...built.errors);
  if (!built.op) {
    if (typeof rawName === 'string') l.brokenNames.add(rawName);
    return;
  }
  const clash = nameClash(l, spec, built.op);
  if (clash) l.diagnostics.push(clash);
  else claimName(l, display, built.op);
  // Kept by the hash of the text parsed (a spec edited since the run's stat is read again next run).
  if (l.reuse && text !== undefined)
    l.specs.set(file, { hash: specHash(text), op: built.op, backward: built.backward, reused: false });
  l.ops.push(built.op);
  l.docs.set(built.op, spec);
  if (built.backward) l.pending.set(built.op, built.backward);
}

/** The semantic errors of a spec with schema errors, where removing what the schema refused leaves it valid. */
function semanticDespiteSchema(spec: LoadedSpec, l: Loading): Diagnostic[] {
  const repaired = withoutSchemaErrors(spec.value);
  if (!repaired) return [];
  const built = buildOp({ ...spec, value: repaired.value }, { root: l.root, defaultDomain: l.names.defaultDomain });
  return built.errors.filter((d) => !underRemoved(d.path, repaired.removed));
}

/** An op from the lookup: its names claimed, and its backward as resolved before or to resolve. */
function addReused(l: Loading, file: string, display: string, hash: string, hit: ReusableOp): void {
  l.reused = true;
  const { op } = hit;
  if (l.bySnake.has(op.ident.snake) || l.byName.has(op.name))
    l.diagnostics.push({ file: display, line: 1, col: 1, path: 'name', message: 'clash' }); // located by the full load
  else claimName(l, display, op);
  l.ops.push(op);
  l.specs.set(file, { hash, op, backward: hit.backward, reused: true });
  // A backward resolved before from the same specs is taken as it was (nor are its ops decoded).
  if (hit.resolved) op.backward = hit.resolved;
  else if (hit.backward) l.pending.set(op, hit.backward);
}

function claimName(l: Loading, display: string, op: OpIR): void {
  l.bySnake.set(op.ident.snake, { file: display, name: op.name });
  l.byName.set(op.name, { file: display, name: op.name });
}

/** The op's name or snake form already taken by another spec's op, located in its spec. */
function nameClash(l: Loading, spec: LoadedSpec, op: OpIR): Diagnostic | undefined {
  const key = op.ident.snake;
  const prev = l.bySnake.get(key);
  // With a `snake:` override the clash is that key's; two ops may also share a name under different overrides.
  const overridden = (spec.value as { snake?: unknown }).snake !== undefined;
  if (prev)
    return diagAt(
      spec,
      [prev.name !== op.name && overridden ? 'snake' : 'name'],
      `op \`${op.name}\` clashes with op \`${prev.name}\` in ${prev.file} (${prev.name === op.name ? 'same name' : `same snake_case form \`${key}\``})`,
    );
  const sameName = l.byName.get(op.name);
  if (sameName)
    return diagAt(
      spec,
      ['name'],
      `op \`${op.name}\` clashes with op \`${sameName.name}\` in ${sameName.file} (same name: the ONNX, TensorRT and Paddle types would coincide)`,
    );
  return undefined;
}

/**
 * Paddle's op types must differ too (`_grad` is written `_bwd` there: FooGrad and FooBwd would
 * both register foo_bwd).
 */
function paddleTypeClashes(
  ops: readonly OpIR[],
  locate: (op: OpIR, p: KeyPath, m: string) => Diagnostic,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
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
  return diagnostics;
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined; // loadSpec reports it
  }
}
