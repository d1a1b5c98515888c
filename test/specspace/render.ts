// Renders a spec-space plan (plan.ts) as a user would write it: the YAML spec, a shared
// closed-form header, the CPU kernel (with configure() when the op has state), the CUDA kernel
// and the PyTorch reference. Kernels and reference compute the same closed form in the same
// order in double precision, so integer and bool outputs must match exactly:
//   out_o[i] = base_o + 0.25 (i % 7) + sum_k [present_k] (3 + w_ok x_k[i % n_k])   (optional k)
//                                    + sum_k w_ok x_k[i % n_k]                     (required k)
//                                    + sum_k 0.25 dimsum(k)                        (shape-only k)
//              + (attribute term + state term)
// converted to the output dtype (16-bit floats via float32; integers floored and wrapped; bool:
// odd). Every attribute and state value enters the sum, so a wrong value shows in the output.

import { DTYPE_INFO, type AttrType, type DType } from '../../generator/spec/type-table.js';
import { toSnake } from '../../generator/spec/names.js';
import type { AttrValue, CasePlan, DimE, InPlan, OutPlan, SpecPlan } from './plan.js';

const COEF = [0.125, 0.25, 0.5, 1];
const q = (s: string): string => JSON.stringify(s);  // valid in YAML double quotes, C++ needs its own
const num = (v: number): string => (Number.isInteger(v) && Math.abs(v) < 1e15 ? v.toFixed(1) : String(v));

export interface RenderedSpec { snake: string; files: Record<string, string> }

function yamlValue(type: AttrType, v: AttrValue): string {
  switch (type) {
    case 'bool': return String(v);
    case 'int': return String(v);
    case 'float': return num(v as number);
    case 'string': return q(v as string);
    case 'ints': return `[${(v as number[]).join(', ')}]`;
    case 'floats': return `[${(v as number[]).map(num).join(', ')}]`;
  }
}

function dimText(e: DimE, top = true): string {
  switch (e.k) {
    case 'int': return String(e.v);
    case 'dim': return `${e.input}[${e.axis}]`;
    case 'attr': return e.name;
    case 'bin': { const s = `${dimText(e.l, false)} ${e.op} ${dimText(e.r, false)}`; return top ? s : `(${s})`; }
    case 'call': return `${e.fn}(${dimText(e.a)}, ${dimText(e.b)})`;
  }
}

function dimPy(e: DimE): string {
  switch (e.k) {
    case 'int': return String(e.v);
    case 'dim': return `int(${e.input}.shape[${e.axis}])`;
    case 'attr': return `int(${e.name})`;
    case 'bin': return `(${dimPy(e.l)} ${e.op} ${dimPy(e.r)})`;
    case 'call': return e.fn === 'ceil_div' ? `(-((-${dimPy(e.a)}) // ${dimPy(e.b)}))` : `${e.fn}(${dimPy(e.a)}, ${dimPy(e.b)})`;
  }
}

function dimCpp(e: DimE, shapeOf: (input: string) => string): string {
  switch (e.k) {
    case 'int': return `int64_t{${e.v}}`;
    case 'dim': return `${shapeOf(e.input)}.dims[${e.axis < 0 ? `${shapeOf(e.input)}.rank - ${-e.axis}` : e.axis}]`;
    case 'attr': return `attrs.${e.name}`;
    case 'bin': return e.op === '//' ? `opforge::floorDiv(${dimCpp(e.l, shapeOf)}, ${dimCpp(e.r, shapeOf)}, ok)` : `(${dimCpp(e.l, shapeOf)} ${e.op} ${dimCpp(e.r, shapeOf)})`;
    case 'call': return e.fn === 'ceil_div' ? `opforge::ceilDiv(${dimCpp(e.a, shapeOf)}, ${dimCpp(e.b, shapeOf)}, ok)` : `std::${e.fn}<int64_t>(${dimCpp(e.a, shapeOf)}, ${dimCpp(e.b, shapeOf)})`;
  }
}

/** A dims list as users write it: a flow list (calls with commas inside) or a block list. */
function dimsYaml(dims: (DimE | '?')[], flow: boolean, indent: string): string {
  const items = dims.map((d) => (d === '?' ? "'?'" : dimText(d)));
  if (flow || !items.length) return ` [${items.join(', ')}]`;
  return items.map((s) => `\n${indent}  - ${/^[0-9]+$/.test(s) || !/[:#]/.test(s) ? s : q(s)}`).join('');
}

