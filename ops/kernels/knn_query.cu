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

// A warp per query. Each step its 32 lanes take 32 consecutive points; a ballot finds those that
// beat the current k-th (all of them until k are kept), and they are appended to a per-warp buffer
// in shared memory. When the buffer holds more than 32 they are merged into the warp's sorted list
// (also in shared memory): the buffer is sorted by rank (how many others come before each), then
// every entry's merged position is its own index plus a binary search in the other sorted array,
// and entries are written straight there. The k-th, the filter, is refreshed at each merge.
// Measured against inserting candidates one at a time into a register-resident list (a ballot per
// 32 entries to find the place, shuffles to shift the tail): faster at every k, 1.2x at k = 16 and
// 5.5x at k = 1000 (docs/benchmarks.md). The block's warps walk the union of their queries' point
// ranges tile by tile through shared memory.
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBuffer = 64;  // 96 measured the same, 128 slower (the rank sort is quadratic)

/** The k nearest candidates seen so far by one warp, for k <= kCap. Every member is called by the whole warp. */
template <int kCap>
class WarpTopK {
 public:
  static_assert(kCap % kWarpSize == 0, "kCap is a multiple of the warp size");
  static constexpr int kSlots = kCap / kWarpSize;  // list entries per lane in a merge
  // Points a tile: 512 keeps 4 warps' lists of 1024 within 48 KiB of shared memory.
  static constexpr int kTilePoints = kCap <= 256 ? 1024 : 512;
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
    const float inf = __builtin_huge_valf();
    for (int j = lane; j < k_; j += kWarpSize) {
      rowIdx[j] = j < filled_ ? sh_->listI[j] : -1;
      rowD[j] = j < filled_ ? sh_->listD[j] : inf;
    }
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

  /** How many of the sorted entries a[0, n) come before (d, i). */
  __device__ static int lowerBound(const float* ad, const int32_t* ai, int n, float d, int32_t i) {
    int lo = 0, hi = n;
    while (lo < hi) {
      const int mid = (lo + hi) / 2;
      if (knn::before(ad[mid], ai[mid], d, i)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
    float ld[kSlots];
    int32_t li[kSlots];
    int lpos[kSlots];
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      const int j = s * kWarpSize + lane;
      lpos[s] = k_;
      if (j < filled_) {
        ld[s] = sh_->listD[j];
        li[s] = sh_->listI[j];
        lpos[s] = j + lowerBound(sh_->sortD, sh_->sortI, count_, ld[s], li[s]);
      }
    }
    constexpr int kPerLane = kBuffer / kWarpSize;
    float bd[kPerLane];
    int32_t bi[kPerLane];
    int bpos[kPerLane];
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      const int r = t * kWarpSize + lane;
      bpos[t] = k_;
      if (r < count_) {
        bd[t] = sh_->sortD[r];
        bi[t] = sh_->sortI[r];
        bpos[t] = r + lowerBound(sh_->listD, sh_->listI, filled_, bd[t], bi[t]);
      }
    }
    __syncwarp();
#pragma unroll
    for (int s = 0; s < kSlots; ++s) {
      if (lpos[s] < k_) { sh_->listD[lpos[s]] = ld[s]; sh_->listI[lpos[s]] = li[s]; }
    }
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      if (bpos[t] < k_) { sh_->listD[bpos[t]] = bd[t]; sh_->listI[bpos[t]] = bi[t]; }
    }
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
  constexpr int kThreadsT = kWarpsPerBlock * kWarpSize;
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
  for (int64_t t0 = lo; t0 < hi; t0 += kTileT) {
    const int64_t count = hi - t0 < kTileT ? hi - t0 : kTileT;
    for (int64_t j = threadIdx.x; j < count * 3; j += kThreadsT) tile[j] = xyz[3 * t0 + j];
    __syncthreads();
    if (active) {
      const int64_t from = begin > t0 ? begin - t0 : 0;
      const int64_t to = end - t0 < count ? end - t0 : count;
      for (int64_t base = from; base < to; base += kWarpSize) {  // warp-uniform trip count
        const int64_t j = base + lane;
        const bool in = j < to;
        top.offer(in ? knn::dist2(tile + 3 * j, p) : 0.0f, static_cast<int32_t>(t0 + j), in, lane);
      }
    }
    __syncthreads();
  }
  if (active) top.write(idx + q * k, d2 + q * k, lane);
}

template <int kCap>
void launchWarp(const Attrs& attrs, const Io& io, int64_t m, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((m + kWarpsPerBlock - 1) / kWarpsPerBlock);
  knnWarpKernel<kCap><<<blocks, kWarpsPerBlock * kWarpSize, 0, stream>>>(io.xyz.data, io.offset.data, io.new_xyz.data, io.new_offset.data,
                                                                        io.xyz.shape[0], m, io.offset.shape[0], attrs.nsample, io.idx.data, io.dist2.data);
}

}  // namespace

Status cuda(const Attrs& attrs, const State&, const Io& io, const CudaContext& ctx) {
  const int64_t m = io.new_xyz.shape[0];
  if (m == 0) return Status::Ok();
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  const int64_t k = attrs.nsample;
  if (k <= 32) launchWarp<32>(attrs, io, m, stream);
  else if (k <= 64) launchWarp<64>(attrs, io, m, stream);
  else if (k <= 128) launchWarp<128>(attrs, io, m, stream);
  else if (k <= 256) launchWarp<256>(attrs, io, m, stream);
  else if (k <= 512) launchWarp<512>(attrs, io, m, stream);
  else if (k <= 1024) launchWarp<1024>(attrs, io, m, stream);
  else return Status::Error(std::string(kName) + ": the CUDA kernel supports nsample <= 1024");  // the spec's cap
  return cuda::lastError(kName);
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
