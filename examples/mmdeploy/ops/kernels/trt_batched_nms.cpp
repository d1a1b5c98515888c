// CPU kernel of TRTBatchedNMS: selectClass() for every (image, class), then gatherImage()
// for every image (both shared with CUDA), in the workspace the spec sizes.
#include <string>

#include "trt_batched_nms_impl.h"

namespace opforge {
namespace ops {
namespace trt_batched_nms {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext& ctx) {
  const Params p = params(attrs, io.boxes.shape);
  const int64_t bytes = workspaceBytes(p);
  if (static_cast<int64_t>(ctx.workspaceSize) < bytes) return Status::Error(std::string(kName) + ": workspace too small");
  const Slots s = slotsIn(p, ctx.workspace);
  for (int64_t n = 0; n < p.images; ++n)
    for (int64_t c = 0; c < p.classes; ++c) selectClass(p, io.boxes.data, io.scores.data, n, c, s.score, s.box);
  // index: written only where return_index makes it an output (null data otherwise)
  int32_t* index = io.index.present() ? io.index.data : nullptr;
  for (int64_t n = 0; n < p.images; ++n)
    gatherImage(p, io.boxes.data, s.score, s.box, n, io.dets.data, io.labels.data, index);
  return Status::Ok();
}

}  // namespace trt_batched_nms
}  // namespace ops
}  // namespace opforge
