// CUDA kernel of MMCVDeformConv2d: one thread per output element through the modulated deform conv's
// element() with no mask and no bias (shared with the CPU kernel).
#include <cuda_runtime.h>

#include "mmcv_deform_conv2d_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace mmcv_deform_conv2d {

namespace {

template <typename T>
__global__ void deformKernel(dcn::Params p, const T* input, const T* offset, const T* weight, T* out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dcn::store(out + i, dcn::element<T>(p, input, offset, nullptr, weight, nullptr, i));
}

template <typename T>
Status run(const Attrs& attrs, const Io<T>& io, const CudaContext& ctx) {
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  deformKernel<<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      params(attrs, io.input.shape, io.weight.shape, io.output.shape), io.input.data, io.offset.data, io.weight.data,
      io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io<float>& io, const CudaContext& ctx) { return run(attrs, io, ctx); }
Status cuda(const Attrs& attrs, const State&, const Io<float16>& io, const CudaContext& ctx) { return run(attrs, io, ctx); }

}  // namespace mmcv_deform_conv2d
}  // namespace ops
}  // namespace opforge
