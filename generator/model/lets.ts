// The spec's `let:` map: names for sub-expressions of dim expressions. A let is inlined where it
// is read, so the IR, every printer and every backend see the plain expression; only the spec
// model knows the names. A let reads the inputs' dims, attributes and the lets declared before it
// (so there are no cycles), is checked once where it is declared, and is checked again where it is
// read for what only that place decides: which inputs can be read there.

import type { Diagnostic } from './diagnostics.js';
import type { Expr } from './ir.js';

export type DimSpec = number | string;

export interface LetDef {
  name: string;
  /** Position in the `let:` map: a let reads only the lets before it. */
  index: number;
  source: DimSpec;
  /** Its own check passed (set once the op's inputs are known). */
  ok: boolean;
}

/** A use of a let that failed where it was read; reported only when the let itself is sound. */
interface PendingUse {
  let: string;
  diag: Diagnostic;
}

export interface LetScope {
  all: ReadonlyMap<string, LetDef>;
  /** Lets with an index below this one are readable (all of them outside the `let:` map). */
  before: number;
  /** Where failed uses wait for the lets' own checks; undefined inside a let being inlined. */
  pending: PendingUse[] | undefined;
  /** Each let compiled once per set of readable inputs: lets reading lets twice must not recompile exponentially. */
  memo: Map<string, LetReading>;
}

export function letScope(raw: Readonly<Record<string, DimSpec>> | undefined): LetScope {
  const all = new Map<string, LetDef>();
  for (const [name, source] of Object.entries(raw ?? {})) all.set(name, { name, index: all.size, source, ok: true });
  return { all, before: all.size, pending: [], memo: new Map() };
}

/** The scope one let's own expression is read in: the lets before it. */
export function scopeOfLet(lets: LetScope, def: LetDef): LetScope {
  return { all: lets.all, before: def.index, pending: lets.pending, memo: lets.memo };
}

/** The failed uses of lets that are themselves sound (a broken let is reported where it is declared). */
export function pendingLetErrors(lets: LetScope): Diagnostic[] {
  return (lets.pending ?? []).filter((u) => lets.all.get(u.let)?.ok).map((u) => u.diag);
}

/** A let read where `lets` is the scope: its inlined expression, or why it cannot be read here. */
export type LetReading = { expr: Expr } | { error: string; deferred: boolean };

/**
 * Reads let `def` in `lets`: `compile` compiles its expression in the scope of the lets before it,
 * into the diagnostics it is given. `deferred`: an outermost read, whose error waits for the let's own check.
 */
export function readLet(
  def: LetDef,
  lets: LetScope,
  readable: string,
  compile: (scope: LetScope, errors: Diagnostic[]) => Expr | undefined,
): LetReading {
  if (def.index >= lets.before)
    return {
      error:
        def.index === lets.before
          ? `let \`${def.name}\` cannot read itself`
          : `let \`${def.name}\` is declared later; a let reads only the lets declared before it`,
      deferred: false,
    };
  const key = `${def.name}\0${readable}`;
  let read = lets.memo.get(key);
  if (!read) {
    // Its own failures are reported once, where it is declared: nothing nested is kept here.
    const scratch: Diagnostic[] = [];
    const e = compile({ ...scopeOfLet(lets, def), pending: undefined }, scratch);
    read = e
      ? { expr: e }
      : {
          error: `let \`${def.name}\` cannot be read here: ${scratch[0]?.message ?? 'it is invalid'}`,
          deferred: false,
        };
    lets.memo.set(key, read);
  }
  return 'expr' in read ? read : { ...read, deferred: lets.pending !== undefined };
}

/** Most nodes an expression may have once its lets are inlined (what every printer then walks). */
export const MAX_INLINED_NODES = 2000;

/** Nodes of an expression tree counted as printed (shared subtrees once per use), capped past `limit`. */
export function inlinedSize(e: Expr, limit = MAX_INLINED_NODES): number {
  const sizes = new Map<Expr, number>();
  const size = (x: Expr): number => {
    const known = sizes.get(x);
    if (known !== undefined) return known;
    const kids = x.kind === 'binary' ? [x.left, x.right] : x.kind === 'call' ? x.args : [];
    const n = Math.min(
      limit + 1,
      kids.reduce((acc, k) => acc + size(k), 1),
    );
    sizes.set(x, n);
    return n;
  };
  return size(e);
}
