// CUDA kernel of MMCVMultiScaleDeformableAttention: one thread per output element through
// attend() (shared with the CPU kernel). The spatial shapes and start indices are in device
// memory, so a level outside the keys cannot be reported as a Status here: it gives NaN.
#include <cuda_runtime.h>

#include "mmcv_multi_scale_deformable_attention_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_scale_deformable_attention {
namespace {

template <typename T, typename I>
__global__ void attendKernel(Dims d, const T* __restrict__ value, const I* __restrict__ shapes, const I* __restrict__ starts,
                             const T* __restrict__ loc, const T* __restrict__ weights, T* __restrict__ out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = fromCompute<T>(attend(d, value, shapes, starts, loc, weights, i));
}

template <typename T, typename I>
Status launch(const Io<T, I>& io, const CudaContext& ctx) {
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  attendKernel<T, I><<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      dimsOf(io), io.value.data, io.value_spatial_shapes.data, io.value_level_start_index.data, io.sampling_locations.data,
      io.attention_weights.data, io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs&, const State&, const Io<float, int32_t>& io, const CudaContext& ctx) { return launch(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float, int64_t>& io, const CudaContext& ctx) { return launch(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float16, int32_t>& io, const CudaContext& ctx) { return launch(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float16, int64_t>& io, const CudaContext& ctx) { return launch(io, ctx); }

}  // namespace mmcv_multi_scale_deformable_attention
}  // namespace ops
}  // namespace opforge
