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
export function locate(
  spec: LoadedSpec,
  keyPath: KeyPath,
  at: 'key' | 'value' = 'value',
): { line: number; col: number } {
  let node: unknown = spec.doc.contents;
  let best: [number, number, number] | undefined = rangeOf(node);
  for (let i = 0; i < keyPath.length; i++) {
    const seg = keyPath[i]!;
    const last = i === keyPath.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
      if (!pair) break;
      if (last && at === 'key') {
        best = rangeOf(pair.key) ?? best;
        node = undefined;
        break;
      }
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

export function diagAt(
  spec: LoadedSpec,
  keyPath: KeyPath,
  message: string,
  opts: { hint?: string | undefined; at?: 'key' | 'value'; colOffset?: number } = {},
): Diagnostic {
  const { line, col } = locate(spec, keyPath, opts.at);
  const d: Diagnostic = {
    file: spec.displayFile,
    line,
    col: col + (opts.colOffset ?? 0),
    path: formatPath(keyPath),
    message,
  };
  if (opts.hint) d.hint = opts.hint;
  return d;
}

/** Loads one spec file (`read`: its text as the caller read it already), or returns its diagnostics. */
export function loadSpec(
  file: string,
  displayFile: string,
  read?: string,
): { spec?: LoadedSpec; errors: Diagnostic[] } {
  const at = (message: string, line = 1, col = 1): Diagnostic => ({
    file: displayFile,
    line,
    col,
    path: '(file)',
    message,
  });
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return { errors: [at('not a regular file')] };
    size = st.size;
  } catch (e) {
    return { errors: [at(`cannot read: ${(e as Error).message}`)] };
  }
  if (size > MAX_SPEC_BYTES)
    return { errors: [at(`file is ${size} bytes; specs are limited to ${MAX_SPEC_BYTES} bytes`)] };
  const original = read ?? readFileSync(file, 'utf8');
  const reserved = RESERVED_RE.exec(original);
  if (reserved) {
    const lc = lineCol(original, reserved.index);
    const code = reserved[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return {
      errors: [
        at(
          `the control character U+${code} is not allowed (YAML forbids C1 controls unescaped; U+0080..U+009F are the loader's placeholders)`,
          lc.line,
          lc.col,
        ),
      ],
    };
  }
  const text = protectCalls(protectIndexing(original));
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
    version: '1.2',
  });
  const errors: Diagnostic[] = [];
  for (const e of doc.errors) {
    const lp = lines.linePos(e.pos[0]);
    const msg = e.code === 'DUPLICATE_KEY' ? 'duplicate key' : restoreText(e.message.split('\n')[0]!);
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
// inside plain scalars of a flow sequence, and splits `[ceil_div(x[2], 2)]` at the comma.
// Before parsing, `name[i]` becomes `name\u0080i\u0081`, and within balanced parentheses on
// one line every character YAML would read as flow syntax (`, [ ] { } # :`) becomes a
// placeholder. Each replacement is one UTF-16 unit for one, so every offset, and with it every
// line:col, stays exact; parsed strings (values and keys) are mapped back. The placeholders are
// C1 controls, which YAML does not allow in a spec unescaped (U+0085, a line break to YAML 1.1,
// is skipped), and Latin-1: a text holding a private-use character instead is stored two bytes a
// character, and so was every string parsed from it and every file built from those.
const OPEN = '\u0080';
const CLOSE = '\u0081';
const INDEX_RE = /([A-Za-z_][A-Za-z0-9_]*)\[(\s*-?\s*\d+\s*)\]/g;
/** Flow indicators (and the comment and key markers) inside parentheses -> their placeholders. */
const IN_CALL: Record<string, string> = {
  ',': '\u0082',
  '[': OPEN,
  ']': CLOSE,
  '{': '\u0083',
  '}': '\u0084',
  '#': '\u0086',
  ':': '\u0087',
};
const RESTORE: Record<string, string> = {
  [OPEN]: '[',
  [CLOSE]: ']',
  '\u0082': ',',
  '\u0083': '{',
  '\u0084': '}',
  '\u0086': '#',
  '\u0087': ':',
};
const PLACEHOLDER_RE = /[\u0080-\u0084\u0086\u0087]/g;
const RESERVED_RE = /[\u0080-\u009F]/;

/**
 * Any other `name[...]` on one line (`input[axis]`, `x[:-1]`): its brackets and the flow syntax
 * inside become placeholders too, innermost first, so a flow list holding one parses and the
 * expression parser, not YAML, says what is wrong with it.
 */
const BRACKET_RE = /([A-Za-z_][A-Za-z0-9_]*)\[([^[\]\n]*)\]/g;

function protectIndexing(text: string): string {
  let out = text.replace(INDEX_RE, `$1${OPEN}$2${CLOSE}`);
  for (let prev = ''; prev !== out; ) {
    prev = out;
    out = out.replace(BRACKET_RE, (_m, name: string, inner: string) => {
      const body = inner.replace(/[,{}#:]/g, (c) => IN_CALL[c]!);
      return `${name}${OPEN}${body}${CLOSE}`;
    });
  }
  return out;
}

/**
 * Protects the flow syntax inside balanced parentheses, line by line: `max(a, b)`,
 * `min(x[0], 3)`, nested calls. A parenthesis without its partner on the same line protects
 * nothing, so an unbalanced `(` in a description or comment never reaches into other lines.
 */
export function protectCalls(text: string): string {
  if (!text.includes('(')) return text;
  const out = text.split('');
  const stack: number[] = [];
  const spans: [number, number][] = [];
  const flush = (): void => {
    for (const [a, b] of spans) for (let k = a + 1; k < b; k++) out[k] = IN_CALL[out[k]!] ?? out[k]!;
    spans.length = 0;
    stack.length = 0;
  };
  for (let k = 0; k < text.length; k++) {
    const c = text[k]!;
    if (c === '\n') {
      flush();
      continue;
    }
    if (c === '(') stack.push(k);
    else if (c === ')' && stack.length > 0) {
      const open = stack.pop()!;
      // Only the outermost matched pair is kept: it covers the nested ones.
      while (spans.length > 0 && spans[spans.length - 1]![0] > open) spans.pop();
      spans.push([open, k]);
    }
  }
  flush();
  return out.join('');
}

function restoreText(s: string): string {
  return s.replace(PLACEHOLDER_RE, (c) => RESTORE[c]!);
}

export function restoreIndexing(v: unknown): unknown {
  if (typeof v === 'string') return restoreText(v);
  if (Array.isArray(v)) return v.map(restoreIndexing);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [restoreIndexing(k) as string, restoreIndexing(x)]),
    );
  }
  return v;
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, col: before[before.length - 1]!.length + 1 };
}

/** Spec files of an ops dir, sorted so that every run sees them in one order. */
export function listSpecFiles(opsDir: string): string[] {
  return readdirSync(opsDir, { withFileTypes: true })
    .filter((d) => d.isFile() && /\.ya?ml$/.test(d.name))
    .map((d) => path.join(opsDir, d.name))
    .sort();
}

export { formatPath };

/** 1 where the YAML scalar at `p` is quoted (columns inside it start one later), else 0. */
export function quoteOffset(spec: LoadedSpec, p: KeyPath): number {
  const node = spec.doc.getIn(p, true) as { type?: string } | undefined;
  return node?.type === 'QUOTE_DOUBLE' || node?.type === 'QUOTE_SINGLE' ? 1 : 0;
}
