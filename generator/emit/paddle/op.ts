// Per op: the framework-free glue (<op>_paddle.h: attribute conversion, the op core descriptor,
// which output dims depend on which input dims) and the custom op itself (<op>_op.cc:
// PD_BUILD_OP with Inputs, Outputs, Attrs, SetKernelFn, SetInferShapeFn, SetInferDtypeFn).

import type { AttrValue, AttributeIR, GradSource, InputIR, OpIR } from '../../model/ir.js';
import { coreHeaderPath, cppNamespace, noBackwardMessage, paddleOpType } from '../../model/ir-helpers.js';
import { visitExpr } from '../../model/expr.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { lines, paragraphs } from '../emitter.js';
import { braced, cppUnit, docComment, namespaceBlock, type TableRow, table } from '../lang/cpp.js';
import { cppAttrValue, cppString } from '../lang/literals.js';
import { paddleNamespace, paddlePaths } from './names.js';

/** The C++ parameter type Paddle passes an attribute as (scalars by value, the rest by const reference). */
export function paddleAttrParam(a: AttributeIR): string {
  const t = ATTR_INFO[a.type].paddle;
  return a.type === 'string' || ATTR_INFO[a.type].isList ? `const ${t}&` : t;
}

/** The `name: type` string PD_BUILD_OP's Attrs() takes. */
export function paddleAttrString(a: AttributeIR): string {
  return `${a.name}: ${ATTR_INFO[a.type].paddle}`;
}

function attrValue(a: AttributeIR): string {
  switch (a.type) {
    case 'int':
      return `static_cast<int64_t>(${a.name})`;
    case 'ints':
      return `::opforge::paddle_bridge::widen(${a.name})`;
    default:
      return a.name;
  }
}

/** The input dims an output dim reads, as DimDep initializers: `{output, axis, input, inputAxis}`. */
function dimDeps(op: OpIR): TableRow[] {
  return op.outputs.flatMap((o): TableRow[] => {
    if (o.shape.kind === 'like')
      return [
        { value: braced([o.index, -1, o.shape.inputIndex, 0].map(String)), comment: `shape of ${o.shape.input}` },
      ];
    if (o.shape.kind === 'splice') {
      const read = new Set<number>();
      for (const x of o.shape.parts) {
        if (x.kind === 'slice') read.add(x.inputIndex);
        for (const e of x.kind === 'dim' ? [x.expr] : [x.start, x.end])
          if (e)
            visitExpr(e, (y) => {
              if (y.kind === 'dim') read.add(y.inputIndex);
            });
      }
      return [...read]
        .sort((a, b) => a - b)
        .map((i) => ({
          value: braced([String(o.index), '::opforge::paddle_bridge::kSpliced', String(i), '0']),
          comment: `${o.name}: spliced`,
        }));
    }
    return o.shape.dims.flatMap((e, k) => {
      const seen = new Set<string>();
      const rows: TableRow[] = [];
      visitExpr(e, (x) => {
        const v = x.kind === 'dim' ? braced([o.index, k, x.inputIndex, x.axis].map(String)) : undefined;
        if (v && !seen.has(v)) rows.push({ value: v, comment: `${o.name}[${k}]` });
        if (v) seen.add(v);
      });
      return rows;
    });
  });
}

/** PaddleOp: the op core plus which input dims each output dim reads (Paddle's static-graph InferShape reads kDimDeps). */
function emitPaddleOpStruct(op: OpIR): string {
  const deps = dimDeps(op);
  return lines(
    docComment('The op core as the Paddle bridge runs it, plus what only Paddle asks.'),
    'struct PaddleOp : core::Core {',
    `  static constexpr int kNumDimDeps = ${deps.length};`,
    table({
      type: '::opforge::paddle_bridge::DimDep',
      name: 'kDimDeps',
      rows: deps,
      size: 'kNumDimDeps',
      prefix: 'static ',
      indent: '  ',
    }),
    '};',
  );
}

