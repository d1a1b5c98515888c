// k-nearest-neighbour search shared by the CPU and CUDA kernels of KNNQuery. The result
// row is kept sorted by (distance, index), so CPU and GPU agree even on ties; distances
// are computed without fused multiply-add for the same reason.
#pragma once

#include <cstdint>

#include "opforge/core.h"

namespace opforge {
namespace ops {
namespace knn_query {
namespace knn {

#if defined(__CUDA_ARCH__)
__device__ inline float dist2(const float* a, const float* b) {
  const float dx = __fsub_rn(a[0], b[0]), dy = __fsub_rn(a[1], b[1]), dz = __fsub_rn(a[2], b[2]);
  return __fadd_rn(__fadd_rn(__fmul_rn(dx, dx), __fmul_rn(dy, dy)), __fmul_rn(dz, dz));
}
#else
inline float dist2(const float* a, const float* b) {
  const float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  const volatile float xx = dx * dx, yy = dy * dy, zz = dz * dz;  // volatile: no FMA contraction
  return (xx + yy) + zz;
}
#endif

/** Batch of query q: the first b with q < newOffset[b]; -1 when q lies past the last offset. */
OPFORGE_HD inline int64_t batchOf(const int32_t* newOffset, int64_t batches, int64_t q) {
  for (int64_t b = 0; b < batches; ++b) if (q < newOffset[b]) return b;
  return -1;
}

/** Fills one output row: the k nearest of xyz[begin, end) to query p. */
OPFORGE_HD inline void query(const float* xyz, int64_t begin, int64_t end, const float* p, int64_t k, int32_t* idx, float* d2) {
  const float inf = __builtin_huge_valf();
  for (int64_t j = 0; j < k; ++j) { idx[j] = -1; d2[j] = inf; }
  for (int64_t i = begin; i < end; ++i) {
    const float d = dist2(xyz + 3 * i, p);
    // Insert (d, i) keeping the row sorted; equal distances keep the lower index first.
    int64_t j = k - 1;
    if (idx[j] != -1 && !(d < d2[j])) continue;
    while (j > 0 && (idx[j - 1] == -1 || d < d2[j - 1])) {
      idx[j] = idx[j - 1];
      d2[j] = d2[j - 1];
      --j;
    }
    idx[j] = static_cast<int32_t>(i);
    d2[j] = d;
  }
}

}  // namespace knn
}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