function specYaml(p: SpecPlan, snake: string): string {
  const L: string[] = [`# Spec-space op, seed ${p.seed} (test/specspace): a closed form of its inputs and attributes.`, `name: ${p.name}`];
  if (p.snake) L.push(`snake: ${p.snake}`);
  const g = gradPlan(p);
  if (p.domain) L.push(`domain: ${p.domain}`);
  L.push(`version: ${p.version}`);
  if (p.description) L.push(`description: ${q(p.description)}`);
  if (p.vars.length) { L.push('types:'); for (const v of p.vars) L.push(`  ${v.name}: [${v.dtypes.join(', ')}]`); }
  L.push('inputs:');
  for (const i of p.inputs) {
    L.push(`  - name: ${i.name}`, `    dtype: ${i.dtype}`);
    if (i.constraint.kind === 'like') L.push(`    shape: ${i.constraint.of}`);
    else {
      if (i.rank !== null && (i.constraint.kind === 'none' || p.seed % 2 === 0)) L.push(`    rank: ${i.rank}`);
      if (i.constraint.kind === 'dims') L.push(`    shape:${dimsYaml(i.constraint.dims, p.flow, '    ')}`);
    }
    if (i.optional) L.push('    optional: true');
    if (i.shapeOnly) L.push('    shape_only: true');
    // With a backward, optional float inputs take no gradient (the gradient op reads only required ones).
    if (g && i.optional && anyFloat(p, i.dtype)) L.push('    differentiable: false');
  }
  L.push('outputs:');
  for (const o of p.outputs) {
    L.push(`  - name: ${o.name}`, `    dtype: ${o.dtype}`);
    L.push(o.shape.kind === 'like' ? `    shape: ${o.shape.of}` : `    shape:${dimsYaml(o.shape.dims, p.flow, '    ')}`);
  }
  if (p.attrs.length) {
    L.push('attributes:');
    for (const a of p.attrs) {
      L.push(`  - name: ${a.name}`, `    type: ${a.type}`);
      if (a.required) L.push('    required: true');
      else L.push(`    default: ${yamlValue(a.type, a.default!)}`);
      if (a.enum) L.push(`    enum: [${a.enum.map((e) => (typeof e === 'string' ? q(e) : String(e))).join(', ')}]`);
      if (a.min !== undefined) L.push(`    min: ${a.min}`);
      if (a.max !== undefined) L.push(`    max: ${a.max}`);
    }
  }
  if (p.state.length) { L.push('state:'); for (const s of p.state) L.push(`  - { name: ${s.name}, type: ${s.type} }`); }
  if (p.workspace) L.push(`workspace: ${q(dimText(p.workspace))}`);
  if (g) {
    L.push('backward:', `  - op: ${g.name}`,
      `    inputs: { ${[...g.outs.map((o) => `g_${o.name}: grad(${o.name})`), ...g.ins.map((i) => `s_${i.name}: ${i.name}`)].join(', ')} }`,
      `    outputs: { ${g.ins.map((i) => `d_${i.name}: ${i.name}`).join(', ')} }`);
  }
  L.push('kernels:', `  cpu: kernels/${snake}.cpp`);
  if (p.cuda) L.push(`  cuda: kernels/${snake}.cu`);
  L.push(`  reference: kernels/${snake}_ref.py`);
  if (p.tests.length) {
    L.push('tests:');
    for (const t of p.tests) L.push(...caseYaml(p, t));
  }
  return `${L.join('\n')}\n`;
}

function caseYaml(p: SpecPlan, t: CasePlan): string[] {
  const L = ['  - inputs:'];
  for (const i of p.inputs) {
    const d = t.dims[i.name];
    if (!d) continue;
    const shape = `[${d.join(', ')}]`;
    if (t.values[i.name]) L.push(`      ${i.name}: { shape: ${shape}, values: [${t.values[i.name]!.join(', ')}] }`);
    else if (t.ranges[i.name]) L.push(`      ${i.name}: { shape: ${shape}, range: [${t.ranges[i.name]!.join(', ')}] }`);
    else L.push(`      ${i.name}: ${shape}`);
  }
  if (Object.keys(t.types).length) L.push(`    types: { ${Object.entries(t.types).map(([k, v]) => `${k}: ${v}`).join(', ')} }`);
  const attrs = p.attrs.filter((a) => a.name in t.attrs);
  if (attrs.length) {
    L.push('    attributes:');
    for (const a of attrs) L.push(`      ${a.name}: ${yamlValue(a.type, t.attrs[a.name]!)}`);
  }
  if (t.rtol !== undefined) L.push(`    rtol: ${t.rtol}`);
  if (t.atol !== undefined) L.push(`    atol: ${t.atol}`);
  return L;
}

// ---- C++ ------------------------------------------------------------------------------

const ENC: Record<AttrType, string> = { bool: 'encBool', int: 'encInt', float: 'encFloat', string: 'encString', ints: 'encInts', floats: 'encFloats' };