export function emitPaddleHeader(op: OpIR): string {
  const params = op.attributes.map((a) => `${paddleAttrParam(a)} ${a.name}`).join(', ');
  return cppUnit({
    comment: [
      `${op.name} for Paddle, framework-free half: PD_BUILD_OP's attribute values -> the op core's`,
      'Attrs, and the op core as the bridge runs it. Includes no Paddle header (tested without Paddle).',
    ],
    header: true,
    includes: {
      system: ['cstdint', 'string', 'vector'],
      project: [coreHeaderPath(op).include, 'opforge/paddle/bridge.h'],
    },
    namespace: paddleNamespace(op),
    body: paragraphs(
      `namespace core = ::${cppNamespace(op)};`,
      [
        docComment('The op type PD_BUILD_OP registers, and Paddle-TRT derives the plugin names from.'),
        `constexpr const char* kPaddleType = ${cppString(paddleOpType(op))};`,
      ],
      [
        docComment(
          "The op core's attributes from the values Paddle passes, in Attrs() order (integers widen to int64_t).",
        ),
        `inline core::Attrs makeAttrs(${params}) {`,
        '  core::Attrs opforge_attrs;',
        ...op.attributes.map((a) => `  opforge_attrs.${a.name} = ${attrValue(a)};`),
        '  return opforge_attrs;',
        '}',
      ],
      emitPaddleOpStruct(op),
    ),
  });
}

/** `PD_BUILD_OP(<type>)` with the op's Inputs, Outputs and Attrs (what its README shows too). */
export function pdBuildOp(op: OpIR): string {
  return lines(
    `PD_BUILD_OP(${paddleOpType(op)})`,
    `    .Inputs({${op.inputs.map(inputSlot).join(', ')}})`,
    `    .Outputs({${op.outputs.map((o) => cppString(o.name)).join(', ')}})`,
    op.attributes.length
      ? `    .Attrs({${op.attributes.map((a) => cppString(paddleAttrString(a))).join(', ')}})`
      : null,
  );
}

/** An input's entry of Inputs(): its name, paddle::Optional(name), or paddle::Vec(name) for a variadic one. */
function inputSlot(i: InputIR): string {
  return i.optional
    ? `paddle::Optional(${cppString(i.name)})`
    : i.variadic
      ? `paddle::Vec(${cppString(i.name)})`
      : cppString(i.name);
}

/** An input's parameter: a variadic input's members come as one std::vector. */
function inputParam(i: InputIR, kind: 'kernel' | 'shape' | 'dtype'): string {
  const t = kind === 'kernel' ? 'paddle::Tensor' : kind === 'shape' ? 'std::vector<int64_t>' : 'paddle::DataType';
  if (i.variadic) return `const std::vector<${t}>& ${i.name}`;
  return i.optional ? `const paddle::optional<${t}>& ${i.name}` : `const ${t}& ${i.name}`;
}

/**
 * The bridge's tensor arguments: a braced list of pointers to the inputs (null: an absent optional
 * one), then a variadic input's vector of members, which the bridge appends (tensor order).
 */
function bridgeArgs(inputs: readonly InputIR[]): string {
  const variadic = inputs.find((i) => i.variadic);
  const fixed = braced(
    inputs.filter((i) => !i.variadic).map((i) => (i.optional ? `${i.name}.get_ptr()` : `&${i.name}`)),
  );
  return variadic ? `${fixed}, ${variadic.name}` : fixed;
}

/** The namespace of an op unit's Paddle functions (Forward, InferShape, InferDtype, Backward). */
function unitNamespace(op: OpIR): string {
  return `${op.ident.snake}_paddle_unit`;
}

/** A function definition: `ret name(params) {`, the body (indented by the caller), `}`. */
function cppFn(ret: string, name: string, params: readonly string[], body: string[]): string {
  return lines(`${ret} ${name}(${params.join(', ')}) {`, body, '}');
}

