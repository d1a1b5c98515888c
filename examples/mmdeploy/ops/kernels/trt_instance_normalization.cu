// CUDA kernel of TRTInstanceNormalization: one block per (n, c) slice; sums in float, reduced in
// shared memory (two passes: mean, then the centered squares, as the CPU kernel does).
#include <cuda_runtime.h>

#include "opforge/cuda_launch.h"
#include "trt_instance_normalization_impl.h"

namespace opforge {
namespace ops {
namespace trt_instance_normalization {
namespace {

constexpr int kThreads = 256;

/** Sum of v over the block; every thread gets the result. */
__device__ float blockSum(float v, float* shared) {
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int step = kThreads / 2; step > 0; step >>= 1) {
    if (static_cast<int>(threadIdx.x) < step) shared[threadIdx.x] += shared[threadIdx.x + step];
    __syncthreads();
  }
  const float total = shared[0];
  __syncthreads();
  return total;
}

template <typename T>
__global__ void normKernel(const T* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ bias,
                           T* __restrict__ y, int64_t count, int64_t length, int64_t channels, float epsilon) {
  __shared__ float shared[kThreads];
  for (int64_t s = blockIdx.x; s < count; s += gridDim.x) {
    const T* xs = x + s * length;
    T* ys = y + s * length;
    float sum = 0.f;
    for (int64_t i = threadIdx.x; i < length; i += kThreads) sum += toCompute(xs[i]);
    const float mean = blockSum(sum, shared) / static_cast<float>(length);
    float sq = 0.f;
    for (int64_t i = threadIdx.x; i < length; i += kThreads) {
      const float d = toCompute(xs[i]) - mean;
      sq += d * d;
    }
    const float var = blockSum(sq, shared) / static_cast<float>(length);
    const int64_t c = s % channels;
    const float a = rsqrtf(var + epsilon) * scale[c], b = bias[c];
    for (int64_t i = threadIdx.x; i < length; i += kThreads) ys[i] = fromCompute<T>((toCompute(xs[i]) - mean) * a + b);
  }
}

template <typename T>
Status launch(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  int64_t count = 0, length = 0;
  slices(io.input.shape, &count, &length);
  if (count == 0 || length == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  normKernel<T><<<cuda::gridFor(count, 1), kThreads, 0, stream>>>(io.input.data, io.scale.data, io.bias.data, io.output.data,
                                                                  count, length, io.input.shape[1], attrs.epsilon);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return launch(attrs, io, ctx); }

}  // namespace trt_instance_normalization
}  // namespace ops
}  // namespace opforge
