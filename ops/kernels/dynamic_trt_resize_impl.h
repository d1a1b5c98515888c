// Bicubic interpolation shared by the CPU and CUDA kernels of DynamicTRTResize and its gradient, following
// PyTorch's upsample_bicubic2d: A = -0.75, source index (dst + 0.5) * scale - 0.5 (or
// dst * scale with align_corners), taps clamped to the border.
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/core.h"

namespace opforge {
namespace ops {
namespace dynamic_trt_resize {
namespace bicubic {

/** The scalar the weights and sums are computed in: double for float64 tensors (gradcheck), else float. */
template <typename T> struct Acc { using type = float; };
template <> struct Acc<double> { using type = double; };
template <typename T> using acc_t = typename Acc<T>::type;

OPFORGE_HD inline float floorOf(float x) { return floorf(x); }
OPFORGE_HD inline double floorOf(double x) { return floor(x); }

template <typename S> OPFORGE_HD inline S cubic1(S x, S a) { return ((a + S(2)) * x - (a + S(3))) * x * x + S(1); }
template <typename S> OPFORGE_HD inline S cubic2(S x, S a) { return ((a * x - S(5) * a) * x + S(8) * a) * x - S(4) * a; }

template <typename S>
OPFORGE_HD inline void coefficients(S t, S* w) {
  const S a = S(-0.75);
  w[0] = cubic2(t + S(1), a);
  w[1] = cubic1(t, a);
  w[2] = cubic1(S(1) - t, a);
  w[3] = cubic2(S(2) - t, a);
}

/** PyTorch's area_pixel_compute_scale for a given output size (no explicit scale factor). */
template <typename S = float>
OPFORGE_HD inline S scale(int64_t in, int64_t out, bool alignCorners) {
  if (alignCorners) return out > 1 ? static_cast<S>(in - 1) / static_cast<S>(out - 1) : S(0);
  return static_cast<S>(in) / static_cast<S>(out);
}

template <typename S>
OPFORGE_HD inline S source(S scale, int64_t dst, bool alignCorners) {
  return alignCorners ? scale * static_cast<S>(dst) : scale * (static_cast<S>(dst) + S(0.5)) - S(0.5);
}

OPFORGE_HD inline int64_t clampIndex(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/** Where output pixel (oy, ox) reads from and with what weights: the same for every plane. */
template <typename S = float>
struct Taps {
  int64_t rows[4];  // row offsets (clamped row index * inW)
  int64_t cols[4];  // clamped column indices
  S wy[4];
  S wx[4];
};

template <typename S>
OPFORGE_HD inline Taps<S> taps(int64_t inH, int64_t inW, S sh, S sw, int64_t oy, int64_t ox, bool alignCorners) {
  Taps<S> t;
  const S fy = source(sh, oy, alignCorners);
  const S fx = source(sw, ox, alignCorners);
  const S y0 = floorOf(fy);
  const S x0 = floorOf(fx);
  coefficients(fy - y0, t.wy);
  coefficients(fx - x0, t.wx);
  const auto iy = static_cast<int64_t>(y0);
  const auto ix = static_cast<int64_t>(x0);
  for (int r = 0; r < 4; ++r) {
    t.rows[r] = clampIndex(iy - 1 + r, inH) * inW;
    t.cols[r] = clampIndex(ix - 1 + r, inW);
  }
  return t;
}

/** The output pixel of one (n, c) plane at the taps' position. */
template <typename T>
OPFORGE_HD inline T apply(const T* plane, const Taps<acc_t<T>>& t) {
  using S = acc_t<T>;
  S acc = S(0);
  for (int r = 0; r < 4; ++r) {
    const T* row = plane + t.rows[r];
    S racc = S(0);
    for (int c = 0; c < 4; ++c) racc += t.wx[c] * static_cast<S>(toCompute(row[t.cols[c]]));
    acc += t.wy[r] * racc;
  }
  return fromCompute<T>(static_cast<compute_t<T>>(acc));
}

/** One output pixel of one (n, c) plane. */
template <typename T>
OPFORGE_HD inline T pixel(const T* plane, int64_t inH, int64_t inW, acc_t<T> sh, acc_t<T> sw, int64_t oy, int64_t ox, bool alignCorners) {
  return apply(plane, taps(inH, inW, sh, sw, oy, ox, alignCorners));
}

}  // namespace bicubic
}  // namespace dynamic_trt_resize
}  // namespace ops
}  // namespace opforge
