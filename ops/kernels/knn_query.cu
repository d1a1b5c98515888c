// CUDA kernel of KNNQuery: a warp per query point (k <= 1024, the spec's limit). Offsets live on the device and are
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

// Warp kernel, for k <= 32 * kSlots (kSlots <= 32): a warp per query. The warp's top-k lives in registers, list
// position j in slot j / 32 of lane j % 32, sorted by `before`. Each step the 32 lanes take 32
// consecutive points; a ballot finds those that beat the current k-th, and only those are inserted
// (a shuffle shifts the tail up one position), so after the list fills most steps insert nothing.
// Per-thread lists in local memory (the previous kernel) were bound by local-memory traffic.
// The block's warps walk the union of their queries' point ranges tile by tile through shared memory.
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;

template <int kSlots>
struct WarpTopK {
  float d[kSlots];
  int32_t i[kSlots];
  int64_t k;
  int64_t filled = 0;
  float worstD = 0.0f;  // the k-th candidate once the list is full
  int32_t worstI = 0;

  __device__ __forceinline__ explicit WarpTopK(int64_t kk) : k(kk) {
#pragma unroll
    for (int s = 0; s < kSlots; ++s) { d[s] = 0.0f; i[s] = -1; }
  }
  /** Whether (cd, ci) would enter the list; warp-uniform when the arguments are. */
  __device__ __forceinline__ bool wants(float cd, int32_t ci) const { return filled < k || (k > 0 && knn::before(cd, ci, worstD, worstI)); }
  /** Inserts (cd, ci), the same on every lane. */
  __device__ __forceinline__ void insert(float cd, int32_t ci, int lane) {
    // The kept entries before the candidate form a prefix of the list (it is sorted), so the
    // insertion point is in the first slot whose ballot is not all ones; later slots are skipped.
    int pos = 0;
    bool found = false;
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      if (!found) {  // warp-uniform
        const unsigned b = __ballot_sync(kFullMask, s * kWarpSize + lane < filled && knn::before(d[s], i[s], cd, ci));
        pos += __popc(b);
        found = b != kFullMask;
      }
    }
    // Shift positions >= pos up by one, from the top slot down, skipping the slots wholly below pos;
    // the carry crosses slots through lane 31.
#pragma unroll
    for (int t = 0; t < kSlots; ++t) {
      const int s = kSlots - 1 - t;
      if ((s + 1) * kWarpSize <= pos) break;  // warp-uniform
      float upD = __shfl_up_sync(kFullMask, d[s], 1);
      int32_t upI = __shfl_up_sync(kFullMask, i[s], 1);
      if (s > 0) {
        const float carryD = __shfl_sync(kFullMask, d[s > 0 ? s - 1 : 0], kWarpSize - 1);
        const int32_t carryI = __shfl_sync(kFullMask, i[s > 0 ? s - 1 : 0], kWarpSize - 1);
        if (lane == 0) { upD = carryD; upI = carryI; }
      }
      const int j = s * kWarpSize + lane;
      if (j > pos) { d[s] = upD; i[s] = upI; }
      else if (j == pos) { d[s] = cd; i[s] = ci; }
    }
    if (filled < k) ++filled;
    if (filled == k) {
      const int last = static_cast<int>(k - 1);
      // Slot last / 32 picked with masks: a plain `if (s == slot)` is turned back into a dynamic
      // index, which moves the whole list to local memory.
      unsigned wd = 0, wi = 0;
#pragma unroll
      for (int s = 0; s < kSlots; ++s) {
        const unsigned sel = 0u - static_cast<unsigned>(s == last / kWarpSize);
        wd |= __float_as_uint(d[s]) & sel;
        wi |= static_cast<unsigned>(i[s]) & sel;
      }
      worstD = __uint_as_float(__shfl_sync(kFullMask, wd, last % kWarpSize));
      worstI = static_cast<int32_t>(__shfl_sync(kFullMask, wi, last % kWarpSize));
    }
  }
};

