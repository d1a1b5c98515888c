// CPU kernel of MMCVRoiAlign: every output element through pool() (shared with CUDA).
#include "mmcv_roi_align_impl.h"

namespace opforge {
namespace ops {
namespace mmcv_roi_align {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {
  const Shape& in = io.input.shape;
  const Params p = params(attrs, in);
  OPFORGE_RETURN_IF_ERROR(checkRois(io.rois.data, io.rois.shape[0], in[0]));
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i) io.output.data[i] = pool(p, io.input.data, io.rois.data, i);
  return Status::Ok();
}

}  // namespace mmcv_roi_align
}  // namespace ops
}  // namespace opforge
