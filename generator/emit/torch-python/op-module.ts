// One Python module per op (out/python/opforge_ops/ops/<snake>.py): the op's facts as an
// OpInfo, its shape function compiled from the spec's expressions, the public function and the
// dynamo exporter's onnxscript translation. Behaviour lives in the shared _runtime.py.

import type { AttrValue, AttributeIR, GradientIR, OpIR, TestCaseIR } from '../../model/ir.js';
import { allowedDtypes } from '../../model/ir-helpers.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';
import { commentText, plainFloat, pyString } from '../lang/literals.js';
import { torchSchemaArgs } from '../torch/schema.js';
import { pyExpr, type PyExprEnv } from '../lang/py-expr.js';

const HELPERS = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '//': 'floordiv',
  ceil_div: 'ceil_div',
  max: 'max_',
  min: 'min_',
} as const;

/** Dims through the runtime's helpers: they accept ints, SymInts, ONNX dim names and None alike. */
const RUNTIME_DIMS: PyExprEnv = {
  dim: (i, axis) => `_rt.dim(shapes, ${i}, ${axis})`,
  attr: (name) => `attrs[${JSON.stringify(name)}]`,
  helper: (op) => `_rt.${HELPERS[op]}`,
};

/** A default in a signature: lists as tuples, so no default is a shared mutable object. */
function pyDefault(type: AttributeIR['type'], v: AttrValue): string {
  if (type === 'ints' || type === 'floats') {
    const items = (v as number[]).map((x) => (type === 'ints' ? String(x) : plainFloat(x)));
    return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
  }
  return pyAttrValue(type, v);
}

/** A Python literal for an attribute value of the given type. */
export function pyAttrValue(type: AttributeIR['type'], v: AttrValue): string {
  switch (type) {
    case 'bool':
      return v ? 'True' : 'False';
    case 'int':
      return String(v);
    case 'float':
      return plainFloat(v as number);
    case 'string':
      return pyString(v as string);
    case 'ints':
      return `[${(v as number[]).join(', ')}]`;
    case 'floats':
      return `[${(v as number[]).map(plainFloat).join(', ')}]`;
  }
}

function pyNum(v: number): string {
  return Number.isInteger(v) ? `${v}.0` : String(v);
}

function tuple(items: string[]): string {
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}

function strTuple(xs: readonly string[]): string {
  return tuple(xs.map(pyString));
}

/** The index of the first input typed by a type variable. */
function firstInputOf(op: OpIR, typeVar: string): number {
  const i = op.inputs.findIndex((x) => x.type.kind === 'var' && x.type.name === typeVar);
  if (i < 0) throw new Error(`${op.name}: type variable ${typeVar} binds no input`);
  return i;
}

function outputShapesFn(op: OpIR): string {
  const rows = op.outputs.map((o) => {
    const expr =
      o.shape.kind === 'like'
        ? `_rt.like(shapes, ${o.shape.inputIndex})`
        : `[${o.shape.dims.map((e) => pyExpr(e, RUNTIME_DIMS)).join(', ')}]`;
    const src = o.shape.kind === 'like' ? `shape of ${o.shape.input}` : `[${o.shape.source.join(', ')}]`;
    return `        ${expr},  # ${o.name}: ${commentText(src)}`;
  });
  return lines(
    'def output_shapes(shapes, attrs):',
    '    """Output dims from input dims (int, SymInt, ONNX dim name or None), per the spec."""',
    '    return [',
    ...rows,
    '    ]',
  );
}

function testCase(op: OpIR, t: TestCaseIR): string {
  const ins = op.inputs.map((inp) => {
    const ti = t.inputs.find((x) => x.name === inp.name);
    if (!ti) return 'None';
    const values = ti.values === undefined ? 'None' : tuple(ti.values.map((v) => pyNum(v)));
    return `(${tuple(ti.shape.map(String))}, ${values}, (${pyNum(ti.range[0])}, ${pyNum(ti.range[1])}))`;
  });
  const dtypes = Object.entries(t.binding.vars)
    .map(([k, v]) => `${pyString(k)}: ${pyString(v)}`)
    .join(', ');
  const attrs = Object.entries(t.attributes)
    .map(([k, v]) => {
      const a = op.attributes.find((x) => x.name === k)!;
      return `${pyString(k)}: ${pyAttrValue(a.type, v)}`;
    })
    .join(', ');
  return `        _rt.TestCase(inputs=${tuple(ins)}, dtypes={${dtypes}}, attributes={${attrs}}, rtol=${t.rtol}, atol=${t.atol}, seed=${t.seed}),`;
}

