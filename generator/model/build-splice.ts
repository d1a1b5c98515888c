// An output's `shape:` list into the IR: one dim expression per entry, or, where an entry is a
// slice `x[start:end]` of an input's dims (grid_sampler's `[input[0], input[1], grid[1:-1]]`,
// GatherTopk's `[indices[:], data[rank(indices):]]`), a spliced shape. A slice's bounds read ints,
// attributes and ranks, never dims: every backend must know an output's rank when it builds the
// graph (TensorRT's nbDims is an int, not an expression).

import type { Diagnostic, KeyPath } from './diagnostics.js';
import { didYouMean } from './diagnostics.js';
import { sliceRange, visitExpr } from './expr.js';
import type { ExprAttrs } from './expr-attrs.js';
import type { DataDimIR, Expr, InputIR, OutputIR, ShapeIR, ShapePart } from './ir.js';
import type { LetScope } from './lets.js';
import type { LoadedSpec } from './load.js';
import { compileDim, type DimSpec, type ErrFn } from './build-ir.js';
import type { TypingContext } from './expr-typing.js';

interface SpliceScope {
  spec: LoadedSpec;
  errors: Diagnostic[];
  err: ErrFn;
  exprAttrs: ExprAttrs;
  lets: LetScope;
  /** The spec's `data_dims:` (only an output's dims list names them). */
  dataDims?: readonly DataDimIR[];
  /** A variadic output's member: its index and the guards of what its shape reads (expr-typing.ts). */
  member?: TypingContext['member'];
}

/** `name[...]` with a colon at the top level of the brackets: the name, and each bound's text and offset. */
export interface SliceText {
  input: string;
  start: { text: string; at: number } | null;
  end: { text: string; at: number } | null;
  /** Offset of the name in the entry's text. */
  at: number;
  /** A second top-level colon (a step, `x[::2]`), refused. */
  step: number | undefined;
}

/** The slice an entry writes, or undefined when it is a dim expression. */
export function sliceText(entry: string): SliceText | undefined {
  const m = /^(\s*)([A-Za-z_][A-Za-z0-9_]*)\s*\[(.*)\]\s*$/s.exec(entry);
  if (!m) return undefined;
  const open = entry.indexOf('[', m[1]!.length) + 1;
  const inner = m[3]!;
  const colons: number[] = [];
  let depth = 0;
  for (let k = 0; k < inner.length; k++) {
    const c = inner[k]!;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ':' && depth === 0) colons.push(k);
    // Brackets that close before the end belong to two readings (`a[0] + b[1]`): not a slice.
    if (depth < 0) return undefined;
  }
  if (colons.length === 0) return undefined;
  const bound = (from: number, to: number): SliceText['start'] => {
    const text = inner.slice(from, to);
    return text.trim() === '' ? null : { text, at: open + from };
  };
  const c0 = colons[0]!;
  return {
    input: m[2]!,
    at: m[1]!.length,
    start: bound(0, c0),
    end: bound(c0 + 1, colons[1] ?? inner.length),
    step: colons[1] === undefined ? undefined : open + colons[1],
  };
}

/**
 * An output's dims list: `dims` when every entry is an expression, `splice` when one is a slice.
 * An entry naming a data dim (as a whole) is its bound, and `data` says at which axis.
 */
export function buildOutputDims(
  list: readonly DimSpec[],
  p: KeyPath,
  readable: readonly InputIR[],
  scope: SpliceScope,
): { shape: ShapeIR; rank: number | null; data: OutputIR['dataDims'] } {
  const { spec, errors, err, exprAttrs, lets } = scope;
  const source = list.map(String);
  const data: OutputIR['dataDims'] = [];
  list.forEach((d, axis) => {
    const dd = typeof d === 'string' ? scope.dataDims?.find((x) => x.name === d.trim()) : undefined;
    if (!dd) return;
    if (data.some((x) => x.dim === dd.index))
      err([...p, 'shape', axis], `data dim \`${dd.name}\` names two dims of one output`);
    data.push({ axis, dim: dd.index });
  });
  if (data.length && list.some((d) => typeof d === 'string' && sliceText(d)))
    err(
      [...p, 'shape'],
      'an output with a dim the kernel decides takes no slice of dims: write each dim (the kernel writes it contiguously in its actual dims)',
    );
  const parts: ShapePart[] = list.map((d, k) => {
    const at: KeyPath = [...p, 'shape', k];
    if (d === '?') {
      // Every backend sizes an output before the kernel runs (TensorRT, ONNX Runtime, Paddle
      // and the fake tensors of torch.compile alike), from the inputs' dims and attributes.
      err(
        at,
        "`?` (any dim) is for input constraints; an output's dims must be computable from the inputs' dims and the int attributes, since every backend sizes outputs before the kernel runs",
        { hint: 'write the dim as an expression, e.g. x[0] or ceil_div(x[2], stride)' },
      );
      return { kind: 'dim', expr: { kind: 'int', value: 0 } };
    }
    const dd = data.find((x) => x.axis === k);
    if (dd) return { kind: 'dim', expr: scope.dataDims![dd.dim]!.bound };
    const slice = typeof d === 'string' ? sliceText(d) : undefined;
    if (slice) return buildSlice(slice, d as string, at, readable, scope);
    const e = compileDim(d, at, readable, exprAttrs, spec, errors, lets, 'int', 0, undefined, scope.member);
    return { kind: 'dim', expr: e ?? { kind: 'int', value: 0 } };
  });
  if (parts.every((x) => x.kind === 'dim'))
    return { shape: { kind: 'dims', dims: parts.map((x) => x.expr), source }, rank: parts.length, data };
  return { shape: { kind: 'splice', parts, source }, rank: splicedRank(parts, readable), data };
}

