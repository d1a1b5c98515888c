// CUDA kernel of KNNQuery: a warp per query point (k <= 1024, the spec's limit). Offsets live on
// the device and are not validated here (that would need a sync); they are clamped so a bad offset
// cannot cause an out-of-bounds read.
#include <cuda_runtime.h>

#include "opforge/ops/knn_query.h"
#include "opforge/cuda_launch.h"

#include "knn_query_impl.h"

namespace opforge {
namespace ops {
namespace knn_query {
namespace {

__device__ inline int64_t clampTo(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

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

// Merge kernel, for k <= 128: a warp per query. Each step its 32 lanes take 32 consecutive points;
// a ballot finds those that beat the current k-th (all of them until k are kept), and they are
// appended to a per-warp buffer in shared memory. When the buffer holds more than 32 they are
// merged into the warp's sorted list (also in shared memory): the buffer is sorted by rank (how
// many others come before each), then every entry's merged position is its own index plus a binary
// search in the other sorted array, and entries are written straight there. The k-th, the filter,
// is refreshed at each merge. Against inserting candidates one at a time into a register-resident
// list (a ballot per 32 entries to find the place, shuffles to shift the tail) it was faster at
// every k (docs/benchmarks.md). The block's warps walk the union of their queries' point ranges
// tile by tile through shared memory.
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBuffer = 64;  // 96 measured the same, 128 slower (the rank sort is quadratic)

/**
 * Walks the union [lo, hi) of the block's query ranges tile by tile through shared memory; every
 * thread of the block calls it. For an active warp, f(d, index, in) runs once per step of 32 of
 * its own points [begin, end), with the same trip count on every lane (`in` marks real points).
 */
template <int kTileT, class F>
__device__ __forceinline__ void forEachPoint(float* tile, const float* __restrict__ xyz, int64_t lo, int64_t hi, bool active,
                                             int64_t begin, int64_t end, const float* p, int lane, F&& f) {
  constexpr int kThreadsT = kWarpsPerBlock * kWarpSize;
  for (int64_t t0 = lo; t0 < hi; t0 += kTileT) {
    const int64_t count = hi - t0 < kTileT ? hi - t0 : kTileT;
    for (int64_t j = threadIdx.x; j < count * 3; j += kThreadsT) tile[j] = xyz[3 * t0 + j];
    __syncthreads();
    if (active) {
      const int64_t from = begin > t0 ? begin - t0 : 0;
      const int64_t to = end - t0 < count ? end - t0 : count;
      for (int64_t base = from; base < to; base += kWarpSize) {
        const int64_t j = base + lane;
        const bool in = j < to;
        f(in ? knn::dist2(tile + 3 * j, p) : 0.0f, static_cast<int32_t>(t0 + j), in);
      }
    }
    __syncthreads();
  }
}

/** Writes an output row: the `filled` sorted entries, then (-1, +inf) up to k. */
__device__ __forceinline__ void writeRow(const float* d, const int32_t* i, int filled, int64_t k, int32_t* rowIdx, float* rowD, int lane) {
  const float inf = __builtin_huge_valf();
  for (int64_t j = lane; j < k; j += kWarpSize) {
    rowIdx[j] = j < filled ? i[j] : -1;
    rowD[j] = j < filled ? d[j] : inf;
  }
}

/**
 * A lane's share (entries lane, lane + 32, ...) of one sorted array being merged with another: each
 * entry's merged position is its own index plus how many of the other array come before it.
 */
template <int kPerLane>
struct Placed {
  float d[kPerLane];
  int32_t i[kPerLane];
  int pos[kPerLane];

  /** How many of the sorted entries a[0, n) come before (d, i). */
  __device__ static int lowerBound(const float* ad, const int32_t* ai, int n, float dv, int32_t iv) {
    int lo = 0, hi = n;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (knn::before(ad[mid], ai[mid], dv, iv)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** Reads this lane's entries of src[0, n) and places them against other[0, otherN); `limit` = none. */
  __device__ __forceinline__ void place(const float* srcD, const int32_t* srcI, int n, const float* otherD, const int32_t* otherI,
                                        int otherN, int limit, int lane) {
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      const int j = t * kWarpSize + lane;
      pos[t] = limit;
      if (j < n) {
        d[t] = srcD[j];
        i[t] = srcI[j];
        pos[t] = j + lowerBound(otherD, otherI, otherN, d[t], i[t]);
      }
    }
  }
  /** Writes the placed entries whose position is below `limit`. */
  __device__ __forceinline__ void store(float* dstD, int32_t* dstI, int limit) const {
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      if (pos[t] < limit) { dstD[pos[t]] = d[t]; dstI[pos[t]] = i[t]; }
    }
  }
};

/** The k nearest candidates seen so far by one warp, for k <= kCap. Every member is called by the whole warp. */
template <int kCap>
class WarpTopK {
 public:
  static_assert(kCap <= 128, "larger k: the select kernel");
  static_assert(kCap % kWarpSize == 0, "kCap is a multiple of the warp size");
  static constexpr int kSlots = kCap / kWarpSize;  // list entries per lane in a merge
  static constexpr int kTilePoints = 1024;
  struct Shared {
    float listD[kCap];
    int32_t listI[kCap];
    float bufD[kBuffer];
    int32_t bufI[kBuffer];
    float sortD[kBuffer];
    int32_t sortI[kBuffer];
  };

  __device__ WarpTopK(int64_t k, Shared* sh) : sh_(sh), k_(static_cast<int>(k)) {}

  /** One step: lane `lane` offers (d, i) when `in`. */
  __device__ __forceinline__ void offer(float d, int32_t i, bool in, int lane) {
    const unsigned pass = __ballot_sync(kFullMask, in && wants(d, i));
    if (pass == 0) return;  // warp-uniform
    if ((pass >> lane) & 1u) {
      const int at = count_ + __popc(pass & ((1u << lane) - 1u));
      sh_->bufD[at] = d;
      sh_->bufI[at] = i;
    }
    count_ += __popc(pass);
    if (count_ > kBuffer - kWarpSize) merge(lane);  // room for one more step
  }

  /** Writes the output row: the kept candidates in order, then (-1, +inf). */
  __device__ void write(int32_t* rowIdx, float* rowD, int lane) {
    if (count_ > 0) merge(lane);
    writeRow(sh_->listD, sh_->listI, filled_, k_, rowIdx, rowD, lane);
  }

 private:
  Shared* sh_;
  int k_;
  int filled_ = 0;  // kept entries, sorted, in listD/listI[0, filled_)
  int count_ = 0;   // candidates in the buffer
  float worstD_ = 0.0f;  // the k-th kept entry once filled_ == k_
  int32_t worstI_ = 0;

  __device__ __forceinline__ bool wants(float d, int32_t i) const {
    return filled_ < k_ || (k_ > 0 && knn::before(d, i, worstD_, worstI_));
  }

  __device__ void merge(int lane) {
    __syncwarp();
    for (int e = lane; e < count_; e += kWarpSize) {  // sort the buffer by rank (a total order: ranks are distinct)
      const float d = sh_->bufD[e];
      const int32_t i = sh_->bufI[e];
      int rank = 0;
      for (int j = 0; j < count_; ++j) rank += knn::before(sh_->bufD[j], sh_->bufI[j], d, i) ? 1 : 0;
      sh_->sortD[rank] = d;
      sh_->sortI[rank] = i;
    }
    __syncwarp();
    // Every merged position is computed before any entry moves; positions >= k drop out.
    Placed<kSlots> kept;
    Placed<kBuffer / kWarpSize> added;
    kept.place(sh_->listD, sh_->listI, filled_, sh_->sortD, sh_->sortI, count_, k_, lane);
    added.place(sh_->sortD, sh_->sortI, count_, sh_->listD, sh_->listI, filled_, k_, lane);
    __syncwarp();
    kept.store(sh_->listD, sh_->listI, k_);
    added.store(sh_->listD, sh_->listI, k_);
    __syncwarp();
    filled_ = filled_ + count_ < k_ ? filled_ + count_ : k_;
    count_ = 0;
    if (filled_ == k_ && k_ > 0) {
      worstD_ = sh_->listD[k_ - 1];
      worstI_ = sh_->listI[k_ - 1];
    }
  }
};

template <int kCap>
__global__ void __launch_bounds__(kWarpsPerBlock * kWarpSize) knnWarpKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset,
                                                                             const float* __restrict__ newXyz, const int32_t* __restrict__ newOffset,
                                                                             int64_t n, int64_t m, int64_t batches, int64_t k,
                                                                             int32_t* __restrict__ idx, float* __restrict__ d2) {
  using Top = WarpTopK<kCap>;
  constexpr int kTileT = Top::kTilePoints;
  __shared__ float tile[kTileT * 3];
  __shared__ typename Top::Shared perWarp[kWarpsPerBlock];
  __shared__ long long lo, hi;
  const int lane = threadIdx.x % kWarpSize;
  const int64_t q = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  int64_t begin, end;
  float p[3];
  const bool active = loadQuery(offset, newXyz, newOffset, n, m, batches, q, &begin, &end, p);  // warp-uniform
  unionRange(active, begin, end, n, &lo, &hi);
  Top top(k, &perWarp[threadIdx.x / kWarpSize]);
  forEachPoint<kTileT>(tile, xyz, lo, hi, active, begin, end, p, lane, [&](float d, int32_t i, bool in) { top.offer(d, i, in, lane); });
  if (active) top.write(idx + q * k, d2 + q * k, lane);
}

// Select kernel, for k > 128: a warp per query finds the k-th candidate exactly by radix select
// on the 32-bit distance keys (four passes over its points, one byte each, histograms in shared
// memory), then gathers the candidates before it in one more pass and bitonic-sorts them. Its
// cost hardly depends on k, where merging into a sorted list costs O(k) per merge: at k = 1024,
// 0.78 ms against the merge kernel's 3.6 ms (H100, 8192 points a batch).
/** Distances as keys that order like `knn::before` orders distances: NaN after everything. */
__device__ __forceinline__ uint32_t orderKey(float d) { return d != d ? 0xffffffffu : __float_as_uint(d); }

template <int kCap>
struct SelectShared {
  float d[kCap];
  int32_t i[kCap];
  uint32_t hist[256];
};

template <int kCap>
__global__ void __launch_bounds__(kWarpsPerBlock * kWarpSize) knnSelectKernel(const float* __restrict__ xyz, const int32_t* __restrict__ offset,
                                                                               const float* __restrict__ newXyz, const int32_t* __restrict__ newOffset,
                                                                               int64_t n, int64_t m, int64_t batches, int64_t k,
                                                                               int32_t* __restrict__ idx, float* __restrict__ d2) {
  constexpr int kTileT = 512;  // keeps 4 warps' lists of 1024 within 48 KiB
  __shared__ float tile[kTileT * 3];
  __shared__ SelectShared<kCap> perWarp[kWarpsPerBlock];
  __shared__ long long lo, hi;
  const int lane = threadIdx.x % kWarpSize;
  const int64_t q = blockIdx.x * static_cast<int64_t>(kWarpsPerBlock) + threadIdx.x / kWarpSize;
  SelectShared<kCap>& sh = perWarp[threadIdx.x / kWarpSize];
  int64_t begin, end;
  float p[3];
  const bool active = loadQuery(offset, newXyz, newOffset, n, m, batches, q, &begin, &end, p);  // warp-uniform
  unionRange(active, begin, end, n, &lo, &hi);
  const int64_t points = end - begin;
  // The k-th key is prefix once all four bytes are chosen; `need` is how many candidates with that
  // key are kept (the lowest indices). With no more than k points every candidate is kept.
  uint32_t prefix = 0, mask = 0;
  int64_t need = k;
  const bool select = active && points > k;
  if (active && !select) { prefix = 0xffffffffu; need = points; }
  // Every warp of the block walks the tiles in every pass (they are shared), calling f(key, d, index, in).
  auto scan = [&](auto&& f) {
    forEachPoint<kTileT>(tile, xyz, lo, hi, active, begin, end, p, lane, [&](float d, int32_t i, bool in) { f(orderKey(d), d, i, in); });
  };
  for (int shift = 24; shift >= 0; shift -= 8) {
    if (select) {
      for (int b = lane; b < 256; b += kWarpSize) sh.hist[b] = 0;
      __syncwarp();
    }
    scan([&](uint32_t key, float, int32_t, bool in) {
      if (!select) return;
      const bool counted = in && (key & mask) == prefix;
      const unsigned bin = (key >> shift) & 0xffu;
      // One atomic per distinct bin: most keys share their leading byte.
      const unsigned same = __match_any_sync(kFullMask, counted ? bin : 0x100u);
      if (counted && (__ffs(same) - 1) == lane) atomicAdd(&sh.hist[bin], static_cast<uint32_t>(__popc(same)));
    });
    if (select) {
      __syncwarp();
      // The bin holding the need-th candidate: lane l sums bins 8l..8l+7, a warp scan finds the lane.
      uint32_t local[8];
      uint32_t sum = 0;
#pragma unroll
      for (int t = 0; t < 8; ++t) { local[t] = sh.hist[lane * 8 + t]; sum += local[t]; }
      uint32_t incl = sum;
#pragma unroll
      for (int o = 1; o < kWarpSize; o *= 2) {
        const uint32_t v = __shfl_up_sync(kFullMask, incl, o);
        if (lane >= o) incl += v;
      }
      const uint32_t excl = incl - sum;
      const unsigned holder = __ballot_sync(kFullMask, excl < need && static_cast<int64_t>(incl) >= need);
      const int src = __ffs(holder) - 1;
      uint32_t bin = 0, before = 0;
      if (lane == src) {
        uint32_t acc = excl;
#pragma unroll
        for (int t = 0; t < 8; ++t) {
          if (acc + local[t] >= need) { bin = lane * 8 + t; break; }
          acc += local[t];
        }
        before = acc;
      }
      bin = __shfl_sync(kFullMask, bin, src);
      before = __shfl_sync(kFullMask, before, src);
      need -= before;
      prefix |= bin << shift;
      mask |= 0xffu << shift;
    }
  }
  // Gather: every candidate with a smaller key, and the first `need` (by index) with the k-th key.
  int written = 0;
  int64_t equalTaken = 0;
  scan([&](uint32_t key, float d, int32_t i, bool in) {
    const unsigned less = __ballot_sync(kFullMask, in && key < prefix);
    const unsigned equal = __ballot_sync(kFullMask, in && key == prefix);
    const unsigned below = (1u << lane) - 1u;
    const int64_t eqRank = equalTaken + __popc(equal & below);
    const unsigned takenEqual = __ballot_sync(kFullMask, ((equal >> lane) & 1u) && eqRank < need);
    const unsigned taken = less | takenEqual;
    if ((taken >> lane) & 1u) {
      const int at = written + __popc(taken & below);
      sh.d[at] = d;
      sh.i[at] = i;
    }
    written += __popc(taken);
    equalTaken += __popc(takenEqual);
  });
  if (!active) return;
  // Bitonic sort of the kCap slots, the unused ones as (NaN, INT32_MAX), which sorts last.
  for (int j = written + lane; j < kCap; j += kWarpSize) { sh.d[j] = __int_as_float(0x7fffffff); sh.i[j] = 0x7fffffff; }
  __syncwarp();
  for (int size = 2; size <= kCap; size *= 2) {
    for (int stride = size / 2; stride > 0; stride /= 2) {
      for (int t = lane; t < kCap / 2; t += kWarpSize) {
        const int a = 2 * t - (t & (stride - 1));  // the pair (a, a + stride)
        const int b = a + stride;
        const bool ascending = (a & size) == 0;
        const float da = sh.d[a], db = sh.d[b];
        const int32_t ia = sh.i[a], ib = sh.i[b];
        if (knn::before(db, ib, da, ia) == ascending) { sh.d[a] = db; sh.i[a] = ib; sh.d[b] = da; sh.i[b] = ia; }
      }
      __syncwarp();
    }
  }
  writeRow(sh.d, sh.i, written, k, idx + q * k, d2 + q * k, lane);
}

using KnnKernel = void (*)(const float*, const int32_t*, const float*, const int32_t*, int64_t, int64_t, int64_t, int64_t, int32_t*, float*);

void launch(KnnKernel kernel, const Attrs& attrs, const Io& io, int64_t m, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((m + kWarpsPerBlock - 1) / kWarpsPerBlock);
  kernel<<<blocks, kWarpsPerBlock * kWarpSize, 0, stream>>>(io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data,
                                                           io.xyz.shape[0], m, io.offset.shape[0], attrs.nsample, io.idx.data, io.dist2.data);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t m = io.new_xyz.shape[0];
  if (m == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  // Merging costs O(k) per merge, selecting hardly depends on k: measured crossover between 128 and 256.
  const int64_t k = attrs.nsample;
  if (k <= 32) launch(knnWarpKernel<32>, attrs, io, m, stream);
  else if (k <= 64) launch(knnWarpKernel<64>, attrs, io, m, stream);
  else if (k <= 128) launch(knnWarpKernel<128>, attrs, io, m, stream);
  else if (k <= 256) launch(knnSelectKernel<256>, attrs, io, m, stream);
  else if (k <= 512) launch(knnSelectKernel<512>, attrs, io, m, stream);
  else if (k <= 1024) launch(knnSelectKernel<1024>, attrs, io, m, stream);
  else return Status::Error(std::string(kName) + ": the CUDA kernel supports nsample <= 1024");  // the spec's cap
  return cuda::lastError(kName);
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