/** One `backward` entry: the gradient op and, by index, what feeds it. */
function gradient(g: GradientIR): string {
  const src = g.inputs.map((x) => (x ? `(${pyString(x.kind)}, ${x.index})` : 'None'));
  const opt = (xs: (string | number | undefined)[]): string =>
    tuple(xs.map((x) => (x === undefined ? 'None' : typeof x === 'string' ? pyString(x) : String(x))));
  return `        _rt.Gradient(${pyString(g.ident.snake)}, inputs=${tuple(src)}, attributes=${opt(g.attributes)}, outputs=${opt(g.outputs)}),`;
}

function opInfo(op: OpIR): string {
  const inputs = op.inputs.map(
    (i) =>
      `        _rt.Input(${pyString(i.name)}, ${strTuple(allowedDtypes(i.type))}, ` +
      `${i.type.kind === 'var' ? pyString(i.type.name) : 'None'}, ${i.rank ?? 'None'}, ${i.optional ? 'True' : 'False'}, ${i.differentiable ? 'True' : 'False'}),`,
  );
  const outputs = op.outputs.map(
    (o) =>
      `        _rt.Output(${pyString(o.name)}, ${strTuple(allowedDtypes(o.type))}, ` +
      `${o.type.kind === 'var' ? `${pyString(o.type.name)}, ${firstInputOf(op, o.type.name)}` : 'None, None'}, ${o.differentiable ? 'True' : 'False'}),`,
  );
  const attrs = op.attributes.map(
    (a) =>
      `        _rt.Attr(${pyString(a.name)}, ${pyString(a.type)}, ${a.required ? 'True' : 'False'}, ` +
      `${a.default === undefined ? 'None' : pyAttrValue(a.type, a.default)}, ` +
      `${a.enum ? tuple(a.enum.map((v) => (typeof v === 'string' ? pyString(v) : String(v)))) : 'None'}, ` +
      `${a.min ?? 'None'}, ${a.max ?? 'None'}, ${pyString(a.description)}),`,
  );
  const typeVars = op.typeVars.map((tv) => `        (${pyString(tv.name)}, ${strTuple(tv.dtypes)}),`);
  const block = (rows: string[]): string[] => (rows.length ? ['(', ...rows, '    )'] : ['()']);
  const field = (name: string, rows: string[]): string[] => {
    const b = block(rows);
    return b.length === 1
      ? [`    ${name}=${b[0]},`]
      : [`    ${name}=${b[0]}`, ...b.slice(1, -1), `${b[b.length - 1]},`];
  };
  return lines(
    '_OP = _rt.OpInfo(',
    `    name=${pyString(op.name)},`,
    `    domain=${pyString(op.domain)},`,
    `    version=${op.version},`,
    `    snake=${pyString(op.ident.snake)},`,
    `    doc=${pyString(op.description)},`,
    ...field('inputs', inputs),
    ...field('outputs', outputs),
    ...field('attributes', attrs),
    ...field('type_vars', typeVars),
    `    torch_schema=${pyString(torchSchemaArgs(op))},`,
    '    output_shapes=output_shapes,',
    '    reference=_reference,',
    ...field(
      'tests',
      op.tests.map((t) => testCase(op, t)),
    ),
    `    has_cuda=${op.kernels.cuda ? 'True' : 'False'},`,
    ...(op.backward ? field('backward', op.backward.map(gradient)) : ['    backward=None,']),
    `    spec=${pyString(op.source.relFile)},`,
    ')',
  );
}

function signature(op: OpIR, withTypes: boolean): string {
  const ins = op.inputs.map((i) =>
    withTypes
      ? `${i.name}: ${i.optional ? 'Optional[torch.Tensor] = None' : 'torch.Tensor'}`
      : i.optional
        ? `${i.name}=None`
        : i.name,
  );
  const attrs = op.attributes.map((a) => {
    const def = a.default === undefined ? '' : ` = ${pyDefault(a.type, a.default)}`;
    return `${a.name}: ${ATTR_INFO[a.type].py}${def}`;
  });
  return [...ins, ...(attrs.length ? ['*', ...attrs] : [])].join(', ');
}

