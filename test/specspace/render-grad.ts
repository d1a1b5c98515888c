// The rendered op's gradient op (when the plan has one): its spec, CPU and CUDA kernels and reference.

import { DTYPE_INFO, type DType } from '../../generator/model/type-table.js';
import type { InPlan, OutPlan, SpecPlan } from './plan.js';
import { num } from './render-common.js';
import { bindings, ioType } from './render-kernels.js';

interface GradPlan {
  name: string;
  vars: SpecPlan['vars'];
  outs: (OutPlan & { index: number })[];
  ins: (InPlan & { index: number })[];
}

/** The tensor takes gradients in some binding (a mixed float/integer variable: in its float ones). */
export function anyFloat(p: SpecPlan, dtype: string): boolean {
  const v = p.vars.find((x) => x.name === dtype);
  return (v ? v.dtypes : [dtype as DType]).some((d) => DTYPE_INFO[d].isFloat);
}

export function gradPlan(p: SpecPlan): GradPlan | undefined {
  if (p.seed % 2 !== 0) return undefined;
  const ins = p.inputs
    .map((i, index) => ({ ...i, index }))
    .filter((i) => !i.optional && !i.shapeOnly && !i.variadic && anyFloat(p, i.dtype));
  // Outputs the attributes may leave out carry no gradient (the spec model's rule).
  // Nor do outputs with a dim the kernel decides.
  const outs = p.outputs
    .map((o, index) => ({ ...o, index }))
    .filter((o) => anyFloat(p, o.dtype) && !o.present && !o.dataDim);
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

export function gradYaml(p: SpecPlan, g: GradPlan, snake: string): string {
  const L = [
    `# The gradient op of ${p.name} (spec-space seed ${p.seed}): its closed form is linear in each input.`,
    `name: ${g.name}`,
  ];
  if (p.snake) L.push(`snake: ${snake}_grad`);
  if (p.domain) L.push(`domain: ${p.domain}`);
  L.push('version: 1');
  if (g.vars.length) {
    L.push('types:');
    for (const v of g.vars) L.push(`  ${v.name}: [${v.dtypes.join(', ')}]`);
  }
  L.push('inputs:');
  for (const o of g.outs) L.push(`  - { name: g_${o.name}, dtype: ${o.dtype} }`);
  for (const i of g.ins) L.push(`  - { name: s_${i.name}, dtype: ${i.dtype}, shape_only: true }`);
  L.push('outputs:');
  for (const i of g.ins) L.push(`  - { name: d_${i.name}, dtype: ${i.dtype}, shape: s_${i.name} }`);
  L.push(
    'kernels:',
    `  cpu: kernels/${snake}_grad.cpp`,
    ...(gradHasCuda(p) ? [`  cuda: kernels/${snake}_grad.cu`] : []),
    `  reference: kernels/${snake}_grad_ref.py`,
  );
  return `${L.join('\n')}\n`;
}

export function gradCpu(p: SpecPlan, g: GradPlan, snake: string): string {
  const gs = `${snake}_grad`;
  const fake = { vars: g.vars } as SpecPlan;
  const per = g.ins.map((i) =>
    [
      `  {  // d_${i.name}`,
      `    const int64_t n = io.d_${i.name}.numel();`,
      '    std::vector<double> acc(static_cast<size_t>(n), 0.0);',
      ...g.outs.map(
        (o) =>
          `    if (n > 0) for (int64_t i = 0; i < io.g_${o.name}.numel(); ++i) acc[static_cast<size_t>(i % n)] += ${num(o.weights[i.index]!)} * num(io.g_${o.name}.data[i]);`,
      ),
      `    for (int64_t i = 0; i < n; ++i) io.d_${i.name}.data[i] = store<elem_t<decltype(io.d_${i.name})>>(acc[static_cast<size_t>(i)]);`,
      '  }',
    ].join('\n'),
  );
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

${bindings(fake)
  .map(
    (b) =>
      `Status cpu(const Attrs&, const State&, const ${ioType(fake, b)}& io, const CpuContext&) { return compute(io); }`,
  )
  .join('\n')}

}  // namespace ${gs}
}  // namespace ops
}  // namespace opforge
`;
}

export function gradCuda(p: SpecPlan, g: GradPlan, snake: string): string {
  const gs = `${snake}_grad`;
  const fake = { vars: g.vars } as SpecPlan;
  // One thread per gradient element j: the sum over i = j (mod n) of each upstream gradient.
  const kernels = g.ins.map(
    (i, k) => `template <typename IoT>
__global__ void grad${k}(IoT io) {
  const int64_t n = io.d_${i.name}.numel();
  for (int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; j < n; j += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    double acc = 0.0;
${g.outs.map((o) => `    for (int64_t i = j; i < io.g_${o.name}.numel(); i += n) acc += ${num(o.weights[i.index]!)} * num(io.g_${o.name}.data[i]);`).join('\n')}
    io.d_${i.name}.data[j] = store<elem_t<decltype(io.d_${i.name})>>(acc);
  }
}`,
  );
  const launches = g.ins.map(
    (i, k) => `  if (io.d_${i.name}.numel() > 0) {
    grad${k}<<<cuda::gridFor(io.d_${i.name}.numel()), cuda::kBlock, 0, stream>>>(io);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError("${g.name}"));
  }`,
  );
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

${bindings(fake)
  .map(
    (b) =>
      `Status cuda(const Attrs&, const State&, const ${ioType(fake, b)}& io, const CudaContext& ctx) { return launch(io, ctx); }`,
  )
  .join('\n')}

}  // namespace ${gs}
}  // namespace ops
}  // namespace opforge
`;
}

export function gradReference(p: SpecPlan, g: GradPlan): string {
  const params = [...g.outs.map((o) => `g_${o.name}`), ...g.ins.map((i) => `s_${i.name}`)];
  const per = g.ins.map((i) =>
    [
      `    n = s_${i.name}.numel()`,
      '    acc = torch.zeros(n, dtype=torch.float64)',
      ...g.outs.map(
        (o) =>
          `    if n > 0 and g_${o.name}.numel() > 0:\n        gv = g_${o.name}.detach().reshape(-1).to("cpu", torch.float64)\n        acc.index_add_(0, torch.arange(gv.numel()) % n, ${num(o.weights[i.index]!)} * gv)`,
      ),
      `    outs.append(_store(acc, s_${i.name}.dtype).reshape(s_${i.name}.shape).to(s_${i.name}.device))`,
    ].join('\n'),
  );
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
