// One Python module per op (out/python/opforge_ops/ops/<snake>.py): the op's facts as an
// OpInfo, its shape function compiled from the spec's expressions, the public function and the
// dynamo exporter's onnxscript translation. Behaviour lives in the shared _runtime.py.

import type { OpIR, TestCaseIR } from '../../model/ir.js';
import { allowedDtypes, minOutputs, onnxOpName, variadicInput } from '../../model/ir-helpers.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { commentText } from '../lang/literals.js';
import { pyExpr, type PyExprEnv, type PyHelperOp } from '../lang/py-expr.js';
import { pyAttr, pyChecks, pyInput, pyOutputShape } from '../lang/py-shared.js';
import {
  argDocs,
  attrDict,
  outputDtypeArgs,
  opParams,
  dataDimsKeyword,
  presentKeyword,
  pyAttrValue,
  pyGradient,
  returnType,
  typeVarOf,
  typingImport,
} from '../lang/py-op.js';
import {
  type PyImport,
  type PyValue,
  pyAssign,
  pyCall,
  pyCode,
  pyDef,
  pyFloat,
  pyList,
  pyLit,
  pyModule,
  pyTuple,
} from '../lang/python.js';
import { torchSchemaArgs } from '../torch/schema.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

const HELPERS: Record<PyHelperOp, string> = {
  '+': 'add',
  '-': 'sub',
  '*': 'mul',
  '//': 'floordiv',
  '%': 'mod',
  ceil_div: 'ceil_div',
  max: 'max_',
  min: 'min_',
  floor: 'floor_scaled',
  ceil: 'ceil_scaled',
  cmp: 'compare',
  and: 'and_',
  or: 'or_',
  not: 'not_',
  if: 'if_',
};

/** Dims through the runtime's helpers: they accept ints, SymInts, ONNX dim names and None alike. */
const RUNTIME_DIMS: PyExprEnv = {
  dim: (i, axis) => `_rt.dim(shapes, ${i}, ${axis})`,
  rank: (i) => `_rt.rank(shapes, ${i})`,
  // A variadic input's members are the shapes from its index on.
  count: (i) => `(len(shapes) - ${i})`,
  attr: (name) => `attrs[${JSON.stringify(name)}]`,
  helper: (op) => `_rt.${HELPERS[op]}`,
};

const rows = { multiline: true } as const;

function outputShapesFn(op: OpIR): string {
  const shapes = op.outputs.map((o) => {
    const s = o.shape;
    if (s.kind === 'like') return pyCall('_rt.like', [pyCode('shapes'), s.inputIndex]);
    if (s.kind === 'dims') return pyCode(`[${s.dims.map((e) => pyExpr(e, RUNTIME_DIMS)).join(', ')}]`);
    const parts = s.parts.map((x, k) => {
      if (x.kind === 'dim') return `[${pyExpr(x.expr, RUNTIME_DIMS)}]`;
      const start = x.start === null ? '0' : pyExpr(x.start, RUNTIME_DIMS);
      const end = x.end === null ? RUNTIME_DIMS.rank(x.inputIndex) : pyExpr(x.end, RUNTIME_DIMS);
      const what = `${op.name}: output ${o.name}: slice ${s.source[k]!.trim()}`;
      return pyCall('_rt.slice_of', [pyCode('shapes'), x.inputIndex, pyCode(start), pyCode(end), what]);
    });
    return pyCall(
      '_rt.splice',
      parts.map((x) => (typeof x === 'string' ? pyCode(x) : x)),
    );
  });
  const sources = op.outputs.map((o) =>
    commentText(
      `${o.name}: ${o.shape.kind === 'like' ? `shape of ${o.shape.input}` : `[${o.shape.source.join(', ')}]`}`,
    ),
  );
  return pyDef({
    name: 'output_shapes',
    params: 'shapes, attrs',
    doc: ['Output dims from input dims (int, SymInt, ONNX dim name or None), per the spec.'],
    body: [`return ${pyLit(pyList(shapes, { ...rows, comments: sources }))}`],
  });
}

function testCase(op: OpIR, t: TestCaseIR): PyValue {
  const entry = (ti: TestCaseIR['inputs'][number]): PyValue => [
    ti.shape,
    ti.values?.map(pyFloat),
    ti.range.map(pyFloat),
  ];
  const inputs = op.inputs.map((inp) => {
    const given = t.inputs.filter((x) => x.name === inp.name);
    if (inp.variadic) return pyTuple(given.map(entry));
    return given[0] && entry(given[0]);
  });
  const attributes = Object.fromEntries(
    Object.entries(t.attributes).map(([k, v]) => [k, pyAttrValue(op.attributes.find((x) => x.name === k)!.type, v)]),
  );
  return pyCall('_rt.TestCase', [], {
    inputs,
    dtypes: t.binding.vars,
    attributes,
    rtol: t.rtol,
    atol: t.atol,
    seed: t.seed,
  });
}

function opInfo(op: OpIR): string {
  return pyAssign(
    '_OP',
    pyCall(
      '_rt.OpInfo',
      [],
      {
        name: op.name,
        domain: op.domain,
        version: op.version,
        snake: op.ident.snake,
        doc: op.description,
        inputs: pyTuple(
          op.inputs.map((i) => pyInput(i, typeVarOf(i))),
          rows,
        ),
        outputs: pyTuple(
          op.outputs.map((o) => {
            const dt = outputDtypeArgs(op, o);
            return pyCall('_rt.Output', [o.name, allowedDtypes(o.type), typeVarOf(o), dt.from, o.differentiable], {
              shape: pyOutputShape(o),
              ...dt.keywords,
              ...presentKeyword(o),
              ...dataDimsKeyword(o),
            });
          }),
          rows,
        ),
        attributes: pyTuple(
          op.attributes.map((a) => pyAttr(a, a.description)),
          rows,
        ),
        type_vars: pyTuple(
          op.typeVars.map((tv) => [tv.name, tv.dtypes]),
          rows,
        ),
        torch_schema: torchSchemaArgs(op),
        output_shapes: pyCode('output_shapes'),
        reference: pyCode('_reference'),
        tests: pyTuple(
          op.tests.map((t) => testCase(op, t)),
          rows,
        ),
        has_cuda: hasCudaKernel(op),
        backward: op.backward && pyTuple(op.backward.map(pyGradient), rows),
        spec: op.source.relFile,
        ...pyChecks(op),
      },
      rows,
    ),
  );
}

