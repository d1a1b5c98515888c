// The op core: one C++ header per op that every backend adapter includes. It holds the
// attributes struct, validation, shape and dtype inference compiled from the IR's
// expression trees, serialization, and the kernel contract with its dtype dispatch.

import type { InputIR, OpIR } from '../../model/ir.js';
import {
  constraintReads,
  coreHeaderPath,
  cppNamespace,
  cppParam,
  dtypeUnder,
  exprReads,
  ioType,
  opHash,
  shapeReads,
} from '../../model/ir-helpers.js';
import { ATTR_INFO, DTYPE_INFO } from '../../model/type-table.js';
import { cppExpr } from '../lang/cpp-expr.js';
import {
  CACHE_FILE,
  lines,
  opFile,
  projectFile,
  staticFile,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
  STAMP_FILE,
} from '../emitter.js';
import { commentText, cppAttrValue, cppFloat, cppInt, cppString } from '../lang/literals.js';

const SHARED_HEADERS = ['core.h', 'serialize.h', 'cuda_launch.h'];

export const coreEmitter: Emitter = defineEmitter({
  name: 'core',
  project(): GeneratedFile[] {
    return [
      ...SHARED_HEADERS.map((h) => staticFile(`include/opforge/${h}`, `generator/static/cpp/opforge/${h}`)),
      // gen's bookkeeping (the no-op stamp, the incremental cache) stays out of a repository that commits out/.
      projectFile('.gitignore', lines("# gen's bookkeeping, not output:", STAMP_FILE, CACHE_FILE)),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    return [opFile(op, coreHeaderPath(op).path, emitCore(op))];
  },
});

function emitCore(op: OpIR): string {
  const ns = op.ident.snake;
  const nIn = op.inputs.length;
  const nOut = op.outputs.length;
  const desc = op.description ? `// ${commentText(op.description)}` : null;
  return lines(
    `// ${op.name} (${op.domain}::${op.name}, version ${op.version}): the op core every backend shares.`,
    desc,
    '#pragma once',
    '',
    '#include <cmath>',
    '#include <cstddef>',
    '#include <cstdint>',
    '#include <string>',
    '#include <utility>',
    '#include <vector>',
    '',
    '#include "opforge/core.h"',
    '#include "opforge/serialize.h"',
    '',
    'namespace opforge {',
    'namespace ops {',
    `namespace ${ns} {`,
    '',
    `constexpr const char* kName = ${cppString(op.name)};`,
    `constexpr const char* kDomain = ${cppString(op.domain)};`,
    `constexpr int32_t kVersion = ${op.version};`,
    `constexpr uint32_t kHash = 0x${opHash(op).toString(16).padStart(8, '0')}u;  // fnv1a("${op.domain}::${op.name}")`,
    `constexpr int kNumInputs = ${nIn};`,
    `constexpr int kNumOutputs = ${nOut};`,
    `constexpr const char* kInputNames[kNumInputs] = {${op.inputs.map((i) => cppString(i.name)).join(', ')}};`,
    `constexpr const char* kOutputNames[kNumOutputs] = {${op.outputs.map((o) => cppString(o.name)).join(', ')}};`,
    `constexpr bool kInputOptional[kNumInputs] = {${op.inputs.map((i) => String(i.optional)).join(', ')}};`,
    `constexpr bool kInputShapeOnly[kNumInputs] = {${op.inputs.map((i) => String(i.shapeOnly)).join(', ')}};`,
    `constexpr int kNumBindings = ${op.bindings.length};  // dtype combinations of the type variables`,
    '',
    emitAttrs(op),
    '',
    emitState(op),
    '',
    emitValidate(op),
    '',
    emitSerialization(op),
    '',
    emitTypes(op),
    '',
    emitShapes(op),
    '',
    emitContract(op),
    '',
    emitDispatch(op, 'cpu', 'CpuContext'),
    '',
    op.kernels.cuda
      ? emitDispatch(op, 'cuda', 'CudaContext')
      : `// No CUDA kernel in the spec: backends run ${op.name} on the CPU only.`,
    '',
    emitCoreType(op),
    '',
    `}  // namespace ${ns}`,
    '}  // namespace ops',
    '}  // namespace opforge',
  );
}

/**
 * The op core as one type. Backend adapters are templates over it (Node, PyTorch) or derive from
 * it (ONNX Runtime, PopART), so no backend lists the op's functions again. runCuda and configure
 * exist only when the op has them; kHasCuda / kHasConfigure say so for `if constexpr`.
 */
function emitCoreType(op: OpIR): string {
  const q = `::${cppNamespace(op)}`;
  return lines(
    '/** This op core as a type: what every backend adapter is instantiated with. */',
    'struct Core {',
    `  using Attrs = ${q}::Attrs;`,
    `  using State = ${q}::State;`,
    `  static constexpr const char* kName = ${q}::kName;`,
    `  static constexpr const char* kDomain = ${q}::kDomain;`,
    `  static constexpr int32_t kVersion = ${q}::kVersion;`,
    `  static constexpr int kNumInputs = ${q}::kNumInputs;`,
    `  static constexpr int kNumOutputs = ${q}::kNumOutputs;`,
    `  static constexpr int kNumBindings = ${q}::kNumBindings;`,
    `  static constexpr const char* const* kInputNames = ${q}::kInputNames;`,
    `  static constexpr const char* const* kOutputNames = ${q}::kOutputNames;`,
    `  static constexpr const bool* kInputOptional = ${q}::kInputOptional;`,
    `  static constexpr bool kHasConfigure = ${op.hasConfigure};`,
    `  static constexpr bool kHasCuda = ${op.kernels.cuda !== undefined};`,
    `  static Status validate(const Attrs& a) { return ${q}::validate(a); }`,
    `  static size_t serializedSize(const Attrs& a, const State& s) { return ${q}::serializedSize(a, s); }`,
    `  static void serialize(const Attrs& a, const State& s, void* buffer) { ${q}::serialize(a, s, buffer); }`,
    `  static Status deserialize(const void* data, size_t size, Attrs* a, State* s) { return ${q}::deserialize(data, size, a, s); }`,
    `  static Status inferTypes(const DType* in, const bool* present, DType* out, int* binding) { return ${q}::inferTypes(in, present, out, binding); }`,
    `  static Status checkShapes(const Attrs& a, const Shape* in, const bool* present) { return ${q}::checkShapes(a, in, present); }`,
    `  static Status inferShapes(const Attrs& a, const Shape* in, Shape* out) { return ${q}::inferShapes(a, in, out); }`,
    `  static Status workspaceSize(const Attrs& a, const Shape* in, size_t* bytes) { return ${q}::workspaceSize(a, in, bytes); }`,
    `  static Status runCpu(const Attrs& a, const State& s, const RawTensor* in, const RawTensor* out, const CpuContext& c) { return ${q}::runCpu(a, s, in, out, c); }`,
    op.kernels.cuda
      ? `  static Status runCuda(const Attrs& a, const State& s, const RawTensor* in, const RawTensor* out, const CudaContext& c) { return ${q}::runCuda(a, s, in, out, c); }`
      : null,
    op.hasConfigure
      ? `  static Status configure(const Attrs& a, const Shape* in, State* s) { return ${q}::configure(a, in, s); }`
      : null,
    '};',
  );
}

function emitAttrs(op: OpIR): string {
  const fields = op.attributes.map((a) => {
    const init =
      a.default !== undefined
        ? ` = ${cppAttrValue(a, a.default)}`
        : a.type === 'bool'
          ? ' = false'
          : ['int', 'float'].includes(a.type)
            ? ' = 0'
            : '';
    const note = a.required ? 'required' : '';
    const d = commentText([note, a.description].filter(Boolean).join('; '));
    return `  ${ATTR_INFO[a.type].cpp} ${a.name}${init};${d ? `  // ${d}` : ''}`;
  });
  return lines("/** Attributes, initialized to the spec's defaults. */", 'struct Attrs {', fields, '};');
}

function emitState(op: OpIR): string {
  const fields = op.state.map((s) => {
    const init = s.type === 'bool' ? '{false}' : ['int', 'float'].includes(s.type) ? '{0}' : '';
    const d = commentText(s.description);
    return `  ${ATTR_INFO[s.type].cpp} ${s.name}${init};${d ? `  // ${d}` : ''}`;
  });
  return lines(
    op.state.length
      ? '/** State that configure() computes; serialized with the attributes. */'
      : '/** No extra state: everything the kernel needs is in Attrs and the shapes. */',
    'struct State {',
    fields,
    '};',
  );
}

function emitValidate(op: OpIR): string {
  const checks: string[] = [];
  for (const a of op.attributes) {
    const isList = a.type === 'ints' || a.type === 'floats';
    const v = isList ? 'v' : `attrs.${a.name}`;
    const conds: string[] = [];
    if (a.min !== undefined)
      conds.push(`!(${v} >= ${a.type === 'float' || a.type === 'floats' ? cppFloat(a.min) : cppInt(a.min)})`);
    if (a.max !== undefined)
      conds.push(`!(${v} <= ${a.type === 'float' || a.type === 'floats' ? cppFloat(a.max) : cppInt(a.max)})`);
    if (a.type === 'float' || a.type === 'floats') conds.push(`!std::isfinite(${v})`);
    const range = [a.min !== undefined ? `>= ${a.min}` : '', a.max !== undefined ? `<= ${a.max}` : '']
      .filter(Boolean)
      .join(' and ');
    const what = range ? `finite and ${range}` : 'finite';
    if (conds.length) {
      const msg = a.type === 'float' || a.type === 'floats' ? what : range;
      const body = `return Status::Error(std::string(kName) + ": attribute ${a.name} must be ${msg}, got " + std::to_string(${v}));`;
      if (isList)
        checks.push(`  for (const auto v : attrs.${a.name}) {`, `    if (${conds.join(' || ')}) ${body}`, '  }');
      else checks.push(`  if (${conds.join(' || ')}) ${body}`);
    }
    if (a.enum) {
      const values =
        a.type === 'string' ? a.enum.map((e) => cppString(String(e))) : a.enum.map((e) => cppInt(Number(e)));
      const list = a.enum.map(String).join(', ');
      checks.push(
        `  {`,
        `    bool found = false;`,
        `    for (const auto& e : {${values.join(', ')}}) found = found || attrs.${a.name} == e;`,
        `    if (!found) return Status::Error(std::string(kName) + ": attribute ${a.name} must be one of " + std::string(${cppString(list)}));`,
        `  }`,
      );
    }
  }
  return lines(
    "/** Checks attribute values against the spec's enums and ranges. */",
    `inline Status validate(const Attrs& ${checks.length ? 'attrs' : '/*attrs*/'}) {`,
    checks,
    '  return Status::Ok();',
    '}',
  );
}

function emitSerialization(op: OpIR): string {
  const fields = [
    ...op.attributes.map((a) => ({ expr: `attrs.${a.name}`, tmp: `a.${a.name}`, name: a.name, uses: 'attrs' })),
    ...op.state.map((s) => ({ expr: `state.${s.name}`, tmp: `s.${s.name}`, name: s.name, uses: 'state' })),
  ];
  const usesAttrs = op.attributes.length > 0;
  const usesState = op.state.length > 0;
  const params = `const Attrs& ${usesAttrs ? 'attrs' : '/*attrs*/'}, const State& ${usesState ? 'state' : '/*state*/'}`;
  return lines(
    '/** Bytes serialize() writes: header plus every attribute and state field. */',
    `inline size_t serializedSize(${params}) {`,
    `  return serial::kHeaderSize${fields.map((f) => ` + serial::sizeOf(${f.expr})`).join('')};`,
    '}',
    '',
    '/** Writes exactly serializedSize() bytes to buffer. */',
    `inline void serialize(${params}, void* buffer) {`,
    '  uint8_t* body = static_cast<uint8_t*>(buffer) + serial::kHeaderSize;',
    '  serial::Writer w(body);',
    fields.map((f) => `  w.field(${f.expr});`),
    '  const auto size = static_cast<uint32_t>(w.position() - body);',
    '  serial::Writer header(buffer);',
    '  serial::writeHeader(header, static_cast<uint16_t>(kVersion), kHash, size, serial::fnv1a(body, size));',
    '}',
    '',
    '/** Reads what serialize() wrote; a truncated, oversized or corrupted buffer is an error, never an overread. */',
    'inline Status deserialize(const void* data, size_t size, Attrs* attrs, State* state) {',
    '  serial::Reader r(nullptr, 0);',
    '  OPFORGE_RETURN_IF_ERROR(serial::readHeader(data, size, static_cast<uint16_t>(kVersion), kHash, kName, r));',
    '  Attrs a;',
    '  State s;',
    fields.map((f) => `  r.field(${f.tmp}, ${cppString(f.name)});`),
    '  if (!r.ok()) return Status::Error(std::string(kName) + ": " + r.error());',
    '  if (r.remaining() != 0) return Status::Error(std::string(kName) + ": " + std::to_string(r.remaining()) + " unexpected bytes after the last field");',
    '  OPFORGE_RETURN_IF_ERROR(validate(a));',
    '  *attrs = std::move(a);',
    '  *state = std::move(s);',
    '  return Status::Ok();',
    '}',
  );
}

function emitTypes(op: OpIR): string {
  // Each type variable is bound by its first required input; the binding index is mixed-radix
  // over the variables in declaration order, matching op.bindings.
  const body: string[] = [];
  const present = (i: InputIR): string => (i.optional ? `present[${i.index}]` : 'true');
  op.typeVars.forEach((tv, k) =>
    body.push(`  DType var${k} = DType::${DTYPE_INFO[tv.dtypes[0]!].cppEnum};  // ${tv.name}`),
  );
  op.typeVars.forEach((tv, k) => {
    const binder = op.inputs.find((i) => !i.optional && i.type.kind === 'var' && i.type.name === tv.name)!;
    body.push(`  var${k} = inputs[${binder.index}];`);
    const allowed = tv.dtypes.map((d) => `var${k} == DType::${DTYPE_INFO[d].cppEnum}`).join(' || ');
    body.push(
      `  if (!(${allowed})) return Status::Error(std::string(kName) + ": input ${binder.name} has dtype " + dtypeName(var${k}) + "; ${tv.name} allows ${tv.dtypes.join(', ')}");`,
    );
  });
  for (const i of op.inputs) {
    const want =
      i.type.kind === 'fixed'
        ? `DType::${DTYPE_INFO[i.type.dtype].cppEnum}`
        : `var${op.typeVars.findIndex((t) => i.type.kind === 'var' && t.name === i.type.name)}`;
    const wantName = i.type.kind === 'fixed' ? `"${i.type.dtype}"` : `dtypeName(${want})`;
    body.push(
      `  if (${present(i) === 'true' ? '' : `${present(i)} && `}inputs[${i.index}] != ${want}) return Status::Error(std::string(kName) + ": input ${i.name} has dtype " + dtypeName(inputs[${i.index}]) + ", expected " + ${wantName});`,
    );
  }
  for (const o of op.outputs) {
    const v =
      o.type.kind === 'fixed'
        ? `DType::${DTYPE_INFO[o.type.dtype].cppEnum}`
        : `var${op.typeVars.findIndex((t) => o.type.kind === 'var' && t.name === o.type.name)}`;
    body.push(`  outputs[${o.index}] = ${v};`);
  }
  let idx = '0';
  op.typeVars.forEach((tv, k) => {
    const ord = `${tv.dtypes.map((d, j) => `var${k} == DType::${DTYPE_INFO[d].cppEnum} ? ${j}`).join(' : ')} : 0`;
    // Mixed radix, last variable fastest (the order of op.bindings): ((i0) * n1 + i1) * n2 + i2.
    idx = idx === '0' ? `(${ord})` : `(${idx}) * ${tv.dtypes.length} + (${ord})`;
  });
  body.push(`  *binding = ${idx};`);
  const usesPresent = op.inputs.some((i) => i.optional);
  return lines(
    '/**',
    ' * Checks input dtypes against the type constraints and infers output dtypes.',
    ' * binding: index of the type-variable assignment (the kernel overload to call).',
    ' */',
    `inline Status inferTypes(const DType* inputs, const bool* ${usesPresent ? 'present' : '/*present*/'}, DType* outputs, int* binding) {`,
    body,
    '  return Status::Ok();',
    '}',
  );
}

const shapeEnv = {
  dim: (i: number, axis: number) => `inputs[${i}].dims[${axis}]`,
  attr: (name: string) => `static_cast<int64_t>(attrs.${name})`,
  okVar: 'ok',
};

function emitShapes(op: OpIR): string {
  const env = shapeEnv;
  const checks: string[] = [];
  for (const i of op.inputs) {
    const guard = i.optional ? `present[${i.index}] && ` : '';
    if (i.rank !== null) {
      checks.push(
        `  if (${guard}inputs[${i.index}].rank != ${i.rank}) return Status::Error(std::string(kName) + ": input ${i.name} must have rank ${i.rank}, got " + std::to_string(inputs[${i.index}].rank));`,
      );
    } else {
      checks.push(
        `  if (${guard}(inputs[${i.index}].rank < 0 || inputs[${i.index}].rank > kMaxRank)) return Status::Error(std::string(kName) + ": input ${i.name} has rank " + std::to_string(inputs[${i.index}].rank) + ", at most " + std::to_string(kMaxRank) + " is supported");`,
      );
    }
    checks.push(
      `  for (int d = 0; ${guard ? `present[${i.index}] && ` : ''}d < inputs[${i.index}].rank; ++d) if (inputs[${i.index}].dims[d] < 0) return Status::Error(std::string(kName) + ": input ${i.name} has a negative dim");`,
    );
    const c = i.constraint;
    if (c.kind === 'like') {
      checks.push(
        `  if (${guard}inputs[${i.index}] != inputs[${c.inputIndex}]) return Status::Error(std::string(kName) + ": input ${i.name} must have the shape of ${c.input} " + inputs[${c.inputIndex}].str() + ", got " + inputs[${i.index}].str());`,
      );
    } else if (c.kind === 'dims') {
      c.dims.forEach((d, axis) => {
        if (d.kind !== 'expr') return;
        const src = commentText(d.source).replace(/["\\]/g, '');
        checks.push(
          `  if (${guard}inputs[${i.index}].dims[${axis}] != ${cppExpr(d.expr, env)}) return Status::Error(std::string(kName) + ": dim ${axis} of input ${i.name} must equal ${src}, got " + std::to_string(inputs[${i.index}].dims[${axis}]));`,
        );
      });
    }
  }
  const infer: string[] = [];
  for (const o of op.outputs) {
    if (o.shape.kind === 'like') {
      infer.push(`  outputs[${o.index}] = inputs[${o.shape.inputIndex}];  // shape of ${o.shape.input}`);
      continue;
    }
    infer.push(`  outputs[${o.index}].rank = ${o.shape.dims.length};`);
    o.shape.dims.forEach((e, k) => {
      infer.push(
        `  outputs[${o.index}].dims[${k}] = ${cppExpr(e, env)};  // ${commentText(o.shape.kind === 'dims' ? o.shape.source[k]! : '')}`,
      );
    });
    infer.push(
      `  for (int d = 0; d < outputs[${o.index}].rank; ++d) if (outputs[${o.index}].dims[d] < 0) return Status::Error(std::string(kName) + ": output ${o.name} would have negative dim " + std::to_string(d) + " (" + std::to_string(outputs[${o.index}].dims[d]) + ")");`,
    );
  }
  const divCheck = (what: string) =>
    `  if (!ok) return Status::Error(std::string(kName) + ": division by zero in ${what}");`;
  // Parameters are named only when the compiled expressions read them: output shapes may read
  // only attributes (`[num_segments]`) or only constants (`[4, 2]`), the workspace likewise.
  // checkShapes always reads `inputs` (every input's rank is checked).
  const check = constraintReads(op.inputs.map((i) => i.constraint));
  const out = shapeReads(op.outputs.map((o) => o.shape));
  const wsReads = exprReads([op.workspace]);
  const usesPresent = op.inputs.some((i) => i.optional);
  const ws = cppExpr(op.workspace, env);
  return lines(
    '/** Checks input ranks and every dim the spec constrains. present[i] is false for an absent optional input. */',
    `inline Status checkShapes(const Attrs& ${cppParam('attrs', check.attrs)}, const Shape* inputs, const bool* ${cppParam('present', usesPresent)}) {`,
    check.division ? '  bool ok = true;' : null,
    checks,
    check.division ? divCheck('an input shape constraint') : null,
    '  return Status::Ok();',
    '}',
    '',
    "/** Output shapes from the spec's shape expressions. Call after checkShapes(). */",
    `inline Status inferShapes(const Attrs& ${cppParam('attrs', out.attrs)}, const Shape* ${cppParam('inputs', out.dims)}, Shape* outputs) {`,
    out.division ? '  bool ok = true;' : null,
    infer,
    out.division ? divCheck('an output shape') : null,
    '  return Status::Ok();',
    '}',
    '',
    '/** Scratch bytes the kernel needs for these input shapes. */',
    `inline Status workspaceSize(const Attrs& ${cppParam('attrs', wsReads.attrs)}, const Shape* ${cppParam('inputs', wsReads.dims)}, size_t* bytes) {`,
    wsReads.division ? '  bool ok = true;' : null,
    `  const int64_t n = ${ws};`,
    wsReads.division ? divCheck('the workspace size') : null,
    '  if (n < 0) return Status::Error(std::string(kName) + ": negative workspace size " + std::to_string(n));',
    '  *bytes = static_cast<size_t>(n);',
    '  return Status::Ok();',
    '}',
  );
}

function ioFields(op: OpIR, typeName: (t: OpIR['inputs'][number]['type']) => string): string[] {
  const fields: string[] = [];
  for (const i of op.inputs) {
    const d = commentText(
      [i.optional ? 'optional: data is null when absent' : '', i.description].filter(Boolean).join('; '),
    );
    if (i.shapeOnly) fields.push(`  Shape ${i.name};  // shape only${d ? `; ${d}` : ''}`);
    else fields.push(`  TensorView<const ${typeName(i.type)}> ${i.name};${d ? `  // ${d}` : ''}`);
  }
  for (const o of op.outputs) {
    const d = commentText(o.description);
    fields.push(`  TensorView<${typeName(o.type)}> ${o.name};${d ? `  // ${d}` : ''}`);
  }
  return fields;
}

function emitContract(op: OpIR): string {
  const templ = op.typeVars.length ? `template <${op.typeVars.map((t) => `typename ${t.name}`).join(', ')}>` : null;
  const typeName = (t: OpIR['inputs'][number]['type']): string =>
    t.kind === 'fixed' ? DTYPE_INFO[t.dtype].cpp : t.name;
  const decls: string[] = [];
  const devices: [string, string][] = [['cpu', 'CpuContext']];
  if (op.kernels.cuda) devices.push(['cuda', 'CudaContext']);
  for (const [fn, ctx] of devices) {
    decls.push(
      `// ${fn === 'cpu' ? `CPU kernel, in ${op.kernels.cpu}` : `CUDA kernel, in ${op.kernels.cuda!}: launch on ctx.stream, return without synchronizing`}`,
    );
    for (const b of op.bindings)
      decls.push(
        `Status ${fn}(const Attrs& attrs, const State& state, const ${ioType(op, b)}& io, const ${ctx}& ctx);`,
      );
  }
  return lines(
    '// ---- Kernel contract ------------------------------------------------------------',
    '// The kernel files named by the spec define these functions, one overload per dtype',
    '// combination. Tensors are contiguous, row-major; shapes have been checked.',
    templ,
    'struct Io {',
    ioFields(op, typeName),
    '};',
    '',
    decls,
    op.hasConfigure
      ? [
          '',
          '/** Fills State from the attributes and input shapes (in the CPU kernel file); called before the first run. */',
          'Status configure(const Attrs& attrs, const Shape* inputs, State* state);',
        ]
      : null,
  );
}

function emitDispatch(op: OpIR, fn: 'cpu' | 'cuda', ctxType: string): string {
  const cases: string[] = [];
  op.bindings.forEach((b, k) => {
    cases.push(`    case ${k}: {`);
    cases.push(`      ${ioType(op, b)} io;`);
    for (const i of op.inputs) {
      if (i.shapeOnly) cases.push(`      io.${i.name} = inputs[${i.index}].shape;`);
      else cases.push(`      io.${i.name} = view<const ${DTYPE_INFO[dtypeUnder(i.type, b)].cpp}>(inputs[${i.index}]);`);
    }
    for (const o of op.outputs)
      cases.push(`      io.${o.name} = view<${DTYPE_INFO[dtypeUnder(o.type, b)].cpp}>(outputs[${o.index}]);`);
    cases.push(`      return ${fn}(attrs, state, io, ctx);`);
    cases.push('    }');
  });
  const name = fn === 'cpu' ? 'runCpu' : 'runCuda';
  return lines(
    `/** Types raw tensors by dtype and calls the ${fn.toUpperCase()} kernel. Checks dtypes; shapes must have been checked. */`,
    `inline Status ${name}(const Attrs& attrs, const State& state, const RawTensor* inputs, const RawTensor* outputs, const ${ctxType}& ctx) {`,
    '  DType inDtypes[kNumInputs] = {};',
    '  bool present[kNumInputs] = {};',
    '  for (int i = 0; i < kNumInputs; ++i) {',
    '    inDtypes[i] = inputs[i].dtype;',
    '    present[i] = inputs[i].present;',
    '    if (!present[i] && !kInputOptional[i]) return Status::Error(std::string(kName) + ": input " + kInputNames[i] + " is required");',
    '  }',
    '  DType outDtypes[kNumOutputs] = {};',
    '  int binding = -1;',
    '  OPFORGE_RETURN_IF_ERROR(inferTypes(inDtypes, present, outDtypes, &binding));',
    '  for (int o = 0; o < kNumOutputs; ++o) {',
    '    if (outputs[o].dtype != outDtypes[o]) return Status::Error(std::string(kName) + ": output " + kOutputNames[o] + " has dtype " + dtypeName(outputs[o].dtype) + ", expected " + dtypeName(outDtypes[o]));',
    '  }',
    '  switch (binding) {',
    cases,
    '    default:',
    '      return Status::Error(std::string(kName) + ": no kernel for these dtypes");',
    '  }',
    '}',
  );
}
