// CUDA kernel of MMCVMultiLevelRotatedRoiAlign: one thread per output element through pool()
// (shared with the CPU kernel). The maps' device pointers travel in Params by value, as the
// plugin's FeatData does. The RoIs are in device memory, so a batch index out of range cannot be
// reported as a Status here: those RoIs give NaN (the plugin reads out of bounds).
#include <cuda_runtime.h>

#include "mmcv_multi_level_rotated_roi_align_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_level_rotated_roi_align {
namespace {

__global__ void multiLevelRotatedRoiAlignKernel(Params p, const float* __restrict__ rois, float* __restrict__ out,
                                                int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const float b = rois[(i / (p.pooledW * p.pooledH * p.levels.channels)) * 6];
    out[i] = b >= 0.f && b < static_cast<float>(p.levels.batch) ? pool(p, rois, i) : nanf("");
  }
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  OPFORGE_RETURN_IF_ERROR(mlra::checkLevels(kName, io.feats));
  const Params p = params(attrs, io.feats);
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  multiLevelRotatedRoiAlignKernel<<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      p, io.rois.data, io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace mmcv_multi_level_rotated_roi_align
}  // namespace ops
}  // namespace opforge
