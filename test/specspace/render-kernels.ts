// The rendered op's C++: the closed-form header, the CPU kernel (with configure() for state) and
// the CUDA kernel.

import { DTYPES, DTYPE_INFO, type AttrType, type DType } from '../../generator/model/type-table.js';
import type { OutPlan, SpecPlan } from './plan.js';
import { COEF, dimCpp, dimText, num } from './render-common.js';

export const ENC: Record<AttrType, string> = {
  bool: 'encBool',
  int: 'encInt',
  float: 'encFloat',
  string: 'encString',
  ints: 'encInts',
  floats: 'encFloats',
};

export function valueFn(p: SpecPlan, o: OutPlan, k: number): string {
  const body = [`  double v = ${num(o.base)};`, '  v += 0.25 * static_cast<double>(i % 7);'];
  p.inputs.forEach((inp, j) => {
    if (inp.shapeOnly) {
      body.push(`  v += 0.25 * static_cast<double>(dimSum(io.${inp.name}));`);
      return;
    }
    if (inp.variadic) {
      // Member m weighs (m + 1) times the input's weight: a dropped or reordered member shows. A
      // heterogeneous input's member is read by its own dtype (numAt).
      const x = `io.${inp.name}[m]`;
      const at = `i % ${x}.numel()`;
      body.push(
        `  for (int m = 0; m < io.${inp.name}.size(); ++m)`,
        `    if (${x}.numel() > 0) v += ${num(o.weights[j]!)} * (m + 1) * ${inp.variadic.each ? `numAt(${x}, ${at})` : `num(${x}.data[${at}])`};`,
      );
      return;
    }
    const term = `if (io.${inp.name}.numel() > 0) v += ${num(o.weights[j]!)} * num(io.${inp.name}.data[i % io.${inp.name}.numel()]);`;
    body.push(inp.optional ? `  if (io.${inp.name}.present()) {\n    v += 3.0;\n    ${term}\n  }` : `  ${term}`);
  });
  body.push('  return v + extra;');
  return `/** ${o.name}[i] before conversion to its dtype. */\ntemplate <typename IoT>\nOPFORGE_HD inline double value${k}(const IoT& io, int64_t i, double extra) {\n${body.join('\n')}\n}`;
}

export function formHeader(p: SpecPlan, snake: string): string {
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

${
  anyInput
    ? `OPFORGE_HD inline double num(float16 v) { return static_cast<double>(toFloat(v)); }
OPFORGE_HD inline double num(bfloat16 v) { return static_cast<double>(toFloat(v)); }
OPFORGE_HD inline double num(bool v) { return v ? 1.0 : 0.0; }
template <typename T>
OPFORGE_HD inline double num(T v) { return static_cast<double>(v); }
`
    : ''
}${
  p.inputs.some((i) => i.variadic?.each)
    ? `/** Element i of a heterogeneous member, by its own dtype. */
OPFORGE_HD inline double numAt(const AnyTensorView& t, int64_t i) {
  switch (t.dtype) {
${DTYPES.map((d) => `    case DType::${DTYPE_INFO[d].cppEnum}: return num(t.as<${DTYPE_INFO[d].cpp}>().data[i]);`).join('\n')}
  }
  return 0.0;
}
`
    : ''
}${
  p.inputs.some((i) => i.shapeOnly)
    ? `OPFORGE_HD inline int64_t dimSum(const Shape& s) {
  int64_t acc = 0;
  for (int d = 0; d < s.rank; ++d) acc += (d + 1) * s.dims[d];
  return acc % 89;
}
`
    : ''
}
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
${
  p.outputs.some((o) => o.variadic?.follows)
    ? `/** Element i of a member of an output following a heterogeneous input, by the member's own dtype. */
OPFORGE_HD inline void storeAt(const AnyOutputView& t, int64_t i, double v) {
  switch (t.dtype) {
${DTYPES.map((d) => `    case DType::${DTYPE_INFO[d].cppEnum}: t.as<${DTYPE_INFO[d].cpp}>().data[i] = store<${DTYPE_INFO[d].cpp}>(v); return;`).join('\n')}
  }
}
`
    : ''
}
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

export function shapeAccess(p: SpecPlan, ioShapes: boolean): (input: string) => string {
  return (name) => {
    const i = p.inputs.find((x) => x.name === name)!;
    return ioShapes
      ? i.shapeOnly
        ? `io.${name}`
        : i.variadic
          ? `io.${name}[0].shape`
          : `io.${name}.shape`
      : `inputs[${p.inputs.indexOf(i)}]`;
  };
}

export function workspaceFn(p: SpecPlan): string {
  if (!p.workspace)
    return '/** No workspace. */\ntemplate <typename IoT>\ninline int64_t workspaceBytes(const Attrs&, const IoT&) { return 0; }';
  const usesAttrs = /"(attr|elem|len)"/.test(JSON.stringify(p.workspace));
  // Dims, and a type variable's sizeof (its tensor's elements); a dtype's sizeof is a constant.
  const usesIo = /"k":"dim"|"k":"sizeof","type":"[^"]*","input"/.test(JSON.stringify(p.workspace));
  const usesOk = /ceil_div|"\/\/"/.test(JSON.stringify(p.workspace));
  return `/** Workspace bytes the spec declares: ${dimText(p.workspace)}. */
template <typename IoT>
inline int64_t workspaceBytes(const Attrs&${usesAttrs ? ' attrs' : ''}, const IoT&${usesIo ? ' io' : ''}) {
${usesOk ? '  bool ok = true;\n' : ''}  return ${dimCpp(p.workspace, shapeAccess(p, true))};
}`;
}

