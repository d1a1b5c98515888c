// CUDA kernel of KNNQuery: one thread per query point. Offsets live on the device and are
// not validated here (that would need a sync); they are clamped so a bad offset cannot
// cause an out-of-bounds read.
#include <cuda_runtime.h>

#include "opforge/ops/knn_query.h"
#include "opforge/cuda_launch.h"

#include "knn_query_impl.h"

namespace opforge {
namespace ops {
namespace knn_query {
namespace {

__device__ inline int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

__global__ void knnKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset, const float* __restrict__ newXyz,
                          const int32_t* __restrict__ newOffset, int64_t n, int64_t m, int64_t batches, int64_t k,
                          int32_t* __restrict__ idx, float* __restrict__ d2) {
  for (int64_t q = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; q < m;
       q += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t b = knn::batchOf(newOffset, batches, q);
    int64_t begin = 0, end = 0;
    if (b >= 0) {
      end = clampTo(offset[b], 0, n);
      begin = b > 0 ? clampTo(offset[b - 1], 0, end) : 0;
    }
    knn::query(xyz, begin, end, newXyz + 3 * q, k, idx + q * k, d2 + q * k);
  }
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t m = io.new_xyz.shape[0];
  if (m == 0) return Status::Ok();
  knnKernel<<<cuda::gridFor(m, 128), 128, 0, static_cast<cudaStream_t>(ctx.stream)>>>(
      io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data, io.xyz.shape[0], m, io.offset.shape[0],
      attrs.nsample, io.idx.data, io.dist2.data);
  return cuda::lastError(kName);
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
