// An op's facts as Python values, shared by the two Python packages (opforge_ops for PyTorch,
// opforge_jax): attribute values and defaults, the gradient entries, the parameter list and the
// docstring of the op's public function.

import type { AttrValue, AttributeIR, DtypeChoice, GradientIR, OpIR, OutputIR } from '../../model/ir.js';
import { pyExprData } from './py-expr.js';
import { allowedDtypes, binderOf, minOutputs } from '../../model/ir-helpers.js';
import { MAX_MEMBERS } from '../../model/limits.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { commentText, plainFloat } from './literals.js';
import {
  type PyImport,
  type PyParam,
  type PyValue,
  pyCall,
  pyCode,
  pyDict,
  pyList,
  pyLit,
  pyParams,
  pyTuple,
} from './python.js';

/** An attribute value: floats as the shortest float32 round trip, lists as lists (or tuples, for defaults). */
export function pyAttrValue(type: AttributeIR['type'], v: AttrValue, asTuple = false): PyValue {
  switch (type) {
    case 'float':
      return pyCode(plainFloat(v as number));
    case 'ints':
    case 'floats': {
      const items = (v as number[]).map((x) => (type === 'floats' ? pyCode(plainFloat(x)) : x));
      return asTuple ? pyTuple(items) : pyList(items);
    }
    default:
      return v as PyValue;
  }
}

/** The index of the first input typed by a type variable (where an output's dtype comes from). */
export function firstInputOf(op: OpIR, typeVar: string): number {
  const i = binderOf(op, typeVar)?.index;
  if (i === undefined) throw new Error(`${op.name}: type variable ${typeVar} binds no input`);
  return i;
}

/**
 * An output's `_rt.Output(name, dtypes, ...)` arguments for its dtype: `dtype_from`, the first input
 * of its type variable (None for a fixed dtype or one the attributes choose), and, for a chosen one,
 * `dtype_choice`: a dtype name or ('if', condition, yes, no), which _dims.chosen_dtype reads.
 */
export function outputDtypeArgs(op: OpIR, o: OutputIR): { from: number | null; keywords: Record<string, PyValue> } {
  // A member following a heterogeneous input's member: the call's tensor of that member.
  if (o.member?.follows !== undefined)
    return { from: null, keywords: { dtype_member: o.member.follows + o.member.index } };
  const name = typeVarOf(o);
  const tv = name === null ? undefined : op.typeVars.find((v) => v.name === name);
  if (!tv) return { from: null, keywords: {} };
  if (!tv.choice) return { from: firstInputOf(op, tv.name), keywords: {} };
  const data = (c: DtypeChoice): PyValue =>
    c.kind === 'dtype' ? c.dtype : pyTuple(['if', pyExprData(c.cond), data(c.yes), data(c.no)]);
  return { from: null, keywords: { dtype_choice: data(tv.choice) } };
}

/**
 * `present=` of an output with a `present:` condition (as _dims.evaluate reads it), and `of=` of a
 * variadic output's member (the functions return the members as one list); nothing otherwise.
 */
export function presentKeyword(o: OutputIR): Record<string, PyValue> {
  return {
    ...(o.present ? { present: pyExprData(o.present.expr) } : {}),
    ...(o.member ? { of: o.member.of } : {}),
  };
}

/** An output's `data_dims=((axis, data dim), ...)`: the dims its kernel decides (none: no keyword). */
export function dataDimsKeyword(o: OutputIR): Record<string, PyValue> {
  return o.dataDims.length ? { data_dims: pyTuple(o.dataDims.map((d) => pyTuple([d.axis, d.dim]))) } : {};
}

/** The type variable a tensor is typed by, or None. */
export function typeVarOf(t: { type: OpIR['inputs'][number]['type'] }): string | null {
  return t.type.kind === 'var' ? t.type.name : null;
}

/** `_rt.Gradient(...)`: one entry of the spec's backward (the gradient op and, by index, what feeds it). */
export function pyGradient(g: GradientIR): PyValue {
  return pyCall('_rt.Gradient', [g.ident.snake], {
    inputs: g.inputs.map((x) => (x ? [x.kind, x.index] : null)),
    attributes: g.attributes,
    outputs: g.outputs,
  });
}