export function bindings(p: SpecPlan): DType[][] {
  let out: DType[][] = [[]];
  for (const v of p.vars) out = out.flatMap((b) => v.dtypes.map((d) => [...b, d]));
  return out;
}

export function ioType(p: SpecPlan, b: DType[]): string {
  return p.vars.length ? `Io<${b.map((d) => DTYPE_INFO[d].cpp).join(', ')}>` : 'Io';
}

export function cpuKernel(p: SpecPlan, snake: string): string {
  const stores = p.outputs.map((o, k) => {
    // A variadic output: each member m, its closed form plus m.
    if (o.variadic)
      return `  for (int m = 0; m < io.${o.name}.size(); ++m)
    for (int64_t i = 0; i < io.${o.name}[m].numel(); ++i) ${memberStore(o, k, 'e')}`;
    const store = `io.${o.name}.data[i] = form::store<form::elem_t<decltype(io.${o.name})>>(form::value${k}(io, i, e));`;
    // A dim the kernel decides: half its bound kept, the leading part of the closed form written.
    if (o.dataDim)
      return `  io.${o.dataDim.name}.set(io.${o.dataDim.name}.bound / 2);
  for (int64_t i = 0; i < ${keptNumel(o)}; ++i) ${store}`;
    return `  ${o.present ? `if (io.${o.name}.present()) ` : ''}for (int64_t i = 0; i < io.${o.name}.numel(); ++i) ${store}`;
  });
  const overloads = bindings(p).map(
    (b) =>
      `Status cpu(const Attrs& attrs, const State& state, const ${ioType(p, b)}& io, const CpuContext& ctx) { return compute(attrs, state, io, ctx); }`,
  );
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
  // Exactly the spec's size: a backend that allocates more (sizeof(T) of the wrong dtype) fails too.
  if (ctx.workspaceSize != static_cast<size_t>(need)) return Status::Error("${p.name}: workspace of " + std::to_string(ctx.workspaceSize) + " bytes, the spec says " + std::to_string(need));
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
export function configureFn(p: SpecPlan): string {
  const intAttr = p.attrs.find((a) => a.type === 'int');
  const lines = p.state.map((s) => {
    switch (s.type) {
      case 'int':
        return `  state->${s.name} = (r * 7 + sum${intAttr ? ` + static_cast<int64_t>(form::encInt(attrs.${intAttr.name}))` : ''}) % 89;`;
      case 'float':
        return `  state->${s.name} = 0.5f * static_cast<float>(r) + 0.25f;`;
      case 'bool':
        return `  state->${s.name} = r % 2 == 0;`;
      case 'string':
        return `  state->${s.name} = std::string(static_cast<size_t>(r % 5 + 1), 'q');`;
      case 'ints':
        return `  state->${s.name}.assign(inputs[0].dims, inputs[0].dims + r);`;
      case 'floats':
        return `  state->${s.name}.clear();\n  for (int d = 0; d < r; ++d) state->${s.name}.push_back(0.5f * static_cast<float>(inputs[0].dims[d]));`;
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

/** The elements of output `o` the kernels write: all, or with a data dim at half its bound, the leading part. */
function keptNumel(o: OutPlan): string {
  const d = o.dataDim!.name;
  return `(io.${d}.bound > 0 ? io.${o.name}.numel() / io.${d}.bound * (io.${d}.bound / 2) : 0)`;
}

export function cudaKernel(p: SpecPlan, snake: string): string {
  const kernels = p.outputs.map((o, k) =>
    o.variadic
      ? `template <typename IoT>
__global__ void output${k}(IoT io, double e, int m) {
  const int64_t n = io.${o.name}[m].numel();
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    ${memberStore(o, k, 'e')}
}`
      : `template <typename IoT>
__global__ void output${k}(IoT io, double e) {
  const int64_t n = ${o.dataDim ? keptNumel(o) : `io.${o.name}.numel()`};${
    o.dataDim
      ? `
  if (blockIdx.x == 0 && threadIdx.x == 0) io.${o.dataDim.name}.set(io.${o.dataDim.name}.bound / 2);`
      : ''
  }
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    io.${o.name}.data[i] = form::store<form::elem_t<decltype(io.${o.name})>>(form::value${k}(io, i, e));
}`,
  );
  // An output with a data dim launches even when empty: its kernel sets the value.
  const launches = p.outputs.map((o, k) =>
    o.variadic
      ? `  for (int m = 0; m < io.${o.name}.size(); ++m) {
    if (io.${o.name}[m].numel() == 0) continue;
    output${k}<<<cuda::gridFor(io.${o.name}[m].numel()), cuda::kBlock, 0, stream>>>(io, e, m);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError(kName));
  }`
      : o.dataDim
        ? `  output${k}<<<cuda::gridFor(io.${o.name}.numel() > 0 ? io.${o.name}.numel() : 1), cuda::kBlock, 0, stream>>>(io, e);
  OPFORGE_RETURN_IF_ERROR(cuda::lastError(kName));`
        : `  if (${o.present ? `io.${o.name}.present() && ` : ''}io.${o.name}.numel() > 0) {
    output${k}<<<cuda::gridFor(io.${o.name}.numel()), cuda::kBlock, 0, stream>>>(io, e);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError(kName));
  }`,
  );
  const overloads = bindings(p).map(
    (b) =>
      `Status cuda(const Attrs& attrs, const State& state, const ${ioType(p, b)}& io, const CudaContext& ctx) { return launch(attrs, state, io, ctx); }`,
  );
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
  // Exactly the spec's size: a backend that allocates more (sizeof(T) of the wrong dtype) fails too.
  if (ctx.workspaceSize != static_cast<size_t>(need)) return Status::Error("${p.name}: workspace of " + std::to_string(ctx.workspaceSize) + " bytes, the spec says " + std::to_string(need));
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

/** Element i of member m of a variadic output: typed, or (following a heterogeneous input) by the member's own dtype. */
function memberStore(o: OutPlan, k: number, e: string): string {
  const v = `form::value${k}(io, i, ${e}) + m`;
  return o.variadic?.follows
    ? `form::storeAt(io.${o.name}[m], i, ${v});`
    : `io.${o.name}[m].data[i] = form::store<form::elem_t<std::decay_t<decltype(io.${o.name}[m])>>>(${v});`;
}