function valueFn(p: SpecPlan, o: OutPlan, k: number): string {
  const body = [`  double v = ${num(o.base)};`, '  v += 0.25 * static_cast<double>(i % 7);'];
  p.inputs.forEach((inp, j) => {
    if (inp.shapeOnly) { body.push(`  v += 0.25 * static_cast<double>(dimSum(io.${inp.name}));`); return; }
    const term = `if (io.${inp.name}.numel() > 0) v += ${num(o.weights[j]!)} * num(io.${inp.name}.data[i % io.${inp.name}.numel()]);`;
    body.push(inp.optional ? `  if (io.${inp.name}.present()) {\n    v += 3.0;\n    ${term}\n  }` : `  ${term}`);
  });
  body.push('  return v + extra;');
  return `/** ${o.name}[i] before conversion to its dtype. */\ntemplate <typename IoT>\nOPFORGE_HD inline double value${k}(const IoT& io, int64_t i, double extra) {\n${body.join('\n')}\n}`;
}

function formHeader(p: SpecPlan, snake: string): string {
  const attrTerm = p.attrs.map((a, k) => `  t += ${num(COEF[k % 4]!)} * ${ENC[a.type]}(attrs.${a.name});`);
  const stateTerm = p.state.map((s, k) => `  t += ${num(COEF[(k + 1) % 4]!)} * ${ENC[s.type]}(state.${s.name});`);
  const anyInput = p.inputs.some((i) => !i.shapeOnly);
  return `// Closed form of ${p.name} (spec-space seed ${p.seed}), shared by its CPU and CUDA kernels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "opforge/ops/${snake}.h"

namespace opforge {
namespace ops {
namespace ${snake} {
namespace form {

${anyInput ? `OPFORGE_HD inline double num(float16 v) { return static_cast<double>(toFloat(v)); }
OPFORGE_HD inline double num(bfloat16 v) { return static_cast<double>(toFloat(v)); }
OPFORGE_HD inline double num(bool v) { return v ? 1.0 : 0.0; }
template <typename T>
OPFORGE_HD inline double num(T v) { return static_cast<double>(v); }
` : ''}${p.inputs.some((i) => i.shapeOnly) ? `OPFORGE_HD inline int64_t dimSum(const Shape& s) {
  int64_t acc = 0;
  for (int d = 0; d < s.rank; ++d) acc += (d + 1) * s.dims[d];
  return acc % 89;
}
` : ''}
OPFORGE_HD inline int64_t wrap(double v, int64_t lo, int64_t m) {
  const int64_t u = static_cast<int64_t>(::floor(v));
  return ((u - lo) % m + m) % m + lo;
}

template <typename T> OPFORGE_HD T store(double v);
template <> OPFORGE_HD inline float store<float>(double v) { return static_cast<float>(v); }
template <> OPFORGE_HD inline double store<double>(double v) { return v; }
template <> OPFORGE_HD inline float16 store<float16>(double v) { return toFloat16(static_cast<float>(v)); }
template <> OPFORGE_HD inline bfloat16 store<bfloat16>(double v) { return toBFloat16(static_cast<float>(v)); }
template <> OPFORGE_HD inline int8_t store<int8_t>(double v) { return static_cast<int8_t>(wrap(v, -128, 256)); }
template <> OPFORGE_HD inline uint8_t store<uint8_t>(double v) { return static_cast<uint8_t>(wrap(v, 0, 256)); }
template <> OPFORGE_HD inline int32_t store<int32_t>(double v) { return static_cast<int32_t>(wrap(v, INT64_C(-2147483648), INT64_C(4294967296))); }
template <> OPFORGE_HD inline int64_t store<int64_t>(double v) { return static_cast<int64_t>(::floor(v)); }
template <> OPFORGE_HD inline bool store<bool>(double v) { return wrap(v, 0, 2) == 1; }

template <typename View>
using elem_t = typename std::remove_pointer<decltype(View::data)>::type;

inline double encBool(bool v) { return v ? 1.0 : 0.0; }
inline double encInt(int64_t v) { return static_cast<double>(((v % 97) + 97) % 97); }
inline double encFloat(float v) { return std::max(-64.0, std::min(64.0, static_cast<double>(v))); }
inline double encString(const std::string& s) {
  int64_t acc = 0;
  for (size_t p = 0; p < s.size(); ++p) acc += static_cast<int64_t>(p + 1) * static_cast<unsigned char>(s[p]);
  return static_cast<double>(acc % 101);
}
inline double encInts(const std::vector<int64_t>& xs) {
  int64_t acc = 0;
  for (size_t p = 0; p < xs.size(); ++p) acc += static_cast<int64_t>(p + 1) * static_cast<int64_t>(encInt(xs[p]));
  return static_cast<double>((acc + 3 * static_cast<int64_t>(xs.size())) % 997);
}
inline double encFloats(const std::vector<float>& xs) {
  double acc = 0.0;
  for (size_t p = 0; p < xs.size(); ++p) acc += static_cast<double>(p + 1) * encFloat(xs[p]);
  return acc + 3.0 * static_cast<double>(xs.size());
}

/** What every output element adds from the attributes and state. */
inline double extra(const Attrs&${p.attrs.length ? ' attrs' : ''}, const State&${p.state.length ? ' state' : ''}) {
  double t = 0.0;
${[...attrTerm].join('\n')}
  double u = 0.0;
${stateTerm.map((s) => s.replace('t +=', 'u +=')).join('\n')}
  return t + u;
}

${p.outputs.map((o, k) => valueFn(p, o, k)).join('\n\n')}

${workspaceFn(p)}

}  // namespace form
}  // namespace ${snake}
}  // namespace ops
}  // namespace opforge
`;
}

