// CUDA kernel of LeakyRelu: y = x >= 0 ? x : alpha * x.
#include <cuda_runtime.h>

#include "opforge/ops/leaky_relu.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace leaky_relu {
namespace {

template <typename T>
__global__ void leakyReluKernel(const T* __restrict__ x, T* __restrict__ y, int64_t n, float alpha) {
  using C = compute_t<T>;
  const C a = static_cast<C>(alpha);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const C v = toCompute(x[i]);
    y[i] = fromCompute<T>(v >= C(0) ? v : a * v);
  }
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  const int64_t n = io.input.numel();
  if (n == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  leakyReluKernel<T><<<cuda::gridFor(n), cuda::kBlock, 0, stream>>>(io.input.data, io.output.data, n, attrs.alpha);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace leaky_relu
}  // namespace ops
}  // namespace opforge
