// CPU kernel of MMCVMultiScaleDeformableAttention: every output element through attend() (shared
// with CUDA), after checking that each level lies inside the keys.
#include <string>

#include "mmcv_multi_scale_deformable_attention_impl.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_scale_deformable_attention {
namespace {

template <typename T, typename I>
Status run(const Io<T, I>& io) {
  const Dims d = dimsOf(io);
  const I* shapes = io.value_spatial_shapes.data;
  const I* starts = io.value_level_start_index.data;
  for (int64_t l = 0; l < d.levels; ++l)
    if (!levelFits(shapes, starts, l, d.keys))
      return Status::Error(std::string(kName) + ": level " + std::to_string(l) + " (" + std::to_string(shapes[2 * l]) + " x " +
                           std::to_string(shapes[2 * l + 1]) + " from key " + std::to_string(starts[l]) + ") exceeds the " +
                           std::to_string(d.keys) + " keys of value");
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i)
    io.output.data[i] = fromCompute<T>(attend(d, io.value.data, shapes, starts, io.sampling_locations.data, io.attention_weights.data, i));
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs&, const State&, const Io<float, int32_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<float, int64_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<float16, int32_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<float16, int64_t>& io, const CpuContext&) { return run(io); }

}  // namespace mmcv_multi_scale_deformable_attention
}  // namespace ops
}  // namespace opforge
