// k-nearest-neighbour search shared by the CPU and CUDA kernels of KNNQuery. The result
// row is kept sorted by (distance, index), a total order, so CPU and GPU agree even on ties;
// distances are computed without fused multiply-add for the same reason.
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

/**
 * The order of candidates: by distance, NaN after every number (as torch.topk ranks NaN highest),
 * then by index. A total order, so the k smallest are the same whatever order candidates come in
 * (the CUDA kernel takes them 32 at a time) and CPU and GPU agree even on ties.
 */
OPFORGE_HD inline bool before(float d, int32_t i, float e, int32_t j) {
  const bool dNan = d != d, eNan = e != e;
  if (dNan || eNan) return dNan ? (eNan && i < j) : true;
  return d < e || (d == e && i < j);
}

/**
 * The k smallest candidates seen so far, kept sorted by `before` in the row itself (the output
 * row, or a scratch row). The worst kept candidate is in registers so most are rejected at once.
 */
struct TopK {
  int32_t* idx;
  float* d2;
  int64_t k;
  int64_t filled = 0;
  float worst = 0.0f;
  int32_t worstIdx = 0;

  OPFORGE_HD TopK(int32_t* i, float* d, int64_t kk) : idx(i), d2(d), k(kk) {
    const float inf = __builtin_huge_valf();
    for (int64_t j = 0; j < k; ++j) { idx[j] = -1; d2[j] = inf; }
  }
  OPFORGE_HD void push(float d, int32_t i) {
    if (filled == k && !before(d, i, worst, worstIdx)) return;
    int64_t j = filled < k ? filled++ : k - 1;
    while (j > 0 && before(d, i, d2[j - 1], idx[j - 1])) {
      idx[j] = idx[j - 1];
      d2[j] = d2[j - 1];
      --j;
    }
    idx[j] = i;
    d2[j] = d;
    worst = d2[filled - 1];
    worstIdx = idx[filled - 1];
  }
  /** The row is sorted as it goes. */
  OPFORGE_HD void finish() {}
};

/**
 * The same set for large k: a max-heap by `before` (the worst candidate at the root), so a push
 * costs O(log k) instead of shifting up to k entries; finish() heap-sorts the row ascending.
 */
struct TopKHeap {
  int32_t* idx;
  float* d2;
  int64_t k;
  int64_t filled = 0;

  OPFORGE_HD TopKHeap(int32_t* i, float* d, int64_t kk) : idx(i), d2(d), k(kk) {
    const float inf = __builtin_huge_valf();
    for (int64_t j = 0; j < k; ++j) { idx[j] = -1; d2[j] = inf; }
  }
  OPFORGE_HD void push(float d, int32_t i) {
    if (filled < k) {
      int64_t j = filled++;
      while (j > 0) {  // sift up past every parent that comes before (d, i)
        const int64_t parent = (j - 1) / 2;
        if (!before(d2[parent], idx[parent], d, i)) break;
        idx[j] = idx[parent];
        d2[j] = d2[parent];
        j = parent;
      }
      idx[j] = i;
      d2[j] = d;
      return;
    }
    if (k > 0 && before(d, i, d2[0], idx[0])) siftDown(0, filled, d, i);
  }
  OPFORGE_HD void finish() {
    for (int64_t n = filled - 1; n > 0; --n) {
      const float d = d2[n];
      const int32_t i = idx[n];
      idx[n] = idx[0];
      d2[n] = d2[0];
      siftDown(0, n, d, i);
    }
  }

 private:
  /** Puts (d, i) at slot j of the heap [0, n), moving larger children up. */
  OPFORGE_HD void siftDown(int64_t j, int64_t n, float d, int32_t i) {
    for (;;) {
      int64_t c = 2 * j + 1;
      if (c >= n) break;
      if (c + 1 < n && before(d2[c], idx[c], d2[c + 1], idx[c + 1])) ++c;
      if (!before(d, i, d2[c], idx[c])) break;
      idx[j] = idx[c];
      d2[j] = d2[c];
      j = c;
    }
    idx[j] = i;
    d2[j] = d;
  }
};

template <typename Top>
OPFORGE_HD inline void scan(Top top, const float* xyz, int64_t begin, int64_t end, const float* p) {
  for (int64_t i = begin; i < end; ++i) top.push(dist2(xyz + 3 * i, p), static_cast<int32_t>(i));
  top.finish();
}

/** Fills one output row: the k nearest of xyz[begin, end) to query p (a heap beyond k = 32). */
OPFORGE_HD inline void query(const float* xyz, int64_t begin, int64_t end, const float* p, int64_t k, int32_t* idx, float* d2) {
  if (k > 32) scan(TopKHeap(idx, d2, k), xyz, begin, end, p);
  else scan(TopK(idx, d2, k), xyz, begin, end, p);
}

}  // namespace knn
}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
