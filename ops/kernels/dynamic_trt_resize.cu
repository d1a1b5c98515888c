// CUDA kernel of DynamicTRTResize (bicubic, PyTorch semantics): one thread per output pixel
// position, for a few (n, c) planes each.
#include <cuda_runtime.h>

#include "opforge/ops/dynamic_trt_resize.h"
#include "opforge/cuda_launch.h"

#include "dynamic_trt_resize_impl.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize {
namespace {

// A 2-D grid over output pixels, each thread looping over planes: no 64-bit division per pixel,
// and the taps (source rows, columns, weights) are computed once for all the (n, c) planes.
constexpr int kBlockX = 32, kBlockY = 8;
constexpr int64_t kMaxGridY = 65535, kPlanesPerThread = 4;

template <typename T>
__global__ void resizeKernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, int64_t inH, int64_t inW,
                             int64_t outH, int64_t outW, bicubic::acc_t<T> sh, bicubic::acc_t<T> sw, bool alignCorners) {
  const int64_t ox = blockIdx.x * static_cast<int64_t>(kBlockX) + threadIdx.x;
  if (ox >= outW) return;
  for (int64_t oy = blockIdx.y * static_cast<int64_t>(kBlockY) + threadIdx.y; oy < outH; oy += static_cast<int64_t>(gridDim.y) * kBlockY) {
    const bicubic::Taps<bicubic::acc_t<T>> t = bicubic::taps(inH, inW, sh, sw, oy, ox, alignCorners);
    for (int64_t p = blockIdx.z; p < planes; p += gridDim.z) out[(p * outH + oy) * outW + ox] = bicubic::apply(in + p * inH * inW, t);
  }
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  const Shape& in = io.input.shape;
  const Shape& out = io.output.shape;
  const int64_t planes = in[0] * in[1];
  const int64_t total = planes * out[2] * out[3];
  if (total == 0) return Status::Ok();
  if (in[2] == 0 || in[3] == 0) return Status::Error(std::string(kName) + ": cannot resize an empty image to a non-empty one");
  using S = bicubic::acc_t<T>;
  const S sh = bicubic::scale<S>(in[2], out[2], attrs.align_corners);
  const S sw = bicubic::scale<S>(in[3], out[3], attrs.align_corners);
  const dim3 block(kBlockX, kBlockY);
  const auto gy = (out[2] + kBlockY - 1) / kBlockY;
  const auto gz = (planes + kPlanesPerThread - 1) / kPlanesPerThread;
  const dim3 grid(static_cast<unsigned>((out[3] + kBlockX - 1) / kBlockX), static_cast<unsigned>(gy < kMaxGridY ? gy : kMaxGridY),
                  static_cast<unsigned>(gz < kMaxGridY ? gz : kMaxGridY));
  resizeKernel<T><<<grid, block, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.input.data, io.output.data, planes, in[2], in[3], out[2], out[3], sh, sw, attrs.align_corners);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace dynamic_trt_resize
}  // namespace ops
}  // namespace opforge
