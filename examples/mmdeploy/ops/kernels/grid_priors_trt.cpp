// CPU kernel of GridPriorsTRT: every output row through prior() (shared with CUDA).
#include "grid_priors_trt_impl.h"

namespace opforge {
namespace ops {
namespace grid_priors_trt {

namespace {

template <typename Z>
Status run(const Attrs& attrs, const Io<Z>& io) {
  const int64_t anchors = io.base_anchors.shape[0], rows = io.output.shape[0];
  for (int64_t i = 0; i < rows; ++i) prior(io.base_anchors.data, io.output.data, i, anchors, io.zero_w[0], attrs.stride_h, attrs.stride_w);
  return Status::Ok();
}

}  // namespace

// zero_h and zero_w are shape-only: their dtype (int64 exported, int32 in TensorRT) does not matter here.
Status cpu(const Attrs& attrs, const State&, const Io<int64_t>& io, const CpuContext&) { return run(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<int32_t>& io, const CpuContext&) { return run(attrs, io); }

}  // namespace grid_priors_trt
}  // namespace ops
}  // namespace opforge