function shapeAccess(p: SpecPlan, ioShapes: boolean): (input: string) => string {
  return (name) => {
    const i = p.inputs.find((x) => x.name === name)!;
    return ioShapes ? (i.shapeOnly ? `io.${name}` : `io.${name}.shape`) : `inputs[${p.inputs.indexOf(i)}]`;
  };
}

function workspaceFn(p: SpecPlan): string {
  if (!p.workspace) return '/** No workspace. */\ntemplate <typename IoT>\ninline int64_t workspaceBytes(const Attrs&, const IoT&) { return 0; }';
  const usesAttrs = JSON.stringify(p.workspace).includes('"attr"');
  const usesIo = JSON.stringify(p.workspace).includes('"dim"');
  const usesOk = /ceil_div|"\/\/"/.test(JSON.stringify(p.workspace));
  return `/** Workspace bytes the spec declares: ${dimText(p.workspace)}. */
template <typename IoT>
inline int64_t workspaceBytes(const Attrs&${usesAttrs ? ' attrs' : ''}, const IoT&${usesIo ? ' io' : ''}) {
${usesOk ? '  bool ok = true;\n' : ''}  return ${dimCpp(p.workspace, shapeAccess(p, true))};
}`;
}

function bindings(p: SpecPlan): DType[][] {
  let out: DType[][] = [[]];
  for (const v of p.vars) out = out.flatMap((b) => v.dtypes.map((d) => [...b, d]));
  return out;
}

function ioType(p: SpecPlan, b: DType[]): string {
  return p.vars.length ? `Io<${b.map((d) => DTYPE_INFO[d].cpp).join(', ')}>` : 'Io';
}

function cpuKernel(p: SpecPlan, snake: string): string {
  const stores = p.outputs.map((o, k) => `  for (int64_t i = 0; i < io.${o.name}.numel(); ++i) io.${o.name}.data[i] = form::store<form::elem_t<decltype(io.${o.name})>>(form::value${k}(io, i, e));`);
  const overloads = bindings(p).map((b) => `Status cpu(const Attrs& attrs, const State& state, const ${ioType(p, b)}& io, const CpuContext& ctx) { return compute(attrs, state, io, ctx); }`);
  return `// CPU kernel of ${p.name} (spec-space seed ${p.seed}): the closed form in ${snake}_form.h.
#include <cstring>

#include "${snake}_form.h"

namespace opforge {
namespace ops {
namespace ${snake} {
namespace {

template <typename IoT>
Status compute(const Attrs& attrs, const State& state, const IoT& io, const CpuContext& ctx) {
  const int64_t need = form::workspaceBytes(attrs, io);
  if (ctx.workspaceSize < static_cast<size_t>(need)) return Status::Error("${p.name}: workspace of " + std::to_string(ctx.workspaceSize) + " bytes, needs " + std::to_string(need));
  if (need > 0) std::memset(ctx.workspace, 0xab, static_cast<size_t>(need));  // ASan catches a short allocation
  const double e = form::extra(attrs, state);
${stores.join('\n')}
  return Status::Ok();
}

}  // namespace

${overloads.join('\n')}
${p.state.length ? configureFn(p) : ''}
}  // namespace ${snake}
}  // namespace ops
}  // namespace opforge
`;
}

