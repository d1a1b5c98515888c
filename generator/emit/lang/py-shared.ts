// The modules every generated Python package shares (generator/static/python/shared): attribute
// checks with the limits of generator/model/limits.ts filled in, and the dim-expression evaluator;
// and the facts they read, as each package's op modules state them.

import type { AttributeIR, InputIR, OpIR, OutputIR } from '../../model/ir.js';
import { FLOAT32_MAX, INT32_MAX, MAX_LIST, MAX_MEMBERS, MAX_RANK, MAX_STRING } from '../../model/limits.js';
import { type GeneratedFile, projectFile, staticFile } from '../emitter.js';
import { pyExprData } from './py-expr.js';
import { pyAttrValue } from './py-op.js';
import { allowedDtypes, readLabel } from '../../model/ir-helpers.js';
import { type PyValue, pyCall, pyTuple } from './python.js';
import { fillTemplate } from './template.js';

const ATTRS = 'generator/static/python/shared/_attrs.py.tmpl';

/** _attrs.py and _dims.py in the package folder `dir`. */
export function sharedPythonFiles(dir: string): GeneratedFile[] {
  const limits = [
    `INT_MIN = ${-INT32_MAX}`,
    `INT_MAX = ${INT32_MAX}`,
    `FLOAT32_MAX = ${FLOAT32_MAX}`,
    `MAX_STRING = ${MAX_STRING}`,
    `MAX_LIST = ${MAX_LIST}`,
    `MAX_RANK = ${MAX_RANK}`,
    `MAX_MEMBERS = ${MAX_MEMBERS}`,
  ].join('\n');
  return [
    projectFile(`${dir}/_attrs.py`, fillTemplate(ATTRS, { limits }), ATTRS),
    staticFile(`${dir}/_dims.py`, 'generator/static/python/shared/_dims.py'),
  ];
}

/** An input's `shape` for _dims.py: None, the index of the input it is shaped like, or a dim each (None: any). */
export function pyInputShape(i: InputIR): PyValue {
  const c = i.constraint;
  if (c.kind === 'none') return null;
  if (c.kind === 'like') return c.inputIndex;
  return pyTuple(c.dims.map((d) => (d.kind === 'any' ? null : pyExprData(d.expr))));
}

/** The spec's text of each constrained dim (what messages quote), or None. */
export function pyInputShapeSource(i: InputIR): PyValue {
  const c = i.constraint;
  if (c.kind !== 'dims') return null;
  return pyTuple(c.dims.map((d) => (d.kind === 'any' ? '?' : d.source)));
}

/**
 * An output's `shape` for _dims.py: the index of the input it is shaped like, or an entry each: a
 * dim expression, or ('slice', input, start, end, text) with None for a missing bound.
 */
export function pyOutputShape(o: OutputIR): PyValue {
  const s = o.shape;
  if (s.kind === 'like') return s.inputIndex;
  if (s.kind === 'dims') return pyTuple(s.dims.map(pyExprData));
  return pyTuple(
    s.parts.map((x, k) =>
      x.kind === 'dim'
        ? pyExprData(x.expr)
        : pyTuple([
            'slice',
            x.inputIndex,
            x.start === null ? null : pyExprData(x.start),
            x.end === null ? null : pyExprData(x.end),
            s.source[k]!.trim(),
          ]),
    ),
  );
}

/**
 * `_rt.Input(...)`: the facts every Python package states about an input (the same fields);
 * `variadic` is a variadic input's least member count.
 */
export function pyInput(i: InputIR, typeVar: string | null): PyValue {
  return pyCall(
    '_rt.Input',
    [i.name, allowedDtypes(i.type), typeVar, i.ranks ? pyTuple(i.ranks) : i.rank, i.optional, i.differentiable],
    {
      ...(i.constraint.kind === 'none' ? {} : { shape: pyInputShape(i), shape_source: pyInputShapeSource(i) }),
      ...(i.variadic ? { variadic: true, min_count: i.variadic.min } : {}),
      ...(i.variadic && !i.variadic.homogeneous ? { homogeneous: false } : {}),
    },
  );
}

/** An attribute's optional `_rt.Attr` keywords: `length` only where the spec declares one. */
/**
 * An attribute's `_rt.Attr(...)` row, the same in every Python binding; `trailing` adds what one
 * binding's Attr holds beyond the others (the PyTorch package's description).
 */
export function pyAttr(a: AttributeIR, ...trailing: PyValue[]): PyValue {
  return pyCall(
    '_rt.Attr',
    [
      a.name,
      a.type,
      a.required,
      a.default === undefined ? null : pyAttrValue(a.type, a.default),
      a.enum,
      a.min,
      a.max,
      ...trailing,
    ],
    {
      ...(a.length === undefined ? {} : { length: a.length.length === 1 ? a.length[0]! : pyTuple(a.length) }),
      ...(a.minExclusive ? { min_exclusive: true } : {}),
      ...(a.maxExclusive ? { max_exclusive: true } : {}),
    },
  );
}

/**
 * OpInfo's `checks` keyword where the spec has `checks:` (none otherwise): per check its
 * expression, its text, the spec's message, and what its failure message shows (a label and a
 * dim expression, or an attribute's name).
 */
export function pyChecks(op: OpIR): Record<string, PyValue> {
  if (!op.checks.length) return {};
  const rows = op.checks.map((c) =>
    pyTuple([
      pyExprData(c.expr),
      c.source,
      c.message ?? null,
      pyTuple(
        c.reads.map((r) =>
          pyTuple([
            readLabel(op, r),
            r.kind === 'dim' || r.kind === 'rank' || r.kind === 'slice' || r.kind === 'count'
              ? pyExprData(r)
              : readLabel(op, r),
          ]),
        ),
      ),
    ]),
  );
  return { checks: pyTuple(rows, { multiline: true }) };
}
