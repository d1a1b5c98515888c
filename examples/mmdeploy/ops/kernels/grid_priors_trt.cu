// CUDA kernel of GridPriorsTRT: one thread per output row through prior() (shared with the CPU kernel).
#include <cuda_runtime.h>

#include "grid_priors_trt_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace grid_priors_trt {
namespace {

__global__ void priorsKernel(const float* __restrict__ base, float* __restrict__ out, int64_t rows, int64_t anchors, int64_t width,
                             int64_t strideH, int64_t strideW) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    prior(base, out, i, anchors, width, strideH, strideW);
}

template <typename Z>
Status launch(const Attrs& attrs, const Io<Z>& io, const CudaContext& ctx) {
  const int64_t rows = io.output.shape[0];
  if (rows == 0) return Status::Ok();
  priorsKernel<<<cuda::gridFor(rows), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.base_anchors.data, io.output.data, rows, io.base_anchors.shape[0], io.zero_w[0], attrs.stride_h, attrs.stride_w);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<int64_t>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<int32_t>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace grid_priors_trt
}  // namespace ops
}  // namespace opforge
