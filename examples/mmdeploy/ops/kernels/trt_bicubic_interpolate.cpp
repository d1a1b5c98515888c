// CPU kernel of TRTBicubicInterpolate: every output pixel through pixel() (shared with CUDA).
#include "trt_bicubic_interpolate_impl.h"

namespace opforge {
namespace ops {
namespace trt_bicubic_interpolate {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {
  const Shape& in = io.input.shape;
  const Shape& out = io.output.shape;
  const int64_t planes = in[0] * in[1];
  const int64_t inH = in[2], inW = in[3], outH = out[2], outW = out[3];
  if (planes == 0 || outH == 0 || outW == 0) return Status::Ok();
  const bool align = attrs.align_corners != 0;
  const float sh = scaleOf(inH, outH, align);
  const float sw = scaleOf(inW, outW, align);
  for (int64_t p = 0; p < planes; ++p) {
    const float* src = io.input.data + p * inH * inW;
    float* dst = io.output.data + p * outH * outW;
    for (int64_t y = 0; y < outH; ++y)
      for (int64_t x = 0; x < outW; ++x) dst[y * outW + x] = pixel(src, inH, inW, sh, sw, y, x, align);
  }
  return Status::Ok();
}

}  // namespace trt_bicubic_interpolate
}  // namespace ops
}  // namespace opforge
