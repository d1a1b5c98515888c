// CUDA kernel of LeakyReluGrad: grad_input = input >= 0 ? grad_output : alpha * grad_output (the gradient of LeakyRelu).
#include <cuda_runtime.h>

#include "opforge/ops/leaky_relu_grad.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace leaky_relu_grad {
namespace {

template <typename T>
__global__ void gradKernel(const T* __restrict__ gy, const T* __restrict__ x, T* __restrict__ gx, int64_t n, float alpha) {
  using C = compute_t<T>;
  const C a = static_cast<C>(alpha);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const C g = toCompute(gy[i]);
    gx[i] = fromCompute<T>(toCompute(x[i]) >= C(0) ? g : a * g);
  }
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  const int64_t n = io.input.numel();
  if (n == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  gradKernel<T><<<cuda::gridFor(n), cuda::kBlock, 0, stream>>>(io.grad_output.data, io.input.data, io.grad_input.data, n, attrs.alpha);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace leaky_relu_grad
}  // namespace ops
}  // namespace opforge