function buildSlice(
  s: SliceText,
  text: string,
  at: KeyPath,
  readable: readonly InputIR[],
  { spec, errors, err, exprAttrs, lets }: SpliceScope,
): ShapePart {
  const placeholder: ShapePart = { kind: 'dim', expr: { kind: 'int', value: 0 } };
  const inp = readable.find((x) => x.name === s.input);
  if (!inp) {
    err(at, `\`${s.input}\` is not an input whose dims a slice can read (an input that is always present)`, {
      hint: didYouMean(
        s.input,
        readable.map((x) => x.name),
      ),
      colOffset: s.at,
    });
    return placeholder;
  }
  if (s.step !== undefined) {
    err(at, `a slice takes no step: write \`${s.input}[start:end]\``, { colOffset: s.step });
    return placeholder;
  }
  const bound = (b: SliceText['start']): Expr | null | undefined => {
    if (!b) return null;
    const e = compileDim(b.text, at, readable, exprAttrs, spec, errors, lets, 'int', b.at);
    if (!e) return undefined;
    let dim = false;
    visitExpr(e, (x) => {
      if (x.kind === 'dim') dim = true;
    });
    if (dim) {
      err(
        at,
        `a slice's bounds read ints, attributes and rank(x), not dims: every backend fixes an output's rank when it builds the graph, in \`${text}\``,
        { colOffset: b.at },
      );
      return undefined;
    }
    return e;
  };
  const start = bound(s.start);
  const end = bound(s.end);
  if (start === undefined || end === undefined) return placeholder;
  const part: ShapePart = { kind: 'slice', input: inp.name, inputIndex: inp.index, start, end };
  // Where the ranks and bounds are known here, a slice outside the input is refused now.
  for (const r of inp.rank !== null ? [inp.rank] : (inp.ranks ?? [])) {
    const span = sliceSpan(part, r);
    if (span === 'out')
      err(at, `slice \`${text.trim()}\` is outside input \`${inp.name}\` of rank ${r}`, { colOffset: s.at });
    if (span === 'out') break;
  }
  return part;
}

/** A bound as a constant, or undefined where it reads an attribute or a rank. */
function constant(e: Expr | null): number | null | undefined {
  if (e === null) return null;
  return e.kind === 'int' ? e.value : undefined;
}

/**
 * The dims `[start, end)` a slice takes from an input of rank `rank` (Python's normalization of
 * negative bounds), 'out' when a bound lies outside `0..rank` or end < start, undefined when a bound
 * is not a constant. Every backend applies the same rule at run time.
 */
export function sliceSpan(
  part: Extract<ShapePart, { kind: 'slice' }>,
  rank: number,
): [number, number] | 'out' | undefined {
  const a = constant(part.start);
  const b = constant(part.end);
  if (a === undefined || b === undefined) return undefined;
  return sliceRange(a, b, rank);
}

/** The output's rank when every slice has known bounds on an input of one rank; else null. */
function splicedRank(parts: readonly ShapePart[], inputs: readonly InputIR[]): number | null {
  let n = 0;
  for (const x of parts) {
    if (x.kind === 'dim') {
      n++;
      continue;
    }
    const r = inputs.find((i) => i.index === x.inputIndex)?.rank ?? null;
    const span = r === null ? undefined : sliceSpan(x, r);
    if (!Array.isArray(span)) return null;
    n += span[1] - span[0];
  }
  return n;
}
