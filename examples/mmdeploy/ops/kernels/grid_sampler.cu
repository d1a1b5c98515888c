// CUDA kernel of grid_sampler: one thread per output element through sample() (shared with the CPU).
#include <cuda_runtime.h>

#include "grid_sampler_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace grid_sampler {
namespace {

__global__ void gridSampleKernel(Params p, const float* __restrict__ input, const float* __restrict__ grid,
                                 float* __restrict__ output, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    output[i] = sample(p, input, grid, i);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  const Params p = params(attrs, io.input.shape, io.grid.shape, io.output.shape);
  gridSampleKernel<<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      p, io.input.data, io.grid.data, io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace grid_sampler
}  // namespace ops
}  // namespace opforge
