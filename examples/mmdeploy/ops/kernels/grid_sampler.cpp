// CPU kernel of grid_sampler: every output element through sample() (shared with CUDA).
#include "grid_sampler_impl.h"

namespace opforge {
namespace ops {
namespace grid_sampler {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {
  const Params p = params(attrs, io.input.shape, io.grid.shape, io.output.shape);
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i) io.output.data[i] = sample(p, io.input.data, io.grid.data, i);
  return Status::Ok();
}

}  // namespace grid_sampler
}  // namespace ops
}  // namespace opforge
