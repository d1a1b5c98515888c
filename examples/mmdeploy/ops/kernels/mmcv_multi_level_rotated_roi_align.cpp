// CPU kernel of MMCVMultiLevelRotatedRoiAlign: every output element through pool() (shared with CUDA).
#include "mmcv_multi_level_rotated_roi_align_impl.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_level_rotated_roi_align {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {
  OPFORGE_RETURN_IF_ERROR(mlra::checkLevels(kName, io.feats));
  const Params p = params(attrs, io.feats);
  OPFORGE_RETURN_IF_ERROR(mlra::checkRois(kName, io.rois.data, io.rois.shape[0], 6, p.levels.batch));
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i) io.output.data[i] = pool(p, io.rois.data, i);
  return Status::Ok();
}

}  // namespace mmcv_multi_level_rotated_roi_align
}  // namespace ops
}  // namespace opforge
