// Located errors: every problem names file:line:col, the key path, what was expected and,
// where one helps, a hint. Collected across all files so one run reports everything.

import { styleText } from 'node:util';
import { closest, distance } from 'fastest-levenshtein';

export type KeyPath = readonly (string | number)[];

export interface Diagnostic {
  file: string;
  line: number;
  col: number;
  /** `inputs[1].dtype` */
  path: string;
  message: string;
  hint?: string;
}

/** A value as a message quotes what it found: JSON (strings quoted), cut to 60 characters. */
export function shown(v: unknown): string {
  const s =
    v === undefined
      ? 'nothing'
      : typeof v === 'number' && !Number.isFinite(v)
        ? String(v)
        : (JSON.stringify(v) ?? String(v));
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

export function formatPath(path: KeyPath): string {
  let s = '';
  for (const seg of path) {
    if (typeof seg === 'number') s += `[${seg}]`;
    else s += s === '' ? seg : `.${seg}`;
  }
  return s === '' ? '(root)' : s;
}

/** Colors only for a terminal that wants them (NO_COLOR, FORCE_COLOR respected). */
export function useColor(stream: { isTTY?: boolean }): boolean {
  if (process.env.NO_COLOR !== undefined) return false;
  if (process.env.FORCE_COLOR !== undefined && process.env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export function formatDiagnostic(d: Diagnostic, color = false): string {
  const paint = (style: Parameters<typeof styleText>[0], s: string): string => (color ? styleText(style, s) : s);
  const where = paint('bold', `${d.file}:${d.line}:${d.col}`);
  const hint = d.hint ? paint('cyan', ` (${d.hint})`) : '';
  return `${where}: ${paint('yellow', d.path)}: ${paint('red', d.message)}${hint}`;
}

/** "did you mean `x`?" when a candidate is close enough to be a plausible typo. */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  const best = closest(word, candidates as string[]);
  const limit = Math.max(2, Math.floor(best.length / 3));
  return distance(word, best) <= limit ? `did you mean \`${best}\`?` : undefined;
}

const SPEC_ERRORS = Symbol.for('opforge.SpecErrors');

/** Thrown when a run found problems: carries all of them. */
export class SpecErrors extends Error {
  constructor(readonly diagnostics: Diagnostic[]) {
    super(diagnostics.map((d) => formatDiagnostic(d)).join('\n'));
  }

  // By brand, not by class: the bundled CLI (dist/cli/) catches what the unbundled modules the
  // runtime loads (dist/generator/) throw, two copies of this class.
  static override [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[SPEC_ERRORS] === true;
  }

  get [SPEC_ERRORS](): true {
    return true;
  }
}
