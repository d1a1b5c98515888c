// Type variables the attributes choose instead of an input: `types: { TOut: 'float16 if
// output_fp16 else float32' }` (TensorRT's CustomEmbLayerNormPluginDynamic, whose output is
// float16 when `output_fp16` is set). The dtypes are the choice's leaves, known from the text
// alone; the conditions are typed once the attributes are, and read attributes only.

import type { Diagnostic, KeyPath } from './diagnostics.js';
import { ExprSyntaxError, evalExpr, parseExpr, type RawExpr } from './expr.js';
import type { AttrReading, ExprAttrs } from './expr-attrs.js';
import { ExprTyper } from './expr-typing.js';
import type { AttrValue, DtypeChoice, Expr } from './ir.js';
import { diagAt, quoteOffset, type LoadedSpec } from './load.js';
import { DTYPES, type DType } from './type-table.js';

/** A choice's text, parsed: its tree, or where it is not one. */
type Parsed = { raw: RawExpr } | { error: string; pos: number };

function parse(source: string): Parsed {
  try {
    return { raw: parseExpr(source) };
  } catch (e) {
    if (!(e instanceof ExprSyntaxError)) throw e;
    return { error: e.message, pos: e.pos };
  }
}

/** The dtypes a choice may give, in order of first appearance; or the first thing that is no dtype. */
export function choiceDtypes(source: string): { dtypes: DType[] } | { error: string; pos: number } {
  const parsed = parse(source);
  if ('error' in parsed) return parsed;
  const out: DType[] = [];
  const walk = (r: RawExpr): { error: string; pos: number } | undefined => {
    if (r.kind === 'cond') return walk(r.yes) ?? walk(r.no);
    if (r.kind === 'name' && (DTYPES as readonly string[]).includes(r.name)) {
      if (!out.includes(r.name as DType)) out.push(r.name as DType);
      return undefined;
    }
    return {
      error: `expected a dtype (${DTYPES.join(', ')}), or \`a if cond else b\` of dtypes over attributes`,
      pos: r.pos,
    };
  };
  return walk(parsed.raw) ?? { dtypes: out };
}

/** The choice with its conditions typed over the attributes; undefined after an error (reported). */
export function compileChoice(
  source: string,
  p: KeyPath,
  attrs: ExprAttrs,
  spec: LoadedSpec,
  errors: Diagnostic[],
): DtypeChoice | undefined {
  const parsed = parse(source);
  if ('error' in parsed) return undefined; // reported by choiceDtypes' caller
  const quoted = quoteOffset(spec, p);
  let ok = true;
  const fail = (message: string, pos: number, hint?: string): void => {
    ok = false;
    errors.push(diagAt(spec, p, `${message} in \`${source}\``, { colOffset: pos + quoted, hint }));
  };
  const typer = new ExprTyper({
    inputs: [],
    attrs,
    readLet: () => undefined,
    reading: (read: AttrReading, pos: number, indexPos: number): Expr => {
      if ('expr' in read) return read.expr;
      fail(read.error, read.atIndex ? indexPos : pos, read.hint);
      return { kind: 'int', value: 0 };
    },
    fail,
  });
  const build = (r: RawExpr): DtypeChoice =>
    r.kind === 'cond'
      ? { kind: 'if', cond: typer.top(r.cond, 'bool'), yes: build(r.yes), no: build(r.no) }
      : { kind: 'dtype', dtype: (r as Extract<RawExpr, { kind: 'name' }>).name as DType };
  const choice = build(parsed.raw);
  return ok ? choice : undefined;
}

/** The dtype a choice gives for these attribute values (every attribute present: defaults filled in). */
export function evalChoice(c: DtypeChoice, attrs: Readonly<Record<string, AttrValue>>): DType {
  while (c.kind === 'if') c = evalExpr(c.cond, [], attrs) !== 0 ? c.yes : c.no;
  return c.dtype;
}