/** The three functions PD_BUILD_OP / PD_BUILD_GRAD_OP register, ending the registration. */
function pdFunctions(unit: string, kernel: string, shape: string, dtype: string): string[] {
  return [
    `    .SetKernelFn(PD_KERNEL(${unit}::${kernel}))`,
    `    .SetInferShapeFn(PD_INFER_SHAPE(${unit}::${shape}))`,
    `    .SetInferDtypeFn(PD_INFER_DTYPE(${unit}::${dtype}));`,
  ];
}

/** The ops whose gradient this op's backward runs (their glue headers are included). */
function gradientOps(op: OpIR, ops: readonly OpIR[]): OpIR[] {
  return [...new Set(op.backward?.map((g) => g.op) ?? [])]
    .map((n) => ops.find((o) => o.name === n))
    .filter((o): o is OpIR => o !== undefined);
}

export function emitPaddleOp(op: OpIR, ops: readonly OpIR[] = []): string {
  const type = paddleOpType(op);
  const attrParams = op.attributes.map((a) => `${paddleAttrParam(a)} ${a.name}`);
  const attrs = `op::makeAttrs(${op.attributes.map((a) => a.name).join(', ')})`;
  const ins = bridgeArgs(op.inputs);
  const params = (kind: 'kernel' | 'shape' | 'dtype'): string[] => op.inputs.map((i) => inputParam(i, kind));
  const unit = unitNamespace(op);
  return cppUnit({
    comment: [
      `${op.name} as a Paddle custom op: PD_BUILD_OP(${type}) over the op core and its kernels.`,
      ...(op.description ? [op.description] : []),
      `Paddle-TRT runs it as the plugins ${type}_paddle_trt_plugin / ${type}_paddle_trt_dynamic_plugin (out/trt).`,
    ],
    includes: {
      system: ['cstdint', 'string', 'vector'],
      external: ['"paddle/extension.h"'],
      project: [
        paddlePaths(op).include,
        ...gradientOps(op, ops).map((o) => paddlePaths(o).include),
        'opforge/paddle/op_base.h',
      ],
    },
    body: [
      '// A named namespace (not an anonymous one): the op units can share one translation unit (a unity',
      "// build; Paddle's headers are most of a unit's compile time), and PD_BUILD_OP must stay global.",
      paragraphs(
        namespaceBlock(
          unit,
          paragraphs(
            [`namespace op = ${paddleNamespace(op)};`, 'namespace bridge = ::opforge::paddle_bridge;'],
            cppFn(
              'std::vector<paddle::Tensor>',
              'Forward',
              [...params('kernel'), ...attrParams],
              [`  return bridge::compute<op::PaddleOp>(${attrs}, ${ins});`],
            ),
            cppFn(
              'std::vector<std::vector<int64_t>>',
              'InferShape',
              [...params('shape'), ...attrParams],
              [`  return bridge::inferShape<op::PaddleOp>(${attrs}, ${ins});`],
            ),
            // The attributes too: they may choose an output's dtype.
            cppFn(
              'std::vector<paddle::DataType>',
              'InferDtype',
              [...params('dtype'), ...attrParams],
              [`  return bridge::inferDtype<op::PaddleOp>(${attrs}, ${ins});`],
            ),
          ),
        ),
        [pdBuildOp(op), ...pdFunctions(unit, 'Forward', 'InferShape', 'InferDtype')],
        op.backward ? emitGradOp(op, ops) : emitRefusedGradOp(op),
      ),
    ],
  });
}

/** A default attribute value as the Paddle-typed parameter makeAttrs() takes. */
function paddleLiteral(a: AttributeIR, v: AttrValue): string {
  if (a.type === 'int') return `static_cast<int>(${cppAttrValue(a, v)})`;
  if (a.type === 'ints')
    return `std::vector<int>{${(v as number[]).map((x) => `static_cast<int>(${cppAttrValue({ type: 'int' }, x)})`).join(', ')}}`;
  return cppAttrValue(a, v);
}

/**
 * An op whose spec declares no backward, with inputs that would take a gradient: a grad op that
 * refuses, with the message every backend gives. Without one Paddle's own error ("has no grad op,
 * consider enable prim") names neither the op nor the spec. PIR runs its InferShapeFn when
 * paddle.static.gradients builds the backward; dygraph runs its kernel in backward().
 */
