// Bicubic interpolation shared by the CPU and CUDA kernels of TRTBicubicInterpolate, as MMDeploy's
// trt_bicubic_interpolate_kernel.cu (itself PyTorch's UpSampleBicubic2d.cu): A = -0.75, source index
// (dst + 0.5) * scale - 0.5 (dst * scale with align_corners), taps clamped to the border, float math.
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/ops/trt_bicubic_interpolate.h"

namespace opforge {
namespace ops {
namespace trt_bicubic_interpolate {

OPFORGE_HD inline float cubic1(float x, float a) { return ((a + 2.f) * x - (a + 3.f)) * x * x + 1.f; }
OPFORGE_HD inline float cubic2(float x, float a) { return ((a * x - 5.f * a) * x + 8.f * a) * x - 4.f * a; }

/** The four tap weights at fractional offset t. */
OPFORGE_HD inline void weights(float t, float* w) {
  const float a = -0.75f;
  w[0] = cubic2(t + 1.f, a);
  w[1] = cubic1(t, a);
  w[2] = cubic1(1.f - t, a);
  w[3] = cubic2(2.f - t, a);
}

/** Input pixels per output pixel along one dim, for the output size (PyTorch's rule for a given size). */
OPFORGE_HD inline float scaleOf(int64_t in, int64_t out, bool alignCorners) {
  if (alignCorners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.f;
  return static_cast<float>(in) / static_cast<float>(out);
}

OPFORGE_HD inline int64_t clampIndex(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

/** Output pixel (y, x) of one [inH, inW] plane. */
OPFORGE_HD inline float pixel(const float* plane, int64_t inH, int64_t inW, float sh, float sw, int64_t y, int64_t x,
                              bool alignCorners) {
  const float fy = alignCorners ? sh * static_cast<float>(y) : sh * (static_cast<float>(y) + 0.5f) - 0.5f;
  const float fx = alignCorners ? sw * static_cast<float>(x) : sw * (static_cast<float>(x) + 0.5f) - 0.5f;
  const float y0 = floorf(fy);
  const float x0 = floorf(fx);
  float wy[4];
  float wx[4];
  weights(fy - y0, wy);
  weights(fx - x0, wx);
  const auto iy = static_cast<int64_t>(y0);
  const auto ix = static_cast<int64_t>(x0);
  float sum = 0.f;
  for (int r = 0; r < 4; ++r) {
    const float* row = plane + clampIndex(iy - 1 + r, inH) * inW;
    float acc = 0.f;
    for (int c = 0; c < 4; ++c) acc += wx[c] * row[clampIndex(ix - 1 + c, inW)];
    sum += wy[r] * acc;
  }
  return sum;
}

}  // namespace trt_bicubic_interpolate
}  // namespace ops
}  // namespace opforge
