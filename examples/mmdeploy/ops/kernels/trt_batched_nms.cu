// CUDA kernel of TRTBatchedNMS: one thread per (image, class) for selectClass(), then one
// per image for gatherImage() (both shared with the CPU kernel). The plugin's cub sorts and
// shared-memory NMS are faster for thousands of boxes; these threads are serial per class.
#include <cuda_runtime.h>

#include <string>

#include "opforge/cuda_launch.h"
#include "trt_batched_nms_impl.h"

namespace opforge {
namespace ops {
namespace trt_batched_nms {
namespace {

__global__ void selectKernel(Params p, const float* __restrict__ boxes, const float* __restrict__ scores,
                             float* slotScore, int32_t* slotBox) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < p.images * p.classes;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    selectClass(p, boxes, scores, i / p.classes, i % p.classes, slotScore, slotBox);
}

__global__ void gatherKernel(Params p, const float* __restrict__ boxes, const float* slotScore, const int32_t* slotBox,
                             float* __restrict__ dets, int32_t* __restrict__ labels, int32_t* __restrict__ index) {
  for (int64_t n = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; n < p.images;
       n += static_cast<int64_t>(gridDim.x) * blockDim.x)
    gatherImage(p, boxes, slotScore, slotBox, n, dets, labels, index);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const Params p = params(attrs, io.boxes.shape);
  if (static_cast<int64_t>(ctx.workspaceSize) < workspaceBytes(p)) return Status::Error(std::string(kName) + ": workspace too small");
  if (p.images == 0) return Status::Ok();
  const Slots s = slotsIn(p, ctx.workspace);
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  if (p.k > 0) {
    selectKernel<<<cuda::gridFor(p.images * p.classes), cuda::kBlock, 0, stream>>>(p, io.boxes.data, io.scores.data,
                                                                                    s.score, s.box);
    OPFORGE_RETURN_IF_ERROR(cuda::lastError(kName));
  }
  // index: written only where return_index makes it an output (null data otherwise)
  int32_t* index = io.index.present() ? io.index.data : nullptr;
  gatherKernel<<<cuda::gridFor(p.images), cuda::kBlock, 0, stream>>>(p, io.boxes.data, s.score, s.box, io.dets.data,
                                                                     io.labels.data, index);
  return cuda::lastError(kName);
}

}  // namespace trt_batched_nms
}  // namespace ops
}  // namespace opforge
