// CPU kernel of MMCVDeformConv2d: every output element through the modulated deform conv's
// element() with no mask and no bias (DCNv1 is DCNv2 with every tap weighing 1).
#include "mmcv_deform_conv2d_impl.h"

namespace opforge {
namespace ops {
namespace mmcv_deform_conv2d {

namespace {

template <typename T>
Status run(const Attrs& attrs, const Io<T>& io) {
  const dcn::Params p = params(attrs, io.input.shape, io.weight.shape, io.output.shape);
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i)
    dcn::store(io.output.data + i, dcn::element<T>(p, io.input.data, io.offset.data, nullptr, io.weight.data, nullptr, i));
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return run(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return run(attrs, io); }

}  // namespace mmcv_deform_conv2d
}  // namespace ops
}  // namespace opforge
