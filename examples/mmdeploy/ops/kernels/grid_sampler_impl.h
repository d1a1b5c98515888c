// Grid sampling shared by the CPU and CUDA kernels of grid_sampler, as PyTorch's GridSampler.h (which
// MMDeploy's trt_grid_sampler_kernel.cu ports): unnormalize, pad (clip or reflect), then bilinear /
// trilinear weights over the 2^S corners or the nearest pixel (rounded half to even), float math.
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/ops/grid_sampler.h"

namespace opforge {
namespace ops {
namespace grid_sampler {

/** What every output element needs: the shapes and the modes. */
struct Params {
  Shape in;    // [N, C, spatial...]
  Shape grid;  // [N, out spatial..., S]
  Shape out;   // [N, C, out spatial...]
  int spatial;  // S: 2 or 3
  bool nearest;
  int padding;  // 0 zeros, 1 border, 2 reflection
  bool align;
};

inline Params params(const Attrs& attrs, const Shape& in, const Shape& grid, const Shape& out) {
  return {in, grid, out, in.rank - 2, attrs.interpolation_mode == 1, static_cast<int>(attrs.padding_mode),
          attrs.align_corners != 0};
}

OPFORGE_HD inline float unnormalize(float c, int64_t size, bool align) {
  return align ? ((c + 1.f) / 2.f) * static_cast<float>(size - 1) : ((c + 1.f) * static_cast<float>(size) - 1.f) / 2.f;
}

OPFORGE_HD inline float clip(float c, int64_t size) { return fminf(static_cast<float>(size - 1), fmaxf(c, 0.f)); }

OPFORGE_HD inline float reflect(float c, int64_t twiceLow, int64_t twiceHigh) {
  if (twiceLow == twiceHigh) return 0.f;
  const float lo = static_cast<float>(twiceLow) / 2.f;
  const float span = static_cast<float>(twiceHigh - twiceLow) / 2.f;
  c = fabsf(c - lo);
  const float extra = fmodf(c, span);
  const int flips = static_cast<int>(floorf(c / span));
  return flips % 2 == 0 ? extra + lo : span - extra + lo;
}

/** The source coordinate of a normalized grid value along a dim of `size` pixels. */
OPFORGE_HD inline float source(float c, int64_t size, int padding, bool align) {
  c = unnormalize(c, size, align);
  if (padding == 1) return clip(c, size);
  if (padding == 2) {
    c = align ? reflect(c, 0, 2 * (size - 1)) : reflect(c, -1, 2 * size - 1);
    return clip(c, size);
  }
  return c;
}

/** Output element `i` (row-major over [N, C, out spatial...]). */
OPFORGE_HD inline float sample(const Params& p, const float* input, const float* grid, int64_t i) {
  const int S = p.spatial;
  // Output position: spatial index (innermost first in `pos`), then channel, then batch.
  int64_t pos[3] = {0, 0, 0};
  int64_t rest = i;
  int64_t cells = 1;
  for (int d = S - 1; d >= 0; --d) {
    const int64_t extent = p.out[2 + d];
    pos[d] = rest % extent;
    rest /= extent;
    cells *= extent;
  }
  const int64_t c = rest % p.in[1];
  const int64_t n = rest / p.in[1];
  int64_t cell = 0;
  for (int d = 0; d < S; ++d) cell = cell * p.out[2 + d] + pos[d];
  const float* g = grid + (n * cells + cell) * S;
  // Grid rows are (x, y[, z]): x is the last input dim.
  float at[3];
  int64_t size[3];
  for (int d = 0; d < S; ++d) {
    size[d] = p.in[2 + d];
    at[d] = source(g[S - 1 - d], size[d], p.padding, p.align);
  }
  int64_t plane = 1;
  for (int d = 0; d < S; ++d) plane *= size[d];
  const float* src = input + (n * p.in[1] + c) * plane;
  if (p.nearest) {
    int64_t offset = 0;
    for (int d = 0; d < S; ++d) {
      const int64_t k = static_cast<int64_t>(nearbyintf(at[d]));
      if (k < 0 || k >= size[d]) return 0.f;
      offset = offset * size[d] + k;
    }
    return src[offset];
  }
  float acc = 0.f;
  for (int corner = 0; corner < (1 << S); ++corner) {
    float w = 1.f;
    int64_t offset = 0;
    bool inside = true;
    for (int d = 0; d < S; ++d) {
      const float lo = floorf(at[d]);
      const bool up = (corner >> (S - 1 - d)) & 1;
      w *= up ? at[d] - lo : lo + 1.f - at[d];
      const int64_t k = static_cast<int64_t>(lo) + (up ? 1 : 0);
      inside = inside && k >= 0 && k < size[d];
      offset = offset * size[d] + k;
    }
    if (inside) acc += src[offset] * w;
  }
  return acc;
}

}  // namespace grid_sampler
}  // namespace ops
}  // namespace opforge
