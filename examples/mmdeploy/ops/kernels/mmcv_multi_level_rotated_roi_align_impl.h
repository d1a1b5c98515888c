// Shared by the CPU and CUDA kernels of MMCVMultiLevelRotatedRoiAlign: one output element, as the
// plugin's rotated_roi_extractor_kernel computes it (float arithmetic, its fma calls, MMDeploy's
// bilinear_interpolate). The maps, the level rule and the host checks are MMCVMultiLevelRoiAlign's:
// both plugins share FeatData and map_roi_levels.
#pragma once

#include <cmath>

#include "mmcv_multi_level_roi_align_impl.h"
#include "opforge/ops/mmcv_multi_level_rotated_roi_align.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_level_rotated_roi_align {

namespace mlra = ::opforge::ops::mmcv_multi_level_roi_align;

/** The attributes and maps as plain values (Attrs holds a std::vector, which device code cannot take). */
struct Params {
  mlra::Levels levels;
  int64_t pooledH, pooledW, samplingRatio, finestScale;
  float roiScaleFactor;
  bool aligned, clockwise;
};

inline Params params(const Attrs& a, const TensorList<const float>& feats) {
  return Params{mlra::levels(feats, a.featmap_strides), a.output_height, a.output_width, a.sampling_ratio,
                a.finest_scale, a.roi_scale_factor, a.aligned != 0, a.clockwise > 0};
}

/** Output element index (roi, c, ph, pw) of [num_rois, C, output_height, output_width]. */
OPFORGE_HD inline float pool(const Params& a, const float* rois, int64_t index) {
  const mlra::Levels& v = a.levels;
  const int64_t pw = index % a.pooledW, ph = (index / a.pooledW) % a.pooledH;
  const int64_t c = (index / a.pooledW / a.pooledH) % v.channels, n = index / a.pooledW / a.pooledH / v.channels;
  const float* roi = rois + n * 6;
  float w = roi[3], h = roi[4];
  const int l = mlra::level(v, w, h, a.finestScale);
  if (a.roiScaleFactor > 0.f) {  // MMRotate's roi_rescale: the size only, about the center
    w = w * a.roiScaleFactor;
    h = h * a.roiScaleFactor;
  }
  const float scale = v.spatialScale[l], offset = a.aligned ? -0.5f : 0.f;
  const float centerW = fmaf(roi[1], scale, offset), centerH = fmaf(roi[2], scale, offset);
  // The plugin keeps every RoI at least 1 x 1, aligned or not (MMCV's roi_align_rotated: only legacy ones).
  const float roiW = fmaxf(w * scale, 1.f), roiH = fmaxf(h * scale, 1.f);
  const float theta = a.clockwise ? -roi[5] : roi[5];
  const float binH = roiH / static_cast<float>(a.pooledH), binW = roiW / static_cast<float>(a.pooledW);
  const int64_t height = v.height[l], width = v.width[l];
  const float* plane = v.data[l] + (static_cast<int64_t>(roi[0]) * v.channels + c) * height * width;
  const auto gridH = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(binH));
  const auto gridW = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(binW));
  const float startH = -roiH / 2.f, startW = -roiW / 2.f;
  const float cosT = cosf(theta), sinT = sinf(theta);
  // nvcc (--fmad=true, its default) contracts the plugin's roi_start + p * bin_size into an fma
  // (its PTX has fma.rn there): written out, so that the CPU computes the same.
  const float yOffset = fmaf(static_cast<float>(ph), binH, startH), xOffset = fmaf(static_cast<float>(pw), binW, startW);
  float sum = 0.f;
  for (int64_t iy = 0; iy < gridH; ++iy) {
    const float yy = yOffset + (static_cast<float>(iy) + .5f) * binH / static_cast<float>(gridH);
    for (int64_t ix = 0; ix < gridW; ++ix) {
      const float xx = xOffset + (static_cast<float>(ix) + .5f) * binW / static_cast<float>(gridW);
      // Turned by theta (counterclockwise) about the center.
      const float y = yy * cosT - xx * sinT + centerH, x = yy * sinT + xx * cosT + centerW;
      sum += mmcv_roi_align::bilinear(plane, height, width, y, x);
    }
  }
  const int64_t count = gridH * gridW;
  return sum / static_cast<float>(count > 1 ? count : 1);
}

}  // namespace mmcv_multi_level_rotated_roi_align
}  // namespace ops
}  // namespace opforge
