// CUDA kernel of TRTBicubicInterpolate: one thread per output element through pixel() (shared with the CPU).
#include <cuda_runtime.h>

#include "opforge/cuda_launch.h"
#include "trt_bicubic_interpolate_impl.h"

namespace opforge {
namespace ops {
namespace trt_bicubic_interpolate {
namespace {

__global__ void bicubicKernel(const float* __restrict__ input, float* __restrict__ output, int64_t total, int64_t inH,
                              int64_t inW, int64_t outH, int64_t outW, float sh, float sw, bool align) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % outW;
    const int64_t y = (i / outW) % outH;
    const int64_t p = i / (outW * outH);
    output[i] = pixel(input + p * inH * inW, inH, inW, sh, sw, y, x, align);
  }
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const Shape& in = io.input.shape;
  const Shape& out = io.output.shape;
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  const bool align = attrs.align_corners != 0;
  bicubicKernel<<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.input.data, io.output.data, total, in[2], in[3], out[2], out[3], scaleOf(in[2], out[2], align),
      scaleOf(in[3], out[3], align), align);
  return cuda::lastError(kName);
}

}  // namespace trt_bicubic_interpolate
}  // namespace ops
}  // namespace opforge
