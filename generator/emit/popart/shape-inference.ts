// out/popart/custom_shape_inference.py: what PopRT's `--custom_shape_inference` loads. The shared
// part (PopRT's imports, the input and attribute helpers, the SpecShapeFunc base running the checks)
// is generator/static/python/poprt_shape_inference.py; per op follows one SpecShapeFunc registered
// under the op's ONNX op_type with poprt.passes.register_shape_func, stating its inputs, the
// defaults of the attributes its dims read, and its outputs' dtypes (from the type constraints)
// and dims (the specs' expression trees, printed by py-expr.ts).

import { visitExpr } from '../../model/expr.js';
import { binderOf, choiceConds, exprAttrName, shapeExprs } from '../../model/ir-helpers.js';
import type { DtypeChoice, OpIR, ProjectIR } from '../../model/ir.js';
import { DTYPE_INFO, type DType } from '../../model/type-table.js';
import { type EmitContext, staticText } from '../emitter.js';
import { commentText } from '../lang/literals.js';
import { pyExpr } from '../lang/py-expr.js';
import { pyAssign, pyCall, pyClass, pyCode, pyDef, pyDict, pyList, pyLit } from '../lang/python.js';

const env = {
  dim: (i: number, axis: number) => `shapes[${i}][${axis}]`,
  rank: (i: number) => `len(shapes[${i}])`,
  count: (i: number) => `(len(shapes) - ${i})`,
  attr: (name: string) => `attrs[${pyLit(name)}]`,
};

/** The attributes the output dims read (their defaults apply when a node omits them). */
function attrsRead(op: OpIR): OpIR['attributes'] {
  const names = new Set<string>();
  const chosen = op.typeVars.flatMap((v) => (v.choice ? choiceConds(v.choice) : []));
  for (const e of [...op.outputs.flatMap((o) => shapeExprs(o.shape)), ...chosen])
    visitExpr(e, (x) => {
      const name = exprAttrName(x);
      if (name !== undefined) names.add(name);
    });
  return op.attributes.filter((a) => names.has(a.name));
}

function outputDtype(op: OpIR, o: OpIR['outputs'][number]): string {
  const proto = (d: DType): string => `onnx.TensorProto.${DTYPE_INFO[d].onnx.name}`;
  if (o.type.kind === 'fixed') return proto(o.type.dtype);
  // A member following a heterogeneous input's member: that member's dtype (node input follows +
  // index); a member the node lacks is absent (its input member too), so any dtype will do.
  if (o.type.kind === 'each') {
    const k = o.member!.follows! + o.member!.index;
    return k === 0 ? 'dtypes[0]' : `(dtypes[${k}] if len(dtypes) > ${k} else dtypes[0])`;
  }
  const name = o.type.name;
  // Chosen by the attributes: Python's own conditional over them.
  const choice = op.typeVars.find((v) => v.name === name)?.choice;
  const pick = (c: DtypeChoice): string =>
    c.kind === 'dtype' ? proto(c.dtype) : `(${pick(c.yes)} if ${pyExpr(c.cond, env)} else ${pick(c.no)})`;
  if (choice) return pick(choice);
  return `dtypes[${binderOf(op, name)!.index}]`;
}

function emitClass(op: OpIR): string {
  const read = attrsRead(op);
  const outputs = op.outputs.map((o) => {
    const s = o.shape;
    const dims =
      s.kind === 'like'
        ? pyCall('list', [pyCode(`shapes[${s.inputIndex}]`)])
        : s.kind === 'dims'
          ? pyList(s.dims.map((e) => pyCode(pyExpr(e, env))))
          : pyCode(
              s.parts
                .map((x, k) =>
                  x.kind === 'dim'
                    ? pyLit(pyList([pyCode(pyExpr(x.expr, env))]))
                    : pyLit(
                        pyCall('self.slice', [
                          pyCode(`shapes[${x.inputIndex}]`),
                          x.start === null ? null : pyCode(pyExpr(x.start, env)),
                          x.end === null ? null : pyCode(pyExpr(x.end, env)),
                          s.source[k]!.trim(),
                        ]),
                      ),
                )
                .join(' + '),
            );
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