function emitRefusedGradOp(op: OpIR): string | null {
  const wrt = op.inputs.filter((i) => i.differentiable && !i.variadic);
  const from = op.outputs.filter((o) => o.differentiable);
  if (wrt.length === 0 || from.length === 0) return null;
  const unit = unitNamespace(op);
  const message = 'bridge::fail(kNoBackward);';
  const params = (type: string): string[] => from.map((o) => `const ${type}& /*${o.name}_grad*/`);
  return paragraphs(
    namespaceBlock(
      unit,
      paragraphs(
        [
          docComment('The spec declares no backward: a gradient through the op is refused.'),
          `constexpr const char* kNoBackward = ${cppString(noBackwardMessage(op))};`,
        ],
        cppFn('std::vector<paddle::Tensor>', 'Backward', params('paddle::Tensor'), [`  ${message}`]),
        cppFn('std::vector<std::vector<int64_t>>', 'GradInferShape', params('std::vector<int64_t>'), [`  ${message}`]),
        cppFn('std::vector<paddle::DataType>', 'GradInferDtype', params('paddle::DataType'), [`  ${message}`]),
      ),
    ),
    [
      `PD_BUILD_GRAD_OP(${paddleOpType(op)})`,
      `    .Inputs(${braced(from.map((o) => `paddle::Grad(${cppString(o.name)})`))})`,
      `    .Outputs(${braced(wrt.map((i) => `paddle::Grad(${cppString(i.name)})`))})`,
      ...pdFunctions(unit, 'Backward', 'GradInferShape', 'GradInferDtype'),
    ],
  );
}

/**
 * PD_BUILD_GRAD_OP from the spec's backward: Paddle passes the forward tensors and output
 * gradients the gradient ops read, and the forward's attributes; Backward runs each gradient op
 * through its own Paddle bridge and returns the input gradients in Outputs() order.
 */
