// CUDA kernel of MyAdd: c = 2 * a + b.
#include <cuda_runtime.h>

#include "opforge/ops/my_add.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace my_add {
namespace {

template <typename T>
__global__ void addKernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ c, int64_t n) {
  using C = compute_t<T>;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    c[i] = fromCompute<T>(C(2) * toCompute(a[i]) + toCompute(b[i]));
  }
}

template <typename T>
Status launch(const Io<T>& io, const CudaContext& ctx) {
  const int64_t n = io.c.numel();
  if (n == 0) return Status::Ok();
  addKernel<T><<<cuda::gridFor(n), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(io.a.data, io.b.data, io.c.data, n);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs&, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(io, ctx); }

}  // namespace my_add
}  // namespace ops
}  // namespace opforge