/** configure(): state from input 0's shape (and the first int attribute), as the reference computes it. */
function configureFn(p: SpecPlan): string {
  const intAttr = p.attrs.find((a) => a.type === 'int');
  const lines = p.state.map((s) => {
    switch (s.type) {
      case 'int': return `  state->${s.name} = (r * 7 + sum${intAttr ? ` + static_cast<int64_t>(form::encInt(attrs.${intAttr.name}))` : ''}) % 89;`;
      case 'float': return `  state->${s.name} = 0.5f * static_cast<float>(r) + 0.25f;`;
      case 'bool': return `  state->${s.name} = r % 2 == 0;`;
      case 'string': return `  state->${s.name} = std::string(static_cast<size_t>(r % 5 + 1), 'q');`;
      case 'ints': return `  state->${s.name}.assign(inputs[0].dims, inputs[0].dims + r);`;
      case 'floats': return `  state->${s.name}.clear();\n  for (int d = 0; d < r; ++d) state->${s.name}.push_back(0.5f * static_cast<float>(inputs[0].dims[d]));`;
    }
  });
  const needsSum = p.state.some((s) => s.type === 'int');
  return `
Status configure(const Attrs&${intAttr && needsSum ? ' attrs' : ''}, const Shape* inputs, State* state) {
  const int r = inputs[0].rank;
${needsSum ? '  int64_t sum = 0;\n  for (int d = 0; d < r; ++d) sum += inputs[0].dims[d];\n' : ''}${lines.join('\n')}
  return Status::Ok();
}
`;
}

function cudaKernel(p: SpecPlan, snake: string): string {
  const kernels = p.outputs.map((o, k) => `template <typename IoT>
__global__ void output${k}(IoT io, double e) {
  const int64_t n = io.${o.name}.numel();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    io.${o.name}.data[i] = form::store<form::elem_t<decltype(io.${o.name})>>(form::value${k}(io, i, e));
}`);
  const launches = p.outputs.map((o, k) => `  if (io.${o.name}.numel() > 0) {
    output${k}<<<cuda::gridFor(io.${o.name}.numel()), cuda::kBlock, 0, stream>>>(io, e);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError(kName));
  }`);
  const overloads = bindings(p).map((b) => `Status cuda(const Attrs& attrs, const State& state, const ${ioType(p, b)}& io, const CudaContext& ctx) { return launch(attrs, state, io, ctx); }`);
  return `// CUDA kernel of ${p.name} (spec-space seed ${p.seed}): the closed form in ${snake}_form.h.
#include <cuda_runtime.h>

#include "opforge/cuda_launch.h"
#include "${snake}_form.h"

namespace opforge {
namespace ops {
namespace ${snake} {
namespace {

${kernels.join('\n\n')}

template <typename IoT>
Status launch(const Attrs& attrs, const State& state, const IoT& io, const CudaContext& ctx) {
  const int64_t need = form::workspaceBytes(attrs, io);
  if (ctx.workspaceSize < static_cast<size_t>(need)) return Status::Error("${p.name}: workspace of " + std::to_string(ctx.workspaceSize) + " bytes, needs " + std::to_string(need));
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  if (need > 0 && cudaMemsetAsync(ctx.workspace, 0xab, static_cast<size_t>(need), stream) != cudaSuccess) return Status::Error("${p.name}: workspace not writable");
  const double e = form::extra(attrs, state);
${launches.join('\n')}
  return Status::Ok();
}

}  // namespace

${overloads.join('\n')}

}  // namespace ${snake}
}  // namespace ops
}  // namespace opforge
`;
}

// ---- Python reference -------------------------------------------------------------------

function pyValue(type: AttrType, v: AttrValue): string {
  if (type === 'bool') return v ? 'True' : 'False';
  if (type === 'string') return q(v as string);
  if (type === 'float') return num(v as number);
  if (type === 'floats') return `[${(v as number[]).map(num).join(', ')}]`;
  return Array.isArray(v) ? `[${v.join(', ')}]` : String(v);
}

