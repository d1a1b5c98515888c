// CPU kernel of MMCVModulatedDeformConv2d: every output element through element() (shared with CUDA).
#include "mmcv_modulated_deform_conv2d_impl.h"

namespace opforge {
namespace ops {
namespace mmcv_modulated_deform_conv2d {

namespace {

template <typename T>
Status run(const Attrs& attrs, const Io<T>& io) {
  const Params p = params(attrs, io.input.shape, io.weight.shape, io.output.shape);
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i)
    store(io.output.data + i, element(p, io.input.data, io.offset.data, io.mask.data, io.weight.data, io.bias.data, i));
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return run(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return run(attrs, io); }

}  // namespace mmcv_modulated_deform_conv2d
}  // namespace ops
}  // namespace opforge
