// Shared by the CPU and CUDA kernels of MMCVMultiScaleDeformableAttention: one output element, as
// the plugin's ms_deformable_im2col_gpu_kernel computes it (float arithmetic for every T).
#pragma once

#include <cmath>

#include "opforge/ops/mmcv_multi_scale_deformable_attention.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_scale_deformable_attention {

struct Dims {
  int64_t batch, keys, heads, channels, levels, queries, points;
};

template <typename T, typename I>
Dims dimsOf(const Io<T, I>& io) {
  const Shape& v = io.value.shape;
  return Dims{v[0], v[1], v[2], v[3], io.value_spatial_shapes.shape[0], io.sampling_locations.shape[1], io.sampling_locations.shape[4]};
}

/** Whether level l lies inside the keys: its H x W map from its start index. */
template <typename I>
OPFORGE_HD inline bool levelFits(const I* shapes, const I* starts, int64_t l, int64_t keys) {
  const auto h = static_cast<int64_t>(shapes[2 * l]), w = static_cast<int64_t>(shapes[2 * l + 1]);
  const auto start = static_cast<int64_t>(starts[l]);
  return h >= 0 && w >= 0 && start >= 0 && start + h * w <= keys;
}

/** value[b, key, m, c] of one level's map at (h, w) in pixel coordinates, zero taps outside. */
template <typename T>
OPFORGE_HD inline float bilinear(const T* level, int64_t height, int64_t width, int64_t heads, int64_t channels, float h, float w,
                                 int64_t m, int64_t c) {
  const auto hLow = static_cast<int64_t>(floorf(h)), wLow = static_cast<int64_t>(floorf(w));
  const int64_t hHigh = hLow + 1, wHigh = wLow + 1;
  const float lh = h - static_cast<float>(hLow), lw = w - static_cast<float>(wLow), hh = 1 - lh, hw = 1 - lw;
  const int64_t wStride = heads * channels, hStride = width * wStride, base = m * channels + c;
  const float v1 = hLow >= 0 && wLow >= 0 ? toCompute(level[hLow * hStride + wLow * wStride + base]) : 0.f;
  const float v2 = hLow >= 0 && wHigh <= width - 1 ? toCompute(level[hLow * hStride + wHigh * wStride + base]) : 0.f;
  const float v3 = hHigh <= height - 1 && wLow >= 0 ? toCompute(level[hHigh * hStride + wLow * wStride + base]) : 0.f;
  const float v4 = hHigh <= height - 1 && wHigh <= width - 1 ? toCompute(level[hHigh * hStride + wHigh * wStride + base]) : 0.f;
  return hh * hw * v1 + hh * lw * v2 + lh * hw * v3 + lh * lw * v4;
}

/** Output element index = ((b * queries + q) * heads + m) * channels + c; NaN when a level lies outside the keys. */
template <typename T, typename I>
OPFORGE_HD inline float attend(const Dims& d, const T* value, const I* shapes, const I* starts, const T* loc, const T* weights,
                               int64_t index) {
  const int64_t c = index % d.channels, sample = index / d.channels, m = sample % d.heads, b = sample / d.heads / d.queries;
  int64_t weightAt = sample * d.levels * d.points;
  float col = 0.f;
  for (int64_t l = 0; l < d.levels; ++l) {
    if (!levelFits(shapes, starts, l, d.keys)) return NAN;
    const auto height = static_cast<int64_t>(shapes[2 * l]), width = static_cast<int64_t>(shapes[2 * l + 1]);
    const T* level = value + (b * d.keys + static_cast<int64_t>(starts[l])) * d.heads * d.channels;
    for (int64_t p = 0; p < d.points; ++p, ++weightAt) {
      const float h = toCompute(loc[2 * weightAt + 1]) * static_cast<float>(height) - 0.5f;
      const float w = toCompute(loc[2 * weightAt]) * static_cast<float>(width) - 0.5f;
      if (h > -1 && w > -1 && h < static_cast<float>(height) && w < static_cast<float>(width))
        col += bilinear(level, height, width, d.heads, d.channels, h, w, m, c) * toCompute(weights[weightAt]);
    }
  }
  return col;
}

}  // namespace mmcv_multi_scale_deformable_attention
}  // namespace ops
}  // namespace opforge
