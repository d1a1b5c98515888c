// CUDA kernel of MyAddGrad: grad_a = 2 * grad_c, grad_b = grad_c (the gradient of MyAdd).
#include <cuda_runtime.h>

#include "opforge/ops/my_add_grad.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace my_add_grad {
namespace {

template <typename T>
__global__ void gradKernel(const T* __restrict__ gc, T* __restrict__ ga, T* __restrict__ gb, int64_t n) {
  using C = compute_t<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const C g = toCompute(gc[i]);
    ga[i] = fromCompute<T>(C(2) * g);
    gb[i] = gc[i];
  }
}

template <typename T>
Status launch(const Attrs&, const Io<T>& io, const CudaContext& ctx) {
  const int64_t n = io.grad_c.numel();
  if (n == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  gradKernel<T><<<cuda::gridFor(n), cuda::kBlock, 0, stream>>>(io.grad_c.data, io.grad_a.data, io.grad_b.data, n);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace my_add_grad
}  // namespace ops
}  // namespace opforge
