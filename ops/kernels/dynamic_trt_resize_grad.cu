// CUDA kernel of DynamicTRTResizeGrad: the gradient of bicubic interpolation (PyTorch's
// upsample_bicubic2d_backward): one thread per output pixel and plane, atomically adding its
// gradient to the 4 x 4 taps (float, or double for float64; float16 sums in the float workspace).
#include <cuda_runtime.h>

#include <type_traits>

#include "opforge/ops/dynamic_trt_resize_grad.h"
#include "opforge/cuda_launch.h"

#include "dynamic_trt_resize_impl.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize_grad {
namespace {

namespace bicubic = ::opforge::ops::dynamic_trt_resize::bicubic;

template <typename T, typename S>
__global__ void scatterKernel(const T* __restrict__ gout, S* __restrict__ acc, int64_t planes, int64_t inH, int64_t inW,
                              int64_t outH, int64_t outW, S sh, S sw, bool alignCorners) {
  const int64_t total = planes * outH * outW;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total; i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t x = i % outW;
    const int64_t y = (i / outW) % outH;
    const int64_t p = i / (outW * outH);
    const bicubic::Taps<S> t = bicubic::taps(inH, inW, sh, sw, y, x, alignCorners);
    const S g = static_cast<S>(toCompute(gout[i]));
    S* plane = acc + p * inH * inW;
    for (int r = 0; r < 4; ++r)
      for (int c = 0; c < 4; ++c) atomicAdd(plane + t.rows[r] + t.cols[c], t.wy[r] * t.wx[c] * g);
  }
}

template <typename T>
__global__ void toOutput(const float* __restrict__ acc, T* __restrict__ out, int64_t n) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n; i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = fromCompute<T>(acc[i]);
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  using S = bicubic::acc_t<T>;
  const Shape& in = io.input;
  const Shape& out = io.grad_output.shape;
  if (out[0] != in[0] || out[1] != in[1]) return Status::Error(std::string(kName) + ": grad_output's N and C must be input's");
  const int64_t n = io.grad_input.numel();
  if (n == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const int64_t planes = in[0] * in[1];
  const int64_t total = planes * out[2] * out[3];
  const S sh = bicubic::scale<S>(in[2], out[2], attrs.align_corners);
  const S sw = bicubic::scale<S>(in[3], out[3], attrs.align_corners);
  S* acc = nullptr;
  if constexpr (std::is_same<T, float16>::value) {
    if (ctx.workspaceSize < static_cast<size_t>(n) * sizeof(float)) return Status::Error(std::string(kName) + ": workspace too small");
    acc = static_cast<float*>(ctx.workspace);
  } else {
    acc = io.grad_input.data;
  }
  if (cudaMemsetAsync(acc, 0, static_cast<size_t>(n) * sizeof(S), stream) != cudaSuccess) return cuda::lastError(kName);
  if (total > 0) {
    scatterKernel<T, S><<<cuda::gridFor(total), cuda::kBlock, 0, stream>>>(io.grad_output.data, acc, planes, in[2], in[3], out[2], out[3], sh, sw,
                                                                         attrs.align_corners);
  }
  if constexpr (std::is_same<T, float16>::value) toOutput<T><<<cuda::gridFor(n), cuda::kBlock, 0, stream>>>(acc, io.grad_input.data, n);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<double>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace dynamic_trt_resize_grad
}  // namespace ops
}  // namespace opforge
