// out/popart/custom_shape_inference.py: what PopRT's `--custom_shape_inference` loads. The shared
// part (PopRT's imports, the input and attribute helpers, the SpecShapeFunc base running the checks)
// is generator/static/python/poprt_shape_inference.py; per op follows one SpecShapeFunc registered
// under the op's ONNX op_type with poprt.passes.register_shape_func, stating its inputs, the
// defaults of the attributes its dims read, and its outputs' dtypes (from the type constraints)
// and dims (the specs' expression trees, printed by py-expr.ts).

import { visitExpr } from '../../model/expr.js';
import { exprAttrName } from '../../model/ir-helpers.js';
import type { OpIR, ProjectIR } from '../../model/ir.js';
import { DTYPE_INFO } from '../../model/type-table.js';
import { type EmitContext, staticText } from '../emitter.js';
import { commentText } from '../lang/literals.js';
import { pyExpr } from '../lang/py-expr.js';
import { pyAssign, pyCall, pyClass, pyCode, pyDef, pyDict, pyList, pyLit } from '../lang/python.js';

const env = {
  dim: (i: number, axis: number) => `shapes[${i}][${axis}]`,
  attr: (name: string) => `attrs[${pyLit(name)}]`,
};

/** The attributes the output dims read (their defaults apply when a node omits them). */
function attrsRead(op: OpIR): OpIR['attributes'] {
  const names = new Set<string>();
  for (const o of op.outputs)
    if (o.shape.kind === 'dims')
      for (const e of o.shape.dims)
        visitExpr(e, (x) => {
          const name = exprAttrName(x);
          if (name !== undefined) names.add(name);
        });
  return op.attributes.filter((a) => names.has(a.name));
}

function outputDtype(op: OpIR, o: OpIR['outputs'][number]): string {
  if (o.type.kind === 'fixed') return `onnx.TensorProto.${DTYPE_INFO[o.type.dtype].onnx.name}`;
  const name = o.type.name;
  const binder = op.inputs.find((i) => !i.optional && i.type.kind === 'var' && i.type.name === name)!;
  return `dtypes[${binder.index}]`;
}

function emitClass(op: OpIR): string {
  const read = attrsRead(op);
  const outputs = op.outputs.map((o) => {
    const dims =
      o.shape.kind === 'like'
        ? pyCall('list', [pyCode(`shapes[${o.shape.inputIndex}]`)])
        : pyList(o.shape.dims.map((e) => pyCode(pyExpr(e, env))));
    return [pyCode(outputDtype(op, o)), dims];
  });
  const defaults = read.flatMap((a) => (a.default === undefined ? [] : [[a.name, a.default] as const]));
  return pyClass({
    name: op.ident.pascal,
    bases: ['SpecShapeFunc'],
    decorators: [pyLit(pyCall('register_shape_func', [pyList([op.name])]))],
    doc: [`${op.domain || 'ai.onnx'}::${op.name} v${op.version}: ${commentText(op.description)}`],
    body: [
      [
        pyAssign('num_inputs', op.inputs.length),
        pyAssign(
          'required',
          op.inputs.filter((i) => !i.optional).map((i) => i.index),
        ),
        ...(read.length ? [pyAssign('defaults', pyDict(defaults))] : []),
      ].join('\n'),
      pyDef({
        name: 'outputs',
        params: 'self, dtypes: list, shapes: list, attrs: Dict[str, object]',
        returns: 'list',
        body: [
          `return ${pyLit(
            pyList(outputs, {
              multiline: true,
              comments: op.outputs.map((o) => o.name),
            }),
          )}`,
        ],
      }),
    ],
  });
}

export function emitShapeInference(project: ProjectIR, ctx: EmitContext): string {
  const classes = project.ops.map(ctx.perOp('popart/custom_shape_inference.py', emitClass));
  return `${staticText('generator/static/python/poprt_shape_inference.py')}\n\n${classes.join('\n\n\n')}`;
}
