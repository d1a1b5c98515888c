// CUDA kernel of CustomReluGrad: grad_x = x > 0 ? grad_y : alpha * grad_y (the gradient of CustomRelu).
#include <cuda_runtime.h>

#include "opforge/ops/custom_relu_grad.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace custom_relu_grad {
namespace {

template <typename T>
__global__ void gradKernel(const T* __restrict__ gy, const T* __restrict__ x, T* __restrict__ gx, int64_t n, float alpha) {
  using C = compute_t<T>;
  const C a = static_cast<C>(alpha);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const C g = toCompute(gy[i]);
    gx[i] = fromCompute<T>(toCompute(x[i]) > C(0) ? g : a * g);
  }
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  const int64_t n = io.x.numel();
  if (n == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  gradKernel<T><<<cuda::gridFor(n), cuda::kBlock, 0, stream>>>(io.grad_y.data, io.x.data, io.grad_x.data, n, attrs.alpha);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace custom_relu_grad
}  // namespace ops
}  // namespace opforge