function emitGradOp(op: OpIR, ops: readonly OpIR[]): string {
  const type = paddleOpType(op);
  const key = (s: GradSource): string => `${s.kind}:${s.index}`;
  // What the grad kernel receives: every referenced forward input, output and output gradient, in that order.
  const used = new Map<string, GradSource>();
  for (const kind of ['input', 'output', 'grad'] as const) {
    for (const g of op.backward!) for (const s of g.inputs) if (s && s.kind === kind) used.set(key(s), s);
  }
  // Every input that gets a gradient too: the grad op's InferShapeFn and InferDtypeFn (which PIR
  // needs to build a training graph) give each input gradient its input's dims and dtype.
  const covered = op.inputs.map((_, i) => op.backward!.some((g) => g.outputs.includes(i)));
  covered.forEach((c, i) => {
    if (c && !used.has(`input:${i}`)) used.set(`input:${i}`, { kind: 'input', index: i });
  });
  const sources = [...used.values()].sort((a, b) =>
    a.kind === b.kind
      ? a.index - b.index
      : ['input', 'output', 'grad'].indexOf(a.kind) - ['input', 'output', 'grad'].indexOf(b.kind),
  );
  const varName = (s: GradSource): string =>
    s.kind === 'input'
      ? op.inputs[s.index]!.name
      : s.kind === 'output'
        ? op.outputs[s.index]!.name
        : `${op.outputs[s.index]!.name}_grad`;
  const optional = (s: GradSource): boolean => s.kind === 'input' && op.inputs[s.index]!.optional;
  // A variadic input (the gradient op's variadic input reads it: backward.ts) comes as one vector.
  const variadic = (s: GradSource | undefined): boolean => s?.kind === 'input' && !!op.inputs[s.index]!.variadic;
  const slot = (s: GradSource): string => {
    if (s.kind === 'input') return inputSlot(op.inputs[s.index]!);
    const n = cppString(op.outputs[s.index]!.name);
    return s.kind === 'grad' ? `paddle::Grad(${n})` : n;
  };
  const gradIndex = (i: number): number => covered.slice(0, i).filter(Boolean).length;
  const read = new Set(op.backward!.flatMap((g) => g.inputs.filter((s): s is GradSource => s !== undefined).map(key)));
  const gradOf = sources.filter((s) => s.kind === 'input' && covered[s.index]);
  // A parameter the function does not read keeps its name in a comment (-Wunused-parameter).
  const param = (type: string, s: GradSource, uses: boolean): string => {
    const t = variadic(s)
      ? `const std::vector<${type}>&`
      : optional(s)
        ? `const paddle::optional<${type}>&`
        : `const ${type}&`;
    return uses ? `${t} ${varName(s)}` : `${t} /*${varName(s)}*/`;
  };
  const params = [
    ...sources.map((s) => param('paddle::Tensor', s, read.has(key(s)))),
    // Paddle passes every forward attribute; a gradient op may read none of them.
    ...op.attributes.map((a) => {
      const reads = op.backward!.some((g) => g.attributes.includes(a.name));
      return `${paddleAttrParam(a)} ${reads ? a.name : `/*${a.name}*/`}`;
    }),
  ];
  const gradArgs = gradOf.map((s) => (optional(s) ? `${varName(s)}.get_ptr()` : `&${varName(s)}`)).join(', ');
  const body: string[] = [`  std::vector<paddle::Tensor> grads(${covered.filter(Boolean).length});`];
  op.backward!.forEach((g, k) => {
    const gop = ops.find((o) => o.name === g.op);
    if (!gop) throw new Error(`${op.name}: gradient op ${g.op} is not in the project`);
    const fixed = g.inputs.filter((s) => !variadic(s));
    const members = g.inputs.find(variadic);
    const args = fixed.map((s) => (s ? (optional(s) ? `${varName(s)}.get_ptr()` : `&${varName(s)}`) : 'nullptr'));
    const attrs = gop.attributes.map((a, j) => g.attributes[j] ?? paddleLiteral(a, a.default!));
    body.push(`  {  // ${g.op}`);
    body.push(
      `    const std::vector<paddle::Tensor> g${k} = bridge::compute<${paddleNamespace(gop)}::PaddleOp>(${paddleNamespace(gop)}::makeAttrs(${attrs.join(', ')}), {${args.join(', ')}}${members ? `, ${varName(members)}` : ''});`,
    );
    g.outputs.forEach((i, j) => {
      if (i !== undefined) body.push(`    grads[${gradIndex(i)}] = g${k}[${j}];  // d${op.inputs[i]!.name}`);
    });
    body.push('  }');
  });
  const unit = unitNamespace(op);
  const gradParams = (type: string): string[] => sources.map((s) => param(type, s, gradOf.includes(s)));
  const registration = [
    `PD_BUILD_GRAD_OP(${type})`,
    `    .Inputs(${braced(sources.map(slot))})`,
    `    .Outputs(${braced(op.inputs.filter((_, i) => covered[i]).map((x) => `paddle::Grad(${cppString(x.name)})`))})`,
    op.attributes.length ? `    .Attrs(${braced(op.attributes.map((a) => cppString(paddleAttrString(a))))})` : null,
    ...pdFunctions(unit, 'Backward', 'GradInferShape', 'GradInferDtype'),
  ];
  const docs = `The input gradients (Outputs() order) from the spec's backward: ${op.backward!.map((g) => g.op).join(', ')}.`;
  return paragraphs(
    namespaceBlock(
      unit,
      paragraphs(
        [docComment(docs), cppFn('std::vector<paddle::Tensor>', 'Backward', params, [...body, '  return grads;'])],
        cppFn('std::vector<std::vector<int64_t>>', 'GradInferShape', gradParams('std::vector<int64_t>'), [
          `  return bridge::gradShapes({${gradArgs}});`,
        ]),
        cppFn('std::vector<paddle::DataType>', 'GradInferDtype', gradParams('paddle::DataType'), [
          `  return bridge::gradDtypes({${gradArgs}});`,
        ]),
      ),
    ),
    registration,
  );
}
