// Bicubic interpolation shared by the CPU and CUDA kernels of DynamicTRTResize, following
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

OPFORGE_HD inline float cubic1(float x, float a) { return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1.0f; }
OPFORGE_HD inline float cubic2(float x, float a) { return ((a * x - 5.0f * a) * x + 8.0f * a) * x - 4.0f * a; }

OPFORGE_HD inline void coefficients(float t, float* w) {
  const float a = -0.75f;
  w[0] = cubic2(t + 1.0f, a);
  w[1] = cubic1(t, a);
  w[2] = cubic1(1.0f - t, a);
  w[3] = cubic2(2.0f - t, a);
}

/** PyTorch's area_pixel_compute_scale for a given output size (no explicit scale factor). */
OPFORGE_HD inline float scale(int64_t in, int64_t out, bool alignCorners) {
  if (alignCorners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  return static_cast<float>(in) / static_cast<float>(out);
}

OPFORGE_HD inline float source(float scale, int64_t dst, bool alignCorners) {
  return alignCorners ? scale * static_cast<float>(dst) : scale * (static_cast<float>(dst) + 0.5f) - 0.5f;
}

OPFORGE_HD inline int64_t clampIndex(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/** Where output pixel (oy, ox) reads from and with what weights: the same for every plane. */
struct Taps {
  int64_t rows[4];  // row offsets (clamped row index * inW)
  int64_t cols[4];  // clamped column indices
  float wy[4];
  float wx[4];
};

OPFORGE_HD inline Taps taps(int64_t inH, int64_t inW, float sh, float sw, int64_t oy, int64_t ox, bool alignCorners) {
  Taps t;
  const float fy = source(sh, oy, alignCorners);
  const float fx = source(sw, ox, alignCorners);
  const float y0 = floorf(fy);
  const float x0 = floorf(fx);
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
OPFORGE_HD inline T apply(const T* plane, const Taps& t) {
  float acc = 0.0f;
  for (int r = 0; r < 4; ++r) {
    const T* row = plane + t.rows[r];
    float racc = 0.0f;
    for (int c = 0; c < 4; ++c) racc += t.wx[c] * toFloat(row[t.cols[c]]);
    acc += t.wy[r] * racc;
  }
  return fromCompute<T>(acc);
}

/** One output pixel of one (n, c) plane. */
template <typename T>
OPFORGE_HD inline T pixel(const T* plane, int64_t inH, int64_t inW, float sh, float sw, int64_t oy, int64_t ox, bool alignCorners) {
  return apply(plane, taps(inH, inW, sh, sw, oy, ox, alignCorners));
}

}  // namespace bicubic
}  // namespace dynamic_trt_resize
}  // namespace ops
}  // namespace opforge