template <int kSlots>
__global__ void __launch_bounds__(kWarpsPerBlock * kWarpSize) knnWarpKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset,
                                                                             const float* __restrict__ newXyz, const int32_t* __restrict__ newOffset,
                                                                             int64_t n, int64_t m, int64_t batches, int64_t k,
                                                                             int32_t* __restrict__ idx, float* __restrict__ d2) {
  constexpr int kThreadsT = kWarpsPerBlock * kWarpSize;
  __shared__ float tile[kTile * 3];
  __shared__ long long lo, hi;
  const int lane = threadIdx.x % kWarpSize;
  const int64_t q = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  int64_t begin, end;
  float p[3];
  const bool active = loadQuery(offset, newXyz, newOffset, n, m, batches, q, &begin, &end, p);  // warp-uniform
  unionRange(active, begin, end, n, &lo, &hi);
  WarpTopK<kSlots> top(k);
  for (int64_t t0 = lo; t0 < hi; t0 += kTile) {
    const int64_t count = hi - t0 < kTile ? hi - t0 : kTile;
    for (int64_t j = threadIdx.x; j < count * 3; j += kThreadsT) tile[j] = xyz[3 * t0 + j];
    __syncthreads();
    if (active) {
      const int64_t from = begin > t0 ? begin - t0 : 0;
      const int64_t to = end - t0 < count ? end - t0 : count;
      for (int64_t base = from; base < to; base += kWarpSize) {  // warp-uniform trip count
        const int64_t j = base + lane;
        const bool in = j < to;
        const float cd = in ? knn::dist2(tile + 3 * j, p) : 0.0f;
        const auto ci = static_cast<int32_t>(t0 + j);
        unsigned want = __ballot_sync(kFullMask, in && top.wants(cd, ci));
        while (want != 0) {  // in lane order; the total order makes the result order-independent
          const int src = __ffs(want) - 1;
          want &= want - 1;
          const float sd = __shfl_sync(kFullMask, cd, src);
          const int32_t si = __shfl_sync(kFullMask, ci, src);
          if (top.wants(sd, si)) top.insert(sd, si, lane);  // the k-th may have moved since the ballot
        }
      }
    }
    __syncthreads();
  }
  if (active) {
    const float inf = __builtin_huge_valf();
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int64_t j = s * kWarpSize + lane;
      if (j < k) {
        idx[q * k + j] = j < top.filled ? top.i[s] : -1;
        d2[q * k + j] = j < top.filled ? top.d[s] : inf;
      }
    }
  }
}

template <int kSlots>
void launchWarp(const Attrs& attrs, const Io& io, int64_t m, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((m + kWarpsPerBlock - 1) / kWarpsPerBlock);
  knnWarpKernel<kSlots><<<blocks, kWarpsPerBlock * kWarpSize, 0, stream>>>(io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data,
                                                                          io.xyz.shape[0], m, io.offset.shape[0], attrs.nsample, io.idx.data, io.dist2.data);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t m = io.new_xyz.shape[0];
  if (m == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  if (attrs.nsample <= 32) {
    launchWarp<1>(attrs, io, m, stream);
  } else if (attrs.nsample <= 64) {
    launchWarp<2>(attrs, io, m, stream);
  } else if (attrs.nsample <= 128) {
    launchWarp<4>(attrs, io, m, stream);
  } else if (attrs.nsample <= 256) {
    launchWarp<8>(attrs, io, m, stream);
  } else if (attrs.nsample <= 512) {
    launchWarp<16>(attrs, io, m, stream);
  } else if (attrs.nsample <= 1024) {
    launchWarp<32>(attrs, io, m, stream);
  } else {
    // The spec caps nsample at 1024; a larger cap needs more register slots (or another kernel).
    return Status::Error(std::string(kName) + ": the CUDA kernel supports nsample <= 1024");
  }
  return cuda::lastError(kName);
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
