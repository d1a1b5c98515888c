// The opforge_jax package (out/jax/opforge_jax): per op a module with the op's facts (an OpInfo),
// its result-shape function compiled from the spec's shape expressions, and the public function
// (keyword attributes with the spec's types and defaults); the package __init__ imports them all.
// Behaviour (checks, ffi_call, custom_vjp, vmap, export, loading) lives in the static _runtime.py.

import type { AttrValue, AttributeIR, GradientIR, OpIR } from '../../model/ir.js';
import { allowedDtypes } from '../../model/ir-helpers.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';
import { commentText, plainFloat, pyString } from '../lang/literals.js';
import { pyExpr, type PyExprEnv } from '../lang/py-expr.js';
import { jaxSymbols, jaxTarget, jaxVmapMethod } from './names.js';

/** Under JAX every dim is a Python int when the function runs: plain integer arithmetic. */
const DIMS: PyExprEnv = {
  dim: (i, axis) => `shapes[${i}][${axis}]`,
  attr: (name) => `attrs[${pyString(name)}]`,
};

function tuple(items: string[]): string {
  return items.length === 1 ? `(${items[0]},)` : `(${items.join(', ')})`;
}

function pyValue(type: AttributeIR['type'], v: AttrValue, asTuple = false): string {
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
    case 'floats': {
      const items = (v as number[]).map((x) => (type === 'ints' ? String(x) : plainFloat(x)));
      return asTuple ? tuple(items).replace(/^\(\)$/, '()') : `[${items.join(', ')}]`;
    }
  }
}

function firstInputOf(op: OpIR, typeVar: string): number {
  const i = op.inputs.findIndex((x) => x.type.kind === 'var' && x.type.name === typeVar);
  if (i < 0) throw new Error(`${op.name}: type variable ${typeVar} binds no input`);
  return i;
}

function shapesFn(op: OpIR): string {
  const rows = op.outputs.map((o) => {
    const expr =
      o.shape.kind === 'like'
        ? `tuple(shapes[${o.shape.inputIndex}])`
        : tuple(o.shape.dims.map((e) => pyExpr(e, DIMS))).replace(/^\(\)$/, '()');
    const src = o.shape.kind === 'like' ? `shape of ${o.shape.input}` : `[${o.shape.source.join(', ')}]`;
    return `        ${expr},  # ${o.name}: ${commentText(src)}`;
  });
  return lines(
    'def result_shapes(shapes, attrs):',
    '    """Output dims from the input dims (ints) and attributes, per the spec\'s shape expressions."""',
    '    return [',
    ...rows,
    '    ]',
  );
}

function gradient(g: GradientIR): string {
  const src = g.inputs.map((x) => (x ? `(${pyString(x.kind)}, ${x.index})` : 'None'));
  const opt = (xs: (string | number | undefined)[]): string =>
    tuple(xs.map((x) => (x === undefined ? 'None' : typeof x === 'string' ? pyString(x) : String(x))));
  return `        _rt.Gradient(${pyString(g.ident.snake)}, inputs=${tuple(src)}, attributes=${opt(g.attributes)}, outputs=${opt(g.outputs)}),`;
}

function opInfo(op: OpIR): string {
  const field = (name: string, rows: string[]): string[] =>
    rows.length ? [`    ${name}=(`, ...rows, '    ),'] : [`    ${name}=(),`];
  const sym = jaxSymbols(op);
  return lines(
    '_OP = _rt.OpInfo(',
    `    name=${pyString(op.name)},`,
    `    domain=${pyString(op.domain)},`,
    `    snake=${pyString(op.ident.snake)},`,
    `    target=${pyString(jaxTarget(op))},`,
    `    symbols=(${pyString(sym.cpu)}, ${pyString(sym.cuda)}),`,
    ...field(
      'inputs',
      op.inputs.map(
        (i) =>
          `        _rt.Input(${pyString(i.name)}, ${tuple(allowedDtypes(i.type).map(pyString))}, ` +
          `${i.type.kind === 'var' ? pyString(i.type.name) : 'None'}, ${i.rank ?? 'None'}, ${i.optional ? 'True' : 'False'}, ${i.differentiable ? 'True' : 'False'}),`,
      ),
    ),
    ...field(
      'outputs',
      op.outputs.map(
        (o) =>
          `        _rt.Output(${pyString(o.name)}, ${tuple(allowedDtypes(o.type).map(pyString))}, ` +
          `${o.type.kind === 'var' ? firstInputOf(op, o.type.name) : 'None'}, ${o.differentiable ? 'True' : 'False'}),`,
      ),
    ),
    ...field(
      'attributes',
      op.attributes.map(
        (a) =>
          `        _rt.Attr(${pyString(a.name)}, ${pyString(a.type)}, ${a.required ? 'True' : 'False'}, ` +
          `${a.default === undefined ? 'None' : pyValue(a.type, a.default)}, ` +
          `${a.enum ? tuple(a.enum.map((v) => (typeof v === 'string' ? pyString(v) : String(v)))) : 'None'}, ${a.min ?? 'None'}, ${a.max ?? 'None'}),`,
      ),
    ),
    '    result_shapes=result_shapes,',
    `    vmap_method=${pyString(jaxVmapMethod(op))},`,
    `    has_cuda=${op.kernels.cuda ? 'True' : 'False'},`,
    ...(op.backward ? field('backward', op.backward.map(gradient)) : ['    backward=None,']),
    `    spec=${pyString(op.source.relFile)},`,
    ')',
  );
}

