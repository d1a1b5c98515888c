// CUDA kernel of KNNQuery: several threads per query point for k <= 64, one for larger k. Offsets live on the device and are
// not validated here (that would need a sync); they are clamped so a bad offset cannot
// cause an out-of-bounds read.
#include <cuda_runtime.h>

#include <type_traits>

#include "opforge/ops/knn_query.h"
#include "opforge/cuda_launch.h"

#include "knn_query_impl.h"

namespace opforge {
namespace ops {
namespace knn_query {
namespace {

__device__ inline int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

constexpr int kThreads = 128;
constexpr int kTile = 1024;  // points staged in shared memory per step (12 KiB)

/** The point range [begin, end) of query q's batch (empty for a query past the last offset). */
__device__ inline void rangeOf(const int32_t* offset, const int32_t* newOffset, int64_t n, int64_t batches, int64_t q,
                               int64_t* begin, int64_t* end) {
  *begin = 0;
  *end = 0;
  const int64_t b = knn::batchOf(newOffset, batches, q);
  if (b >= 0) {
    *end = clampTo(offset[b], 0, n);
    *begin = b > 0 ? clampTo(offset[b - 1], 0, *end) : 0;
  }
}

/** Query q's point range and coordinates; false (and an empty range) for a thread past the last query. */
__device__ inline bool loadQuery(const int32_t* offset, const float* newXyz, const int32_t* newOffset, int64_t n, int64_t m,
                                 int64_t batches, int64_t q, int64_t* begin, int64_t* end, float* p) {
  *begin = 0;
  *end = 0;
  p[0] = p[1] = p[2] = 0.0f;
  if (q >= m) return false;
  rangeOf(offset, newOffset, n, batches, q, begin, end);
  p[0] = newXyz[3 * q]; p[1] = newXyz[3 * q + 1]; p[2] = newXyz[3 * q + 2];
  return true;
}

/** Called by every thread of the block: [*lo, *hi) becomes the union of the active threads' ranges. */
__device__ inline void unionRange(bool active, int64_t begin, int64_t end, int64_t n, long long* lo, long long* hi) {
  if (threadIdx.x == 0) { *lo = n; *hi = 0; }
  __syncthreads();
  if (active && begin < end) { atomicMin(lo, static_cast<long long>(begin)); atomicMax(hi, static_cast<long long>(end)); }
  __syncthreads();
}

// Split kernel, for k <= kMaxK: kLanes threads share a query, lane l taking the points whose index
// is l modulo kLanes into its own top-k (in local memory); the kLanes partial lists are then merged
// pairwise through shared memory. With one thread per query, 4096 queries filled only 32 of an H100's
// 132 SMs. The block walks the union of its queries' point ranges tile by tile through shared memory.
// kThreadsT shrinks as kMaxK grows, keeping the partial lists within 48 KiB of shared memory.
constexpr int kLanes = 8;

template <int kMaxK, int kThreadsT>
__global__ void __launch_bounds__(kThreadsT) knnSplitKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset,
                                                             const float* __restrict__ newXyz, const int32_t* __restrict__ newOffset,
                                                             int64_t n, int64_t m, int64_t batches, int64_t k,
                                                             int32_t* __restrict__ idx, float* __restrict__ d2) {
  constexpr int kQueriesPerBlock = kThreadsT / kLanes;
  __shared__ float tile[kTile * 3];
  __shared__ int32_t partIdx[kThreadsT][kMaxK];
  __shared__ float partD[kThreadsT][kMaxK];
  __shared__ int partFilled[kThreadsT];
  __shared__ long long lo, hi;
  const int lane = threadIdx.x % kLanes;
  const int64_t q = blockIdx.x * static_cast<int64_t>(kQueriesPerBlock) + threadIdx.x / kLanes;
  int64_t begin, end;
  float p[3];
  const bool active = loadQuery(offset, newXyz, newOffset, n, m, batches, q, &begin, &end, p);
  unionRange(active, begin, end, n, &lo, &hi);
  // Up to 32 a sorted list is cheapest; beyond, a heap (shifting 64 entries per insert was 13x slower).
  using Top = std::conditional_t<(kMaxK > 32), knn::TopKHeap, knn::TopK>;
  int32_t myIdx[kMaxK];
  float myD[kMaxK];
  Top top(myIdx, myD, active ? k : 0);
  for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
    const int64_t count = hi - t0 < kTile ? hi - t0 : kTile;
    for (int64_t j = threadIdx.x; j < count * 3; j += kThreadsT) tile[j] = xyz[3 * t0 + j];
    __syncthreads();
    if (active) {
      const int64_t from = begin > t0 ? begin - t0 : 0;
      const int64_t to = end - t0 < count ? end - t0 : count;
      // First j >= from with (t0 + j) % kLanes == lane.
      const int64_t first = from + ((lane - (t0 + from) % kLanes) + kLanes) % kLanes;
      for (int64_t j = first; j < to; j += kLanes) top.push(knn::dist2(tile + 3 * j, p), static_cast<int32_t>(t0 + j));
    }
    __syncthreads();
  }
  // Each lane's list, sorted, into shared memory; then lanes merge pairwise (log2(kLanes) rounds of
  // a two-list merge, O(k) each) instead of one lane pushing kLanes * k candidates.
  top.finish();
  for (int64_t j = 0; j < top.filled; ++j) { partIdx[threadIdx.x][j] = myIdx[j]; partD[threadIdx.x][j] = myD[j]; }
  partFilled[threadIdx.x] = static_cast<int>(top.filled);
  __syncthreads();
  for (int step = 1; step < kLanes; step *= 2) {
    if (lane % (2 * step) == 0) {
      const int a = threadIdx.x, b = threadIdx.x + step;
      const int na = partFilled[a], nb = partFilled[b];
      const int n = na + nb < k ? na + nb : static_cast<int>(k);
      for (int j = 0, ia = 0, ib = 0; j < n; ++j) {
        const bool fromA = ib >= nb || (ia < na && knn::before(partD[a][ia], partIdx[a][ia], partD[b][ib], partIdx[b][ib]));
        myD[j] = fromA ? partD[a][ia] : partD[b][ib];
        myIdx[j] = fromA ? partIdx[a][ia++] : partIdx[b][ib++];
      }
      for (int j = 0; j < n; ++j) { partIdx[a][j] = myIdx[j]; partD[a][j] = myD[j]; }
      partFilled[a] = n;
    }
    __syncthreads();
  }
  if (active && lane == 0) {
    const float inf = __builtin_huge_valf();
    for (int64_t j = 0; j < k; ++j) {
      const bool found = j < partFilled[threadIdx.x];
      idx[q * k + j] = found ? partIdx[threadIdx.x][j] : -1;
      d2[q * k + j] = found ? partD[threadIdx.x][j] : inf;
    }
  }
}

template <int kMaxK, int kThreadsT>
void launchSplit(const Attrs& attrs, const Io& io, int64_t m, cudaStream_t stream) {
  constexpr int kQueriesPerBlock = kThreadsT / kLanes;
  const auto blocks = static_cast<unsigned>((m + kQueriesPerBlock - 1) / kQueriesPerBlock);
  knnSplitKernel<kMaxK, kThreadsT><<<blocks, kThreadsT, 0, stream>>>(io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data,
                                                                     io.xyz.shape[0], m, io.offset.shape[0], attrs.nsample, io.idx.data, io.dist2.data);
}

// One thread per query, for any k: the row is a heap in the output itself, sorted at the end.
__global__ void knnKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset, const float* __restrict__ newXyz,
                          const int32_t* __restrict__ newOffset, int64_t n, int64_t m, int64_t batches, int64_t k,
                          int32_t* __restrict__ idx, float* __restrict__ d2) {
  __shared__ float tile[kTile * 3];
  __shared__ long long lo, hi;
  const int64_t q = blockIdx.x * static_cast<int64_t>(kThreads) + threadIdx.x;
  int64_t begin, end;
  float p[3];
  const bool active = loadQuery(offset, newXyz, newOffset, n, m, batches, q, &begin, &end, p);
  unionRange(active, begin, end, n, &lo, &hi);
  knn::TopKHeap top(active ? idx + q * k : nullptr, active ? d2 + q * k : nullptr, active ? k : 0);
  for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
    const int64_t count = hi - t0 < kTile ? hi - t0 : kTile;
    for (int64_t j = threadIdx.x; j < count * 3; j += kThreads) tile[j] = xyz[3 * t0 + j];
    __syncthreads();
    if (active) {
      const int64_t from = begin > t0 ? begin - t0 : 0;
      const int64_t to = end - t0 < count ? end - t0 : count;
      for (int64_t j = from; j < to; ++j) top.push(knn::dist2(tile + 3 * j, p), static_cast<int32_t>(t0 + j));
    }
    __syncthreads();
  }
  top.finish();
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t m = io.new_xyz.shape[0];
  if (m == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  if (attrs.nsample <= 32) {
    launchSplit<32, 128>(attrs, io, m, stream);
  } else if (attrs.nsample <= 64) {
    launchSplit<64, 64>(attrs, io, m, stream);
  } else {
    const auto blocks = static_cast<unsigned>((m + kThreads - 1) / kThreads);
    knnKernel<<<blocks, kThreads, 0, stream>>>(io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data,
                                               io.xyz.shape[0], m, io.offset.shape[0], attrs.nsample, io.idx.data, io.dist2.data);
  }
  return cuda::lastError(kName);
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
