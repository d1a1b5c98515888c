// Modulated deformable convolution shared by the CPU and CUDA kernels of MMCVModulatedDeformConv2d:
// one output element at a time, as MMCV's modulated_deformable_im2col followed by the grouped GEMM
// computes it (dmcn_im2col_bilinear: a sample beyond one pixel outside the map is 0, and each of its
// four corners outside the map counts 0). Accumulates in float. MMCVDeformConv2d (DCNv1: no mask, no
// bias) computes through the same element().
#pragma once

#include <cmath>
#include <cstdint>

#include "opforge/ops/mmcv_modulated_deform_conv2d.h"

namespace opforge {
namespace ops {
namespace mmcv_modulated_deform_conv2d {

OPFORGE_HD inline float load(float v) { return v; }
OPFORGE_HD inline float load(float16 v) { return toFloat(v); }
OPFORGE_HD inline void store(float* p, float v) { *p = v; }
OPFORGE_HD inline void store(float16* p, float v) { *p = toFloat16(v); }

/** The sizes and parameters one output element needs (index 0 of stride etc. is W, as the plugin reads it). */
struct Params {
  int64_t channels, height, width, channelsOut, kh, kw, outH, outW;
  int64_t strideH, strideW, padH, padW, dilationH, dilationW, groups, deformGroups;
};

inline Params params(const Attrs& a, const Shape& input, const Shape& weight, const Shape& output) {
  return Params{input[1],    input[2],    input[3],     weight[0],    weight[2],    weight[3],
                output[2],   output[3],   a.stride[1],  a.stride[0],  a.padding[1], a.padding[0],
                a.dilation[1], a.dilation[0], a.groups, a.deform_groups};
}

template <typename T>
OPFORGE_HD inline float bilinear(const T* plane, int64_t h, int64_t w, float y, float x) {
  if (!(y > -1.f && x > -1.f && y < static_cast<float>(h) && x < static_cast<float>(w))) return 0.f;
  const float fy = floorf(y), fx = floorf(x);
  const auto y0 = static_cast<int64_t>(fy), x0 = static_cast<int64_t>(fx);
  const int64_t y1 = y0 + 1, x1 = x0 + 1;
  const float ly = y - fy, lx = x - fx, hy = 1.f - ly, hx = 1.f - lx;
  const float v1 = (y0 >= 0 && x0 >= 0) ? load(plane[y0 * w + x0]) : 0.f;
  const float v2 = (y0 >= 0 && x1 <= w - 1) ? load(plane[y0 * w + x1]) : 0.f;
  const float v3 = (y1 <= h - 1 && x0 >= 0) ? load(plane[y1 * w + x0]) : 0.f;
  const float v4 = (y1 <= h - 1 && x1 <= w - 1) ? load(plane[y1 * w + x1]) : 0.f;
  return hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4;
}

/** Output element i (row-major [N, C_out, outH, outW]); `mask` null: every tap weighs 1 (MMCVDeformConv2d). */
template <typename T>
OPFORGE_HD inline float element(const Params& p, const T* input, const T* offset, const T* mask, const T* weight,
                                const T* bias, int64_t i) {
  const int64_t ox = i % p.outW;
  const int64_t oy = (i / p.outW) % p.outH;
  const int64_t oc = (i / (p.outW * p.outH)) % p.channelsOut;
  const int64_t n = i / (p.outW * p.outH * p.channelsOut);
  const int64_t taps = p.kh * p.kw;
  const int64_t perGroup = p.channels / p.groups;
  const int64_t perDeform = p.channels / p.deformGroups;
  const int64_t g = oc / (p.channelsOut / p.groups);
  const int64_t plane = p.outH * p.outW;
  float acc = bias ? load(bias[oc]) : 0.f;
  for (int64_t icl = 0; icl < perGroup; ++icl) {
    const int64_t ic = g * perGroup + icl;
    const int64_t dg = ic / perDeform;
    const T* in = input + (n * p.channels + ic) * p.height * p.width;
    const T* off = offset + (n * p.deformGroups + dg) * 2 * taps * plane + oy * p.outW + ox;
    const T* msk = mask ? mask + (n * p.deformGroups + dg) * taps * plane + oy * p.outW + ox : nullptr;
    const T* wt = weight + (oc * perGroup + icl) * taps;
    for (int64_t ky = 0; ky < p.kh; ++ky)
      for (int64_t kx = 0; kx < p.kw; ++kx) {
        const int64_t k = ky * p.kw + kx;
        const float y = static_cast<float>(oy * p.strideH - p.padH + ky * p.dilationH) + load(off[2 * k * plane]);
        const float x = static_cast<float>(ox * p.strideW - p.padW + kx * p.dilationW) + load(off[(2 * k + 1) * plane]);
        acc += load(wt[k]) * (msk ? load(msk[k * plane]) : 1.f) * bilinear(in, p.height, p.width, y, x);
      }
  }
  return acc;
}

}  // namespace mmcv_modulated_deform_conv2d
}  // namespace ops
}  // namespace opforge
