// CUDA kernel of ScatterND: copy data on the stream, then one thread per updated element; a row
// with an index outside its dim of data writes nothing (the indices are in device memory).
#include <cuda_runtime.h>

#include "opforge/cuda_launch.h"
#include "scatter_nd_impl.h"

namespace opforge {
namespace ops {
namespace scatter_nd {
namespace {

template <typename T, typename I>
__global__ void scatterKernel(Layout l, const I* __restrict__ indices, const T* __restrict__ updates, T* __restrict__ output,
                              int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t at = target(l, indices, i / l.copy);
    if (at >= 0) output[at + i % l.copy] = updates[i];
  }
}

template <typename T, typename I>
Status run(const Io<T, I>& io, const CudaContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const int64_t n = io.output.numel();
  if (n > 0 && cudaMemcpyAsync(io.output.data, io.data.data, sizeof(T) * n, cudaMemcpyDeviceToDevice, stream) != cudaSuccess)
    return cuda::lastError(kName);
  const Layout l = layout(io.data.shape, io.indices.shape);
  const int64_t total = l.rows * l.copy;
  if (total == 0) return Status::Ok();
  scatterKernel<<<cuda::gridFor(total), cuda::kBlock, 0, stream>>>(l, io.indices.data, io.updates.data, io.output.data, total);
  return cuda::lastError(kName);
}

}  // namespace

Status cuda(const Attrs&, const State&, const Io<float, int64_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<float, int32_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<int32_t, int64_t>& io, const CudaContext& ctx) { return run(io, ctx); }
Status cuda(const Attrs&, const State&, const Io<int32_t, int32_t>& io, const CudaContext& ctx) { return run(io, ctx); }

}  // namespace scatter_nd
}  // namespace ops
}  // namespace opforge