function publicFn(op: OpIR): string {
  const args = `_OP, ${pyLit(op.inputs.map((i) => pyCode(i.name)))}, ${attrDict(op)}`;
  // The operator returns every output; the function the present ones (`present:`).
  const kept = (call: string): string =>
    minOutputs(op) === op.outputs.length ? call : `_rt.present_outputs(_OP, ${call}, ${attrDict(op)})`;
  return pyDef({
    name: op.ident.snake,
    params: opParams(op, 'torch.Tensor'),
    returns: returnType(op, 'torch.Tensor'),
    doc: [
      `${op.name} (ONNX ${commentText(onnxOpName(op))}, version ${op.version})${op.description ? `: ${commentText(op.description)}` : '.'}`,
      '',
      ...argDocs(op),
    ],
    body: [...directCall(op, args, kept), `return ${kept(`_rt.call(${args})`)}`],
  });
}

/**
 * The direct path: the compiled op called through its slot when the tests only Python
 * can make pass (torch.compile and tracing take the checked path; attribute types exactly). The
 * extension's own Autograd kernels train it on any torch version; failures re-run the checks,
 * and a failure they do not explain (an output that does not fit in memory) gets the op's name.
 */
function directCall(op: OpIR, args: string, kept: (call: string) => string): string[] {
  const call = pyCall(
    '_DIRECT[0]',
    op.inputs.map((i) => pyCode(i.name)),
    Object.fromEntries(op.attributes.map((a) => [a.name, pyCode(a.name)])),
  );
  const cond = [
    '_DIRECT[0] is not None and not _rt.compiling() and not _rt.tracing()',
    ...op.attributes.map((a) => ATTR_INFO[a.type].pyDirectTest(a.name)),
  ];
  return [
    `if (${cond.join('\n        and ')}):`,
    '    try:',
    `        return ${kept(pyLit(call))}`,
    "    except Exception as error__:  # the wrapper's own message when its checks find the fault",
    `        _rt.checked(${args})`,
    '        raise _rt.named_error(_OP, error__)',
  ];
}

function translationFn(op: OpIR): string {
  // ONNX has no bool attribute: bools travel as INT, as in the legacy exporter's `_i` suffix.
  const attrs = op.attributes.map((a) => {
    const v = pyCode(a.name);
    if (a.type === 'bool') return [a.name, pyCall('int', [v])] as const;
    if (a.type === 'ints' || a.type === 'floats')
      return [a.name, pyCall('_rt.onnx_list_attr', [a.type, a.name, v])] as const;
    return [a.name, v] as const;
  });
  const optional = minOutputs(op) < op.outputs.length;
  // With `present:` outputs the node has the present ones (node_outputs cuts it to them). A
  // variadic input comes as a list, its members the node's last inputs. Such an op's inputs go by
  // name: torch's exporter (2.13) binds a variadic parameter to every positional argument, the
  // inputs before it too, which would repeat them on the node.
  const inputs = op.inputs.map((i) => [i.name, pyCode(i.name)] as const);
  const node = variadicInput(op)
    ? pyCall(`_rt.onnxscript_opset(_OP).${op.name}`, [], Object.fromEntries([...inputs, ...attrs]))
    : pyCall(
        `_rt.onnxscript_opset(_OP).${op.name}`,
        inputs.map(([, v]) => v),
        Object.fromEntries(attrs),
      );
  return pyDef({
    name: 'onnx_translation',
    params: opParams(op, undefined),
    doc: [`For the dynamo exporter's custom_translation_table: one ${commentText(onnxOpName(op))} node.`],
    body: optional
      ? [`flags__ = _rt.present_flags(_OP, ${attrDict(op)})`, `return _rt.node_outputs(${pyLit(node)}, sum(flags__))`]
      : [`return ${pyLit(node)}`],
  });
}

export function opModule(op: OpIR): string {
  const desc = commentText(op.description);
  const imports: PyImport[] = [
    { module: '__future__', names: ['annotations'] },
    typingImport(op, ['Optional', 'Sequence', 'Tuple']),
    { module: 'torch' },
    { module: '..', names: ['_runtime as _rt'] },
  ];
  return pyModule({
    doc: [`${op.name}: ${commentText(onnxOpName(op))}, version ${op.version}.`, ...(desc ? ['', desc] : [])],
    imports,
    blocks: [
      // Imported at its first call: a module it imports that this Python lacks fails this op alone.
      op.kernels.reference
        ? pyAssign(
            '_reference',
            pyCall('_rt.lazy_reference', [pyCode('__package__'), op.ident.snake, op.name, op.kernels.reference]),
          )
        : pyAssign('_reference', null, { comment: 'the spec names no kernels.reference' }),
      outputShapesFn(op),
      `${opInfo(op)}\n${pyAssign('_DIRECT', pyCall('_rt.direct_slot', [pyCode('_OP')]), { comment: 'the compiled op, once the extension has it' })}`,
      publicFn(op),
      translationFn(op),
    ],
  });
}
