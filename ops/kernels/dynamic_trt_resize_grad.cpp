// CPU kernel of DynamicTRTResizeGrad: the gradient of bicubic interpolation (PyTorch's
// upsample_bicubic2d_backward): each output pixel's gradient goes to its 4 x 4 taps with the
// forward's weights. Sums in float (double for float64); float16 sums in the workspace.
#include <cstring>
#include <type_traits>

#include "opforge/ops/dynamic_trt_resize_grad.h"

#include "dynamic_trt_resize_impl.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize_grad {
namespace {

namespace bicubic = ::opforge::ops::dynamic_trt_resize::bicubic;

/** Adds every output pixel's gradient into `acc` (one plane after another: the image is `planes` x inH x inW). */
template <typename T, typename S>
void scatter(const Attrs& attrs, const Io<T>& io, S* acc) {
  const Shape& in = io.input;
  const Shape& out = io.grad_output.shape;
  const int64_t planes = in[0] * in[1], inH = in[2], inW = in[3], outH = out[2], outW = out[3];
  const S sh = bicubic::scale<S>(inH, outH, attrs.align_corners);
  const S sw = bicubic::scale<S>(inW, outW, attrs.align_corners);
  for (int64_t y = 0; y < outH; ++y) {
    for (int64_t x = 0; x < outW; ++x) {
      const bicubic::Taps<S> t = bicubic::taps(inH, inW, sh, sw, y, x, attrs.align_corners);
      for (int64_t p = 0; p < planes; ++p) {
        const S g = static_cast<S>(toCompute(io.grad_output.data[(p * outH + y) * outW + x]));
        S* plane = acc + p * inH * inW;
        for (int r = 0; r < 4; ++r)
          for (int c = 0; c < 4; ++c) plane[t.rows[r] + t.cols[c]] += t.wy[r] * t.wx[c] * g;
      }
    }
  }
}

template <typename T>
Status grad(const Attrs& attrs, const Io<T>& io, const CpuContext& ctx) {
  const Shape& in = io.input;
  const Shape& out = io.grad_output.shape;
  if (out[0] != in[0] || out[1] != in[1]) return Status::Error(std::string(kName) + ": grad_output's N and C must be input's");
  const int64_t n = io.grad_input.numel();
  if (n == 0) return Status::Ok();
  if (out[2] * out[3] == 0) { for (int64_t i = 0; i < n; ++i) io.grad_input.data[i] = fromCompute<T>(compute_t<T>(0)); return Status::Ok(); }
  if constexpr (std::is_same<T, float16>::value) {
    // float16 gradients summed in float: the workspace (input numel x 4 bytes) holds the sums.
    if (ctx.workspaceSize < static_cast<size_t>(n) * sizeof(float)) return Status::Error(std::string(kName) + ": workspace too small");
    auto* acc = static_cast<float*>(ctx.workspace);
    std::memset(acc, 0, static_cast<size_t>(n) * sizeof(float));
    scatter(attrs, io, acc);
    for (int64_t i = 0; i < n; ++i) io.grad_input.data[i] = fromCompute<T>(acc[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) io.grad_input.data[i] = T(0);
    scatter(attrs, io, io.grad_input.data);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext& ctx) { return grad(attrs, io, ctx); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext& ctx) { return grad(attrs, io, ctx); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext& ctx) { return grad(attrs, io, ctx); }

}  // namespace dynamic_trt_resize_grad
}  // namespace ops
}  // namespace opforge