function publicFn(op: OpIR): string {
  const ret = op.outputs.length === 1 ? 'torch.Tensor' : `Tuple[${op.outputs.map(() => 'torch.Tensor').join(', ')}]`;
  const argDocs = [
    ...op.inputs.map((i) =>
      `        ${i.name}: ${allowedDtypes(i.type).join(' | ')}${i.rank !== null ? `, rank ${i.rank}` : ''}${i.optional ? ', optional' : ''}. ${commentText(i.description)}`.trimEnd(),
    ),
    ...op.attributes.map((a) =>
      `        ${a.name}: ${a.type}${a.required ? ', required' : ''}. ${commentText(a.description)}`.trimEnd(),
    ),
  ];
  const retDocs = op.outputs.map((o) =>
    `        ${o.name}: ${allowedDtypes(o.type).join(' | ')}. ${commentText(o.description)}`.trimEnd(),
  );
  const attrDict = `{${op.attributes.map((a) => `${pyString(a.name)}: ${a.name}`).join(', ')}}`;
  const args = `_OP, ${tuple(op.inputs.map((i) => i.name))}, ${attrDict}`;
  return lines(
    `def ${op.ident.snake}(${signature(op, true)}) -> ${ret}:`,
    `    """${op.name} (ONNX ${commentText(op.domain)}::${op.name}, version ${op.version})${op.description ? `: ${commentText(op.description)}` : '.'}`,
    '',
    '    Args:',
    ...argDocs,
    '',
    '    Returns:',
    ...retDocs,
    '    """',
    ...directCall(op, args),
    `    return _rt.call(${args})`,
  );
}

/**
 * The direct path: the compiled op called through its slot when the tests only Python
 * can make pass (torch.compile and tracing take the checked path; attribute types exactly). The
 * extension's own Autograd kernels train it on any torch version; failures re-run the checks.
 */
function directCall(op: OpIR, args: string): string[] {
  const call = `_DIRECT[0](${[...op.inputs.map((i) => i.name), ...op.attributes.map((a) => `${a.name}=${a.name}`)].join(', ')})`;
  const cond = [
    '_DIRECT[0] is not None and not _rt.compiling() and not _rt.tracing()',
    ...op.attributes.map((a) => ATTR_INFO[a.type].pyDirectTest(a.name)),
  ];
  return [
    `    if (${cond.join('\n            and ')}):`,
    '        try:',
    `            return ${call}`,
    "        except Exception:  # the wrapper's own message when its checks find the fault",
    `            _rt.checked(${args})`,
    '            raise',
  ];
}

function translationFn(op: OpIR): string {
  const ins = op.inputs.map((i) => (i.optional ? `${i.name}=None` : i.name));
  const attrs = op.attributes.map((a) => {
    const def = a.default === undefined ? '' : ` = ${pyDefault(a.type, a.default)}`;
    return `${a.name}: ${ATTR_INFO[a.type].py}${def}`;
  });
  const params = [...ins, ...(attrs.length ? ['*', ...attrs] : [])].join(', ');
  // ONNX has no bool attribute: bools travel as INT, as in the legacy exporter's `_i` suffix.
  const kw = op.attributes.map((a) => {
    if (a.type === 'bool') return `${a.name}=int(${a.name})`;
    if (a.type === 'ints' || a.type === 'floats')
      return `${a.name}=_rt.onnx_list_attr(${pyString(a.type)}, ${pyString(a.name)}, ${a.name})`;
    return `${a.name}=${a.name}`;
  });
  const call = [...op.inputs.map((i) => i.name), ...kw].join(', ');
  return lines(
    `def onnx_translation(${params}):`,
    `    """For the dynamo exporter's custom_translation_table: one ${commentText(op.domain)}::${op.name} node."""`,
    `    return _rt.onnxscript_opset(_OP).${op.name}(${call})`,
  );
}

export function opModule(op: OpIR): string {
  const desc = commentText(op.description);
  return lines(
    `"""${op.name}: ${commentText(op.domain)}::${op.name}, version ${op.version}.${desc ? `\n\n${desc}` : ''}"""`,
    '',
    'from __future__ import annotations',
    '',
    'from typing import Optional, Sequence, Tuple  # noqa: F401 (used by annotations)',
    '',
    'import torch',
    '',
    'from .. import _runtime as _rt',
    op.kernels.reference
      ? `from .._reference.${op.ident.snake} import reference as _reference`
      : '_reference = None  # the spec names no kernels.reference',
    '',
    '',
    outputShapesFn(op),
    '',
    '',
    opInfo(op),
    '_DIRECT = _rt.direct_slot(_OP)  # the compiled op, once the extension has it',
    '',
    '',
    publicFn(op),
    '',
    '',
    translationFn(op),
    '',
  );
}
