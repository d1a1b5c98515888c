// Reads ops/*.yaml into plain values, keeping every node's position so later stages can
// point errors at file:line:col. Hostile YAML (alias bombs, huge files, duplicate keys)
// fails here, fast.

import { readFileSync, statSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { Diagnostic, KeyPath } from './diagnostics.js';
import { formatPath } from './diagnostics.js';

export const MAX_SPEC_BYTES = 1 << 20;
const MAX_ALIAS_COUNT = 50;

export interface LoadedSpec {
  /** Absolute path. */
  file: string;
  /** Path as shown in messages (relative to the project root). */
  displayFile: string;
  value: unknown;
  doc: Document.Parsed;
  lines: LineCounter;
}

/** Finds the node at a key path: its key when `at` is 'key' and the path ends in a map key. */
export function locate(spec: LoadedSpec, keyPath: KeyPath, at: 'key' | 'value' = 'value'): { line: number; col: number } {
  let node: unknown = spec.doc.contents;
  let best: [number, number, number] | undefined = rangeOf(node);
  for (let i = 0; i < keyPath.length; i++) {
    const seg = keyPath[i]!;
    const last = i === keyPath.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      if (last && at === 'key') { best = rangeOf(pair.key) ?? best; node = undefined; break; }
      node = pair.value;
      best = rangeOf(node) ?? rangeOf(pair.key) ?? best;
    } else if (isSeq(node) && typeof seg === 'number') {
      node = node.items[seg];
      best = rangeOf(node) ?? best;
    } else break;
  }
  const offset = best ? best[0] : 0;
  const lc = spec.lines.linePos(offset);
  return { line: lc.line, col: lc.col };
}

function rangeOf(node: unknown): [number, number, number] | undefined {
  const r = (node as Node | undefined)?.range;
  return r ? [r[0], r[1], r[2]] : undefined;
}

export function diagAt(spec: LoadedSpec, keyPath: KeyPath, message: string, opts: { hint?: string | undefined; at?: 'key' | 'value'; colOffset?: number } = {}): Diagnostic {
  const { line, col } = locate(spec, keyPath, opts.at);
  const d: Diagnostic = { file: spec.displayFile, line, col: col + (opts.colOffset ?? 0), path: formatPath(keyPath), message };
  if (opts.hint) d.hint = opts.hint;
  return d;
}

/** Loads one spec file, or returns its diagnostics. */
export function loadSpec(file: string, displayFile: string): { spec?: LoadedSpec; errors: Diagnostic[] } {
  const at = (message: string, line = 1, col = 1): Diagnostic => ({ file: displayFile, line, col, path: '(file)', message });
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { errors: [at('not a regular file')] };
    size = st.size;
  } catch (e) {
    return { errors: [at(`cannot read: ${(e as Error).message}`)] };
  }
  if (size > MAX_SPEC_BYTES) return { errors: [at(`file is ${size} bytes; specs are limited to ${MAX_SPEC_BYTES} bytes`)] };
  const original = readFileSync(file, 'utf8');
  if (original.includes(OPEN) || original.includes(CLOSE)) return { errors: [at('the characters U+E000 and U+E001 are reserved')] };
  const text = protectIndexing(original);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, strict: true, version: '1.2' });
  const errors: Diagnostic[] = [];
  for (const e of doc.errors) {
    const lp = lines.linePos(e.pos[0]);
    const msg = e.code === 'DUPLICATE_KEY' ? 'duplicate key' : e.message.split('\n')[0]!;
    errors.push({ file: displayFile, line: lp.line, col: lp.col, path: '(yaml)', message: msg });
  }
  if (errors.length) return { errors };
  const spec: LoadedSpec = { file, displayFile, value: undefined, doc, lines };
  try {
    spec.value = restoreIndexing(doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }));
  } catch (e) {
    // yaml throws a ReferenceError when aliases expand past maxAliasCount (billion laughs).
    return { errors: [at(`YAML rejected: ${(e as Error).message}`)] };
  }
  if (spec.value === null || typeof spec.value !== 'object' || Array.isArray(spec.value)) {
    return { errors: [diagAt(spec, [], 'expected a mapping of spec keys (name, inputs, outputs, ...)')] };
  }
  return { spec, errors: [] };
}

// `shape: [input[0], input[1]]` is how everyone writes shapes, but YAML forbids brackets
// inside plain scalars of a flow sequence. Before parsing, `name[i]` becomes
// `name\uE000i\uE001` (same length, so every line:col stays exact); parsed strings are mapped back.
const OPEN = '\uE000';
const CLOSE = '\uE001';
const INDEX_RE = /([A-Za-z_][A-Za-z0-9_]*)\[(\s*-?\s*\d+\s*)\]/g;

function protectIndexing(text: string): string {
  return text.replace(INDEX_RE, `$1${OPEN}$2${CLOSE}`);
}

export function restoreIndexing(v: unknown): unknown {
  if (typeof v === 'string') return v.replaceAll(OPEN, '[').replaceAll(CLOSE, ']');
  if (Array.isArray(v)) return v.map(restoreIndexing);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [restoreIndexing(k) as string, restoreIndexing(x)]));
  }
  return v;
}

/** Spec files of an ops dir, sorted so that every run sees them in one order. */
export function listSpecFiles(opsDir: string): string[] {
  return readdirSync(opsDir, { withFileTypes: true })
    .filter((d) => d.isFile() && /\.ya?ml$/.test(d.name))
    .map((d) => path.join(opsDir, d.name))
    .sort();
}

export { formatPath };