function reference(p: SpecPlan): string {
  const params = p.inputs.map((i) => (i.optional ? `${i.name}=None` : i.name));
  const kw = p.attrs.map((a) => (a.required ? a.name : `${a.name}=${pyValue(a.type, a.default!)}`));
  const intAttr = p.attrs.find((a) => a.type === 'int');
  const stateLines = p.state.map((s) => {
    switch (s.type) {
      case 'int': return `    ${s.name} = (r * 7 + sum(dims)${intAttr ? ` + int(_enc_int(${intAttr.name}))` : ''}) % 89`;
      case 'float': return `    ${s.name} = 0.5 * r + 0.25`;
      case 'bool': return `    ${s.name} = r % 2 == 0`;
      case 'string': return `    ${s.name} = "q" * (r % 5 + 1)`;
      case 'ints': return `    ${s.name} = list(dims)`;
      case 'floats': return `    ${s.name} = [0.5 * d for d in dims]`;
    }
  });
  const ENC_PY: Record<AttrType, string> = { bool: '_enc_bool', int: '_enc_int', float: '_enc_float', string: '_enc_string', ints: '_enc_ints', floats: '_enc_floats' };
  const outs = p.outputs.map((o) => {
    const shape = o.shape.kind === 'like' ? `tuple(${o.shape.of}.shape)` : `(${o.shape.dims.map(dimPy).join(', ')}${o.shape.dims.length === 1 ? ',' : ''})`;
    const varIn = p.inputs.find((i) => !i.optional && i.dtype === o.dtype);
    const dtype = varIn ? `${varIn.name}.dtype` : `torch.${o.dtype}`;
    const terms = p.inputs.map((inp, j) => {
      if (inp.shapeOnly) return `    v = v + 0.25 * _dimsum(${inp.name})`;
      const t = `v = _term(v, idx, ${num(o.weights[j]!)}, ${inp.name})`;
      return inp.optional ? `    if ${inp.name} is not None:\n        v = v + 3.0\n        ${t}` : `    ${t}`;
    });
    return `    # ${o.name}
    shape = ${shape}
    n = _numel(shape)
    idx = torch.arange(n, dtype=torch.int64)
    v = torch.full((n,), ${num(o.base)}, dtype=torch.float64)
    v = v + 0.25 * (idx % 7).to(torch.float64)
${terms.join('\n')}
    v = v + extra
    outs.append(_store(v, ${dtype}).reshape(shape))`;
  });
  return `"""PyTorch reference of ${p.name} (spec-space seed ${p.seed}): the closed form its kernels compute."""
import torch

_WRAP = {torch.int8: (-128, 256), torch.uint8: (0, 256), torch.int32: (-2 ** 31, 2 ** 32)}


def _f32(v):
    return float(torch.tensor(float(v), dtype=torch.float32))


def _enc_bool(v):
    return 1.0 if v else 0.0


def _enc_int(v):
    return float(int(v) % 97)


def _enc_float(v):
    return max(-64.0, min(64.0, _f32(v)))


def _enc_string(s):
    acc = 0
    for p, b in enumerate(s.encode("utf-8")):
        acc += (p + 1) * b
    return float(acc % 101)


def _enc_ints(xs):
    acc = 0
    for p, v in enumerate(xs):
        acc += (p + 1) * int(_enc_int(v))
    return float((acc + 3 * len(xs)) % 997)


def _enc_floats(xs):
    acc = 0.0
    for p, v in enumerate(xs):
        acc += float(p + 1) * _enc_float(v)
    return acc + 3.0 * len(xs)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _dimsum(t):
    if t is None:
        return 0.0
    return float(sum((d + 1) * n for d, n in enumerate(t.shape)) % 89)


def _term(v, idx, w, t):
    x = t.reshape(-1).to(torch.float64)
    if x.numel() == 0:
        return v
    return v + w * x[idx % x.numel()]


def _store(v, dtype):
    if dtype in (torch.float32, torch.float64):
        return v.to(dtype)
    if dtype in (torch.float16, torch.bfloat16):
        return v.to(torch.float32).to(dtype)
    u = torch.floor(v).to(torch.int64)
    if dtype == torch.bool:
        return (u % 2) == 1
    if dtype == torch.int64:
        return u
    lo, m = _WRAP[dtype]
    return ((u - lo) % m + lo).to(dtype)


def reference(${[...params, ...(kw.length ? ['*', ...kw] : [])].join(', ')}):
    t = 0.0
${p.attrs.map((a, k) => `    t += ${num(COEF[k % 4]!)} * ${ENC_PY[a.type]}(${a.name})`).join('\n')}
    u = 0.0
${p.state.length ? `    dims = [int(d) for d in ${p.inputs[0]!.name}.shape]\n    r = len(dims)\n${stateLines.join('\n')}\n` : ''}${p.state.map((s, k) => `    u += ${num(COEF[(k + 1) % 4]!)} * ${ENC_PY[s.type]}(${s.type === 'float' ? s.name : s.type === 'floats' ? `[_f32(x) for x in ${s.name}]` : s.name})`).join('\n')}
    extra = t + u
    outs = []
${outs.join('\n')}
    return outs[0] if len(outs) == 1 else tuple(outs)
`;
}

// ---- the backward (even seeds): one gradient op for every differentiable input ----
// The closed form is linear in each input: out_o[i] += w_ok * x_k[i % n_k], so
// d x_k[j] = sum_o w_ok * sum_{i % n_k = j} g_o[i]. Odd seeds keep no backward (both kinds run).

interface GradPlan { name: string; vars: SpecPlan['vars']; outs: (OutPlan & { index: number })[]; ins: (InPlan & { index: number })[] }

/** The tensor takes gradients in some binding (a mixed float/integer variable: in its float ones). */
export function anyFloat(p: SpecPlan, dtype: string): boolean {
  const v = p.vars.find((x) => x.name === dtype);
  return (v ? v.dtypes : [dtype as DType]).some((d) => DTYPE_INFO[d].isFloat);
}