function signature(op: OpIR): string {
  const ins = op.inputs.map((i) => `${i.name}: ${i.optional ? 'Optional[jax.Array] = None' : 'jax.Array'}`);
  const attrs = op.attributes.map(
    (a) =>
      `${a.name}: ${ATTR_INFO[a.type].py}${a.default === undefined ? '' : ` = ${pyValue(a.type, a.default, true)}`}`,
  );
  return [...ins, ...(attrs.length ? ['*', ...attrs] : [])].join(', ');
}

export function emitJaxModule(op: OpIR): string {
  const ret = op.outputs.length === 1 ? 'jax.Array' : `Tuple[${op.outputs.map(() => 'jax.Array').join(', ')}]`;
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
  return lines(
    `"""${op.name} for JAX: the custom-call target ${commentText(jaxTarget(op))} (XLA FFI), from ${commentText(op.source.relFile)}."""`,
    '',
    'from __future__ import annotations',
    '',
    'from typing import Optional, Sequence, Tuple  # noqa: F401 (used by annotations)',
    '',
    'import jax',
    '',
    'from .. import _runtime as _rt',
    '',
    '',
    shapesFn(op),
    '',
    '',
    opInfo(op),
    '',
    '',
    `def ${op.ident.snake}(${signature(op)}) -> ${ret}:`,
    `    """${op.name}${op.description ? `: ${commentText(op.description)}` : '.'}`,
    '',
    `    Works under jax.jit, jax.vmap (vmap_method ${jaxVmapMethod(op)}) and ${op.backward ? `jax.grad (the spec's backward: ${op.backward.map((g) => g.op).join(', ')})` : 'jax.grad: no, the spec declares no backward (differentiating raises)'}.`,
    '',
    '    Args:',
    ...argDocs,
    '',
    '    Returns:',
    ...retDocs,
    '    """',
    `    return _rt.call(_OP, ${tuple(op.inputs.map((i) => i.name))}, ${attrDict})`,
  );
}

export function emitJaxInit(ops: readonly OpIR[]): string {
  return lines(
    '"""The project\'s custom ops for JAX: one function per op over XLA FFI custom calls into the compiled',
    'library (out/jax, built with CMake: cmake -S out -B build -DWITH_JAX=ON; loaded on first use from',
    'OPFORGE_JAX_LIBRARY or build/jax/, or with load_library(path)).',
    '',
    '    import opforge_jax',
    '    y = jax.jit(lambda x: opforge_jax.custom_relu(x, alpha=0.1))(x)',
    '    exported = jax.export.export(jax.jit(f), disabled_checks=opforge_jax.export_disabled_checks())(...)',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Dict',
    '',
    'from . import _runtime',
    'from ._runtime import JaxlibMismatchError, build_info, export_disabled_checks, library_path, load_library',
    ...ops.map((op) => `from .ops import ${op.ident.snake} as _${op.ident.snake}`),
    ...ops.map((op) => `from .ops.${op.ident.snake} import ${op.ident.snake}`),
    '',
    '#: OpInfo of every op, by op name.',
    'OPS: Dict[str, _runtime.OpInfo] = {',
    ...ops.map((op) => `    ${pyString(op.name)}: _${op.ident.snake}._OP,`),
    '}',
    '',
    '__all__ = [',
    ...[
      'JaxlibMismatchError',
      'OPS',
      'build_info',
      'export_disabled_checks',
      'library_path',
      'load_library',
      ...ops.map((o) => o.ident.snake),
    ]
      .sort()
      .map((n) => `    ${pyString(n)},`),
    ']',
  );
}
