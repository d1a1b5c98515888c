// CUDA kernel of DynamicTRTResize (bicubic, PyTorch semantics): one thread per output pixel.
#include <cuda_runtime.h>

#include "opforge/ops/dynamic_trt_resize.h"
#include "opforge/cuda_launch.h"

#include "dynamic_trt_resize_impl.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize {
namespace {

template <typename T>
__global__ void resizeKernel(const T* __restrict__ in, T* __restrict__ out, int64_t planes, int64_t inH, int64_t inW,
                             int64_t outH, int64_t outW, float sh, float sw, bool alignCorners) {
  const int64_t total = planes * outH * outW;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % outW;
    const int64_t y = (i / outW) % outH;
    const int64_t p = i / (outW * outH);
    out[i] = bicubic::pixel(in + p * inH * inW, inH, inW, sh, sw, y, x, alignCorners);
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
  const float sh = bicubic::scale(in[2], out[2], attrs.align_corners);
  const float sw = bicubic::scale(in[3], out[3], attrs.align_corners);
  resizeKernel<T><<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.input.data, io.output.data, planes, in[2], in[3], out[2], out[3], sh, sw, attrs.align_corners);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace dynamic_trt_resize
}  // namespace ops
}  // namespace opforge