export function gradPlan(p: SpecPlan): GradPlan | undefined {
  if (p.seed % 2 !== 0) return undefined;
  const ins = p.inputs.map((i, index) => ({ ...i, index })).filter((i) => !i.optional && !i.shapeOnly && anyFloat(p, i.dtype));
  const outs = p.outputs.map((o, index) => ({ ...o, index })).filter((o) => anyFloat(p, o.dtype));
  if (!ins.length || !outs.length) return undefined;
  const used = new Set([...ins.map((i) => i.dtype), ...outs.map((o) => o.dtype)]);
  return { name: `${p.name}Grad`, vars: p.vars.filter((v) => used.has(v.name)), outs, ins };
}

/**
 * Whether a gradient op gets a CUDA kernel: most forwards with one do (--device cuda checks real
 * GPU gradients); those of seeds divisible by 3 do not, so some ops run on CUDA but cannot train
 * there (`opforge check` warns; grad:cuda reports them `cannot`). No random draw: plans stay put.
 */
export function gradHasCuda(p: SpecPlan): boolean {
  return p.cuda && p.seed % 3 !== 0;
}

function gradYaml(p: SpecPlan, g: GradPlan, snake: string): string {
  const L = [`# The gradient op of ${p.name} (spec-space seed ${p.seed}): its closed form is linear in each input.`, `name: ${g.name}`];
  if (p.snake) L.push(`snake: ${snake}_grad`);
  if (p.domain) L.push(`domain: ${p.domain}`);
  L.push('version: 1');
  if (g.vars.length) { L.push('types:'); for (const v of g.vars) L.push(`  ${v.name}: [${v.dtypes.join(', ')}]`); }
  L.push('inputs:');
  for (const o of g.outs) L.push(`  - { name: g_${o.name}, dtype: ${o.dtype} }`);
  for (const i of g.ins) L.push(`  - { name: s_${i.name}, dtype: ${i.dtype}, shape_only: true }`);
  L.push('outputs:');
  for (const i of g.ins) L.push(`  - { name: d_${i.name}, dtype: ${i.dtype}, shape: s_${i.name} }`);
  L.push('kernels:', `  cpu: kernels/${snake}_grad.cpp`, ...(gradHasCuda(p) ? [`  cuda: kernels/${snake}_grad.cu`] : []), `  reference: kernels/${snake}_grad_ref.py`);
  return `${L.join('\n')}\n`;
}

function gradCpu(p: SpecPlan, g: GradPlan, snake: string): string {
  const gs = `${snake}_grad`;
  const fake = { vars: g.vars } as SpecPlan;
  const per = g.ins.map((i) => [
    `  {  // d_${i.name}`,
    `    const int64_t n = io.d_${i.name}.numel();`,
    '    std::vector<double> acc(static_cast<size_t>(n), 0.0);',
    ...g.outs.map((o) => `    if (n > 0) for (int64_t i = 0; i < io.g_${o.name}.numel(); ++i) acc[static_cast<size_t>(i % n)] += ${num(o.weights[i.index]!)} * num(io.g_${o.name}.data[i]);`),
    `    for (int64_t i = 0; i < n; ++i) io.d_${i.name}.data[i] = store<elem_t<decltype(io.d_${i.name})>>(acc[static_cast<size_t>(i)]);`,
    '  }',
  ].join('\n'));
  return `// CPU kernel of ${g.name}: the gradient of ${p.name}'s closed form (spec-space seed ${p.seed}).
#include <type_traits>
#include <vector>

#include "opforge/ops/${gs}.h"

namespace opforge {
namespace ops {
namespace ${gs} {
namespace {

// A mixed type variable's integer binding still runs the gradient op when another input trains:
// its integer gradients are dropped, but must compute.
template <typename T> double num(T v) { return static_cast<double>(v); }
inline double num(float16 v) { return static_cast<double>(toFloat(v)); }
inline double num(bfloat16 v) { return static_cast<double>(toFloat(v)); }
inline double num(bool v) { return v ? 1.0 : 0.0; }
template <typename T> T store(double v) {
  if constexpr (std::is_same<T, bool>::value) return v != 0.0;
  else if constexpr (std::is_integral<T>::value) return static_cast<T>(static_cast<int64_t>(v));
  else return fromCompute<T>(static_cast<compute_t<T>>(v));
}
template <typename View> using elem_t = typename std::remove_pointer<decltype(View::data)>::type;

template <typename IoT>
Status compute(const IoT& io) {
${per.join('\n')}
  return Status::Ok();
}

}  // namespace

${bindings(fake).map((b) => `Status cpu(const Attrs&, const State&, const ${ioType(fake, b)}& io, const CpuContext&) { return compute(io); }`).join('\n')}

}  // namespace ${gs}
}  // namespace ops
}  // namespace opforge
`;
}

