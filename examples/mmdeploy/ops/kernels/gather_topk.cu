// CUDA kernel of GatherTopk: one thread per output element through source() (shared with the CPU);
// an index outside [0, G) gives 0 (the indices are in device memory: no error can name it).
#include <cuda_runtime.h>

#include "gather_topk_impl.h"
#include "opforge/cuda_launch.h"

namespace opforge {
namespace ops {
namespace gather_topk {
namespace {

template <typename T, typename I>
__global__ void gatherKernel(Layout l, const T* __restrict__ data, const I* __restrict__ indices, T* __restrict__ output,
                             int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = static_cast<int64_t>(indices[pick(l, i)]);
    output[i] = row >= 0 && row < l.rows ? data[source(l, i, row)] : T(0);
  }
}

template <typename T, typename I>
Status run(const Io<T, I>& io, const CudaContext& ctx) {
  const int64_t total = io.output.numel();
  if (total == 0) return Status::Ok();
  const Layout l = layout(io.data.shape, io.indices.shape);
  gatherKernel<<<cuda::gridFor(total), cuda::kBlock, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      l, io.data.data, io.indices.data, io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs&, const State&, const Io<float, int64_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float, int32_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<int32_t, int64_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<int32_t, int32_t>& io, const CudaContext& ctx) { return run(io, ctx); }

}  // namespace gather_topk
}  // namespace ops
}  // namespace opforge
