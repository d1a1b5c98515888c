// out/popart/custom_shape_inference.py: what PopRT's `--custom_shape_inference` loads. One
// ShapeFunc per op, registered under the op's ONNX op_type with poprt.passes.register_shape_func,
// in the form of PopRT's custom-op example; output dtypes from the type constraints and output
// dims from the specs' expression trees (printed by py-expr.ts).

import type { OpIR, ProjectIR } from '../../model/ir.js';
import { visitExpr } from '../../model/expr.js';
import { DTYPE_INFO } from '../../model/type-table.js';
import { lines, type EmitContext } from '../emitter.js';
import { commentText, pyString } from '../lang/literals.js';
import { pyExpr } from '../lang/py-expr.js';

const env = {
  dim: (i: number, axis: number) => `shapes[${i}][${axis}]`,
  attr: (name: string) => `attrs[${pyString(name)}]`,
};

function intAttrsUsed(op: OpIR): string[] {
  const names = new Set<string>();
  for (const o of op.outputs)
    if (o.shape.kind === 'dims')
      for (const e of o.shape.dims)
        visitExpr(e, (x) => {
          if (x.kind === 'attr') names.add(x.name);
        });
  return op.attributes.filter((a) => names.has(a.name)).map((a) => a.name);
}

function outputDtype(op: OpIR, o: OpIR['outputs'][number]): string {
  if (o.type.kind === 'fixed') return `onnx.TensorProto.${DTYPE_INFO[o.type.dtype].onnx.name}`;
  const name = o.type.name;
  const binder = op.inputs.find((i) => !i.optional && i.type.kind === 'var' && i.type.name === name)!;
  return `dtypes[${binder.index}]`;
}

function emitClass(op: OpIR): string {
  const required = op.inputs.filter((i) => !i.optional).map((i) => i.index);
  const used = intAttrsUsed(op);
  const defaults = used
    .map((n) => {
      const a = op.attributes.find((x) => x.name === n)!;
      return a.default !== undefined ? `${pyString(n)}: ${String(a.default)}` : null;
    })
    .filter(Boolean);
  const outs = op.outputs.map((o) => {
    const dims =
      o.shape.kind === 'like'
        ? `list(shapes[${o.shape.inputIndex}])`
        : `[${o.shape.dims.map((e) => pyExpr(e, env)).join(', ')}]`;
    return `                (${outputDtype(op, o)}, ${dims}),  # ${o.name}`;
  });
  const cls = op.ident.pascal;
  return lines(
    `@register_shape_func([${pyString(op.name)}])`,
    `class ${cls}(ShapeFunc):`,
    `    """${op.domain}::${op.name} v${op.version}: ${commentText(op.description).replace(/"""/g, "'''")}"""`,
    '',
    '    def __call__(self, model: onnx.ModelProto, node: onnx.NodeProto) -> Tuple[onnx.ModelProto, bool]:',
    '        if _inferred(model, node):',
    '            return model, True',
    `        dtypes, shapes = _inputs(model, node, ${op.inputs.length})`,
    `        if not all(dtypes[i] and _known(shapes[i]) for i in (${required.join(', ')}${required.length === 1 ? ',' : ''})):`,
    '            return model, False',
    used.length ? `        attrs = _attributes(node, {${defaults.join(', ')}})` : null,
    '        try:',
    '            outputs = [',
    outs,
    '            ]',
    '        except (KeyError, ZeroDivisionError):  # a required attribute is missing, or a division by zero',
    '            return model, False',
    '        return _update(self, model, node, outputs)',
  );
}

export function emitShapeInference(project: ProjectIR, ctx: EmitContext): string {
  return lines(
    '# Shape and dtype inference of the opforge custom ops for PopRT:',
    '#   python -m poprt.cli --input_model model.onnx --custom_library_so_paths build/popart/custom_ops.so \\',
    '#       --custom_shape_inference out/popart/custom_shape_inference.py --run',
    "# One ShapeFunc per op (as in PopRT's custom-op example); output shapes from the specs' expressions.",
    'from typing import Dict, List, Optional, Tuple',
    '',
    'import onnx',
    'import onnx.helper',
    'import onnx.shape_inference',
    '',
    'from poprt.passes import ShapeFunc, get_dtype, get_shape, register_shape_func',
    '',
    '',
    'def _inputs(model: onnx.ModelProto, node: onnx.NodeProto, count: int) -> Tuple[list, list]:',
    '    """Dtype and shape of each input; None for an absent optional input."""',
    "    names = list(node.input) + [''] * (count - len(node.input))",
    '    dtypes = [get_dtype(model.graph, n) if n else None for n in names]',
    '    shapes = [get_shape(model.graph, n) if n else None for n in names]',
    '    return dtypes, shapes',
    '',
    '',
    'def _known(shape: Optional[List[int]]) -> bool:',
    '    """As in PopRT\'s example: a missing shape or a 0 dim means not inferred yet."""',
    '    return bool(shape) and 0 not in shape',
    '',
    '',
    'def _inferred(model: onnx.ModelProto, node: onnx.NodeProto) -> bool:',
    '    return all(get_shape(model.graph, n) and get_dtype(model.graph, n) for n in node.output if n)',
    '',
    '',
    'def _attributes(node: onnx.NodeProto, defaults: Dict[str, int]) -> Dict[str, object]:',
    '    values: Dict[str, object] = dict(defaults)',
    '    for a in node.attribute:',
    '        values[a.name] = onnx.helper.get_attribute_value(a)',
    '    return values',
    '',
    '',
    'def _update(shape_func: ShapeFunc, model: onnx.ModelProto, node: onnx.NodeProto, outputs: list) -> Tuple[onnx.ModelProto, bool]:',
    '    if any(d < 0 for _, dims in outputs for d in dims):',
    '        return model, False',
    '    for name, (dtype, dims) in zip(node.output, outputs):',
    '        if name:',
    '            model = shape_func.update_value_info(model, onnx.helper.make_tensor_value_info(name, dtype, dims))',
    '    return onnx.shape_inference.infer_shapes(model), True',
    '',
    '',
    project.ops.map(ctx.perOp('popart/custom_shape_inference.py', emitClass)).join('\n\n\n'),
  );
}