function gradCuda(p: SpecPlan, g: GradPlan, snake: string): string {
  const gs = `${snake}_grad`;
  const fake = { vars: g.vars } as SpecPlan;
  // One thread per gradient element j: the sum over i = j (mod n) of each upstream gradient.
  const kernels = g.ins.map((i, k) => `template <typename IoT>
__global__ void grad${k}(IoT io) {
  const int64_t n = io.d_${i.name}.numel();
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n; j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
${g.outs.map((o) => `    for (int64_t i = j; i < io.g_${o.name}.numel(); i += n) acc += ${num(o.weights[i.index]!)} * num(io.g_${o.name}.data[i]);`).join('\n')}
    io.d_${i.name}.data[j] = store<elem_t<decltype(io.d_${i.name})>>(acc);
  }
}`);
  const launches = g.ins.map((i, k) => `  if (io.d_${i.name}.numel() > 0) {
    grad${k}<<<cuda::gridFor(io.d_${i.name}.numel()), cuda::kBlock, 0, stream>>>(io);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError("${g.name}"));
  }`);
  return `// CUDA kernel of ${g.name}: the gradient of ${p.name}'s closed form (spec-space seed ${p.seed}).
#include <cuda_runtime.h>

#include <type_traits>

#include "opforge/cuda_launch.h"
#include "opforge/ops/${gs}.h"

namespace opforge {
namespace ops {
namespace ${gs} {
namespace {

template <typename T> __device__ double num(T v) { return static_cast<double>(v); }
__device__ inline double num(float16 v) { return static_cast<double>(toFloat(v)); }
__device__ inline double num(bfloat16 v) { return static_cast<double>(toFloat(v)); }
__device__ inline double num(bool v) { return v ? 1.0 : 0.0; }
template <typename T> __device__ T store(double v) {
  if constexpr (std::is_same<T, bool>::value) return v != 0.0;
  else if constexpr (std::is_integral<T>::value) return static_cast<T>(static_cast<int64_t>(v));
  else return fromCompute<T>(static_cast<compute_t<T>>(v));
}
template <typename View> using elem_t = typename std::remove_pointer<decltype(View::data)>::type;

${kernels.join('\n\n')}

template <typename IoT>
Status launch(const IoT& io, const CudaContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
${launches.join('\n')}
  return Status::Ok();
}

}  // namespace

${bindings(fake).map((b) => `Status cuda(const Attrs&, const State&, const ${ioType(fake, b)}& io, const CudaContext& ctx) { return launch(io, ctx); }`).join('\n')}

}  // namespace ${gs}
}  // namespace ops
}  // namespace opforge
`;
}

function gradReference(p: SpecPlan, g: GradPlan): string {
  const params = [...g.outs.map((o) => `g_${o.name}`), ...g.ins.map((i) => `s_${i.name}`)];
  const per = g.ins.map((i) => [
    `    n = s_${i.name}.numel()`,
    '    acc = torch.zeros(n, dtype=torch.float64)',
    ...g.outs.map((o) => `    if n > 0 and g_${o.name}.numel() > 0:\n        gv = g_${o.name}.detach().reshape(-1).to("cpu", torch.float64)\n        acc.index_add_(0, torch.arange(gv.numel()) % n, ${num(o.weights[i.index]!)} * gv)`),
    `    outs.append(_store(acc, s_${i.name}.dtype).reshape(s_${i.name}.shape).to(s_${i.name}.device))`,
  ].join('\n'));
  return `"""PyTorch reference of ${g.name}: the gradient of ${p.name}'s closed form (spec-space seed ${p.seed})."""
import torch


def _store(v, dtype):
    return v.to(torch.float32).to(dtype) if dtype in (torch.float16, torch.bfloat16) else v.to(dtype)


def reference(${params.join(', ')}):
    outs = []
${per.join('\n')}
    return outs[0] if len(outs) == 1 else tuple(outs)
`;
}

/** Every file of one spec, by path relative to the ops dir. */
export function renderSpec(p: SpecPlan): RenderedSpec {
  const snake = p.snake ?? toSnake(p.name);
  const files: Record<string, string> = {
    [`${snake}.yaml`]: specYaml(p, snake),
    [`kernels/${snake}_form.h`]: formHeader(p, snake),
    [`kernels/${snake}.cpp`]: cpuKernel(p, snake),
    [`kernels/${snake}_ref.py`]: reference(p),
  };
  if (p.cuda) files[`kernels/${snake}.cu`] = cudaKernel(p, snake);
  const g = gradPlan(p);
  if (g) {
    files[`${snake}_grad.yaml`] = gradYaml(p, g, snake);
    files[`kernels/${snake}_grad.cpp`] = gradCpu(p, g, snake);
    if (gradHasCuda(p)) files[`kernels/${snake}_grad.cu`] = gradCuda(p, g, snake);
    files[`kernels/${snake}_grad_ref.py`] = gradReference(p, g);
  }
  return { snake, files };
}

