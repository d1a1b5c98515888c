// CPU kernel of DynamicTRTResize (bicubic, PyTorch semantics).
#include "opforge/ops/dynamic_trt_resize.h"

#include "dynamic_trt_resize_impl.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize {
namespace {

template <typename T>
Status resize(const Attrs& attrs, const Io<T>& io) {
  const Shape& in = io.input.shape;
  const Shape& out = io.output.shape;
  const int64_t planes = in[0] * in[1];
  const int64_t inH = in[2], inW = in[3], outH = out[2], outW = out[3];
  if (planes == 0 || outH == 0 || outW == 0) return Status::Ok();
  if (inH == 0 || inW == 0) return Status::Error(std::string(kName) + ": cannot resize an empty image to a non-empty one");
  using S = bicubic::acc_t<T>;
  const S sh = bicubic::scale<S>(inH, outH, attrs.align_corners);
  const S sw = bicubic::scale<S>(inW, outW, attrs.align_corners);
  for (int64_t p = 0; p < planes; ++p) {
    const T* src = io.input.data + p * inH * inW;
    T* dst = io.output.data + p * outH * outW;
    for (int64_t y = 0; y < outH; ++y)
      for (int64_t x = 0; x < outW; ++x) dst[y * outW + x] = bicubic::pixel(src, inH, inW, sh, sw, y, x, attrs.align_corners);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return resize(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return resize(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext&) { return resize(attrs, io); }

}  // namespace dynamic_trt_resize
}  // namespace ops
}  // namespace opforge