/**
 * The public function's parameters: the inputs (optional ones default to None, a variadic one is a
 * sequence of tensors), then the attributes keyword-only.
 */
export function opParams(op: OpIR, tensorType: string | undefined): string {
  const inputs = op.inputs.map(
    (i): PyParam =>
      tensorType === undefined
        ? { name: i.name, ...(i.optional ? { default: null } : {}) }
        : {
            name: i.name,
            type: i.variadic ? `Sequence[${tensorType}]` : i.optional ? `Optional[${tensorType}]` : tensorType,
            ...(i.optional ? { default: null } : {}),
          },
  );
  const attrs = op.attributes.map(
    (a): PyParam => ({
      name: a.name,
      type: ATTR_INFO[a.type].py,
      ...(a.default === undefined ? {} : { default: pyAttrValue(a.type, a.default, true) }),
    }),
  );
  return pyParams(inputs, attrs);
}

/** The op module's `typing` import: `names`, and Union where returnType needs it. */
export function typingImport(op: OpIR, names: readonly string[]): PyImport {
  const union = minOutputs(op) < op.outputs.length ? ['Union'] : [];
  return { module: 'typing', names: [...names, ...union], comment: 'noqa: F401 (used by annotations)' };
}

/** `T` or `Tuple[T, T]` for the op's outputs; a Union of those where the attributes leave some out. */
export function returnType(op: OpIR, tensorType: string): string {
  const of = (n: number): string => (n === 1 ? tensorType : `Tuple[${Array(n).fill(tensorType).join(', ')}]`);
  const counts = op.outputs.map((_, k) => k + 1).filter((n) => n >= Math.max(minOutputs(op), 1));
  return counts.length === 1 ? of(counts[0]!) : `Union[${counts.map(of).join(', ')}]`;
}

/** What the op core holds an attribute as, where Python's own type is wider (said at the call's docs). */
const HELD_AS: Readonly<Record<AttributeIR['type'], string>> = {
  bool: '',
  int: ' (int32)',
  float: ' (float32)',
  string: '',
  ints: ' (int32 each)',
  floats: ' (float32 each)',
};

/** The Args: and Returns: sections of the public function's docstring (Google style). */
export function argDocs(op: OpIR): string[] {
  const row = (name: string, what: string, description: string): string =>
    `    ${name}: ${what}. ${commentText(description)}`.trimEnd();
  const dtypes = (t: { type: OpIR['inputs'][number]['type'] }): string => allowedDtypes(t.type).join(' | ');
  return [
    'Args:',
    ...op.inputs.map((i) =>
      row(
        i.name,
        `${dtypes(i)}${i.rank !== null ? `, rank ${i.rank}` : i.ranks ? `, rank ${i.ranks.join(' or ')}` : ''}${i.optional ? ', optional' : ''}${i.variadic ? `, ${i.variadic.min} to ${MAX_MEMBERS} tensors of ${i.variadic.homogeneous ? 'one dtype' : 'any of these dtypes each'}` : ''}`,
        i.description,
      ),
    ),
    ...op.attributes.map((a) =>
      row(a.name, `${a.type}${HELD_AS[a.type]}${a.required ? ', required' : ''}`, a.description),
    ),
    '',
    'Returns:',
    ...op.outputs.map((o) =>
      row(o.name, `${dtypes(o)}${o.present ? `, only where ${commentText(o.present.source)}` : ''}`, o.description),
    ),
    '',
  ];
}

/** `{'name': name, ...}`: the attributes as the call passes them on. */
export function attrDict(op: OpIR): string {
  return pyLit(pyDict(op.attributes.map((a) => [a.name, pyCode(a.name)])));
}

/** A package's imports of its op modules: each module (for its OpInfo) and each op's function. */
export function opImports(ops: readonly OpIR[]): PyImport[] {
  return [
    ...ops.map((op) => ({ module: '.ops', names: [`${op.ident.snake} as _${op.ident.snake}`] })),
    ...ops.map((op) => ({ module: `.ops.${op.ident.snake}`, names: [op.ident.snake] })),
  ];
}
