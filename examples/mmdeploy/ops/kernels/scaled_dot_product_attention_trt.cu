// CUDA kernel of ScaledDotProductAttentionTRT: one thread per query row (attendRow, shared with the
// CPU kernel), the softmax staged in the attn output itself.
#include <cuda_runtime.h>

#include "opforge/cuda_launch.h"
#include "scaled_dot_product_attention_trt_impl.h"

namespace opforge {
namespace ops {
namespace scaled_dot_product_attention_trt {
namespace {

__global__ void attendKernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                             const float* __restrict__ mask, MaskStrides m, float* __restrict__ attn, float* __restrict__ out,
                             int64_t rows, int64_t nt, int64_t ns, int64_t e) {
  for (int64_t r = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; r < rows;
       r += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = r / nt, t = r % nt;
    attendRow(q + r * e, k + b * ns * e, v + b * ns * e, mask != nullptr ? mask + b * m.b + t * m.t : nullptr, m.s, ns, e,
              attn + r * ns, out + r * e);
  }
}

}  // namespace

Status cuda(const Attrs&, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t batch = io.q.shape[0], nt = io.q.shape[1], e = io.q.shape[2], ns = io.k.shape[1];
  MaskStrides m;
  if (io.mask.present()) OPFORGE_RETURN_IF_ERROR(maskStrides(io.mask.shape, batch, nt, ns, &m));
  const int64_t rows = batch * nt;
  if (rows == 0) return Status::Ok();
  if (ns == 0) return Status::Error(std::string(kName) + ": softmax over zero keys");
  attendKernel<<<cuda::gridFor(rows), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.q.data, io.k.data, io.v.data, io.mask.data, m, io.attn.data, io.output.data, rows, nt, ns, e);
  return cuda::lastError(kName);
}

}  // namespace scaled_dot_product_attention_trt
}  // namespace ops
}  // namespace opforge
