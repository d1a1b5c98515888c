// Shared by the CPU and CUDA kernels of MMCVRoiAlign: one output element, as the plugin's
// roi_align_forward_cuda_kernel computes it (float arithmetic, fma lerps).
#pragma once

#include <cfloat>
#include <cmath>
#include <string>

#include "opforge/ops/mmcv_roi_align.h"

namespace opforge {
namespace ops {
namespace mmcv_roi_align {

/** MMDeploy's bilinear_interpolate: 0 beyond one pixel outside the map, clamped to the border inside it. */
OPFORGE_HD inline float bilinear(const float* plane, int64_t height, int64_t width, float y, float x) {
  if (y < -1.0f || y > static_cast<float>(height) || x < -1.0f || x > static_cast<float>(width)) return 0.f;
  y = fminf(static_cast<float>(height - 1), fmaxf(0.f, y));
  x = fminf(static_cast<float>(width - 1), fmaxf(0.f, x));
  const auto yLow = static_cast<int64_t>(floorf(y)), xLow = static_cast<int64_t>(floorf(x));
  const auto yHigh = static_cast<int64_t>(ceilf(y)), xHigh = static_cast<int64_t>(ceilf(x));
  const float v1 = plane[yLow * width + xLow], v2 = plane[yLow * width + xHigh];
  const float v3 = plane[yHigh * width + xLow], v4 = plane[yHigh * width + xHigh];
  const float ly = y - static_cast<float>(yLow), lx = x - static_cast<float>(xLow);
  const float low = fmaf(v2 - v1, lx, v1), high = fmaf(v4 - v3, lx, v3);
  return fmaf(high - low, ly, low);
}

/** The attributes and input dims as plain values (Attrs holds a std::string, which device code cannot take). */
struct Params {
  int64_t pooledH, pooledW, samplingRatio, channels, height, width;
  float spatialScale;
  bool aligned, maxMode;
};

inline Params params(const Attrs& a, const Shape& input) {
  return Params{a.output_height, a.output_width, a.sampling_ratio, input[1], input[2], input[3],
                a.spatial_scale, a.aligned != 0, a.mode == "max"};
}

/** Output element index (roi, c, ph, pw) of [num_rois, C, output_height, output_width]. */
OPFORGE_HD inline float pool(const Params& a, const float* input, const float* rois, int64_t index) {
  const int64_t pooledH = a.pooledH, pooledW = a.pooledW, channels = a.channels, height = a.height, width = a.width;
  const int64_t pw = index % pooledW, ph = (index / pooledW) % pooledH;
  const int64_t c = (index / pooledW / pooledH) % channels, n = index / pooledW / pooledH / channels;
  const float* roi = rois + n * 5;
  const auto batch = static_cast<int64_t>(roi[0]);
  const float offset = a.aligned ? 0.5f : 0.f;
  const float startW = roi[1] * a.spatialScale - offset, startH = roi[2] * a.spatialScale - offset;
  float roiW = roi[3] * a.spatialScale - offset - startW, roiH = roi[4] * a.spatialScale - offset - startH;
  if (!a.aligned) {  // legacy RoIs: at least one pixel
    roiW = fmaxf(roiW, 1.f);
    roiH = fmaxf(roiH, 1.f);
  }
  const float binH = roiH / static_cast<float>(pooledH), binW = roiW / static_cast<float>(pooledW);
  const float* plane = input + (batch * channels + c) * height * width;
  const auto gridH = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(roiH / static_cast<float>(pooledH)));
  const auto gridW = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(roiW / static_cast<float>(pooledW)));
  float best = -FLT_MAX, sum = 0.f;
  for (int64_t iy = 0; iy < gridH; ++iy) {
    const float y = startH + static_cast<float>(ph) * binH + (static_cast<float>(iy) + .5f) * binH / static_cast<float>(gridH);
    for (int64_t ix = 0; ix < gridW; ++ix) {
      const float x = startW + static_cast<float>(pw) * binW + (static_cast<float>(ix) + .5f) * binW / static_cast<float>(gridW);
      const float v = bilinear(plane, height, width, y, x);
      if (v > best) best = v;
      sum += v;
    }
  }
  if (a.maxMode) return best;
  const int64_t count = gridH * gridW;
  return sum / static_cast<float>(count > 1 ? count : 1);
}

/**
 * The batch index of every RoI (the kernel reads input there). spatial_scale > 0, which the plugin
 * asserts, is the spec's `exclusive_min: 0`: every binding checks it before a kernel runs.
 */
inline Status checkRois(const float* rois, int64_t numRois, int64_t batch) {
  for (int64_t r = 0; r < numRois; ++r) {
    const float b = rois[r * 5];
    if (!(b >= 0.f && b < static_cast<float>(batch)))
      return Status::Error(std::string(kName) + ": RoI " + std::to_string(r) + " has batch index " + std::to_string(b) +
                           ", input has " + std::to_string(batch));
  }
  return Status::Ok();
}

}  // namespace mmcv_roi_align
}  // namespace ops
}  // namespace opforge
