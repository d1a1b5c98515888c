// Shared by the CPU and CUDA kernels of MMCVMultiLevelRoiAlign (and, for its levels, of
// MMCVMultiLevelRotatedRoiAlign): one output element, as the plugin's roi_extractor_kernel computes
// it (float arithmetic, its fma calls, MMDeploy's bilinear_interpolate through MMCVRoiAlign's).
#pragma once

#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "mmcv_roi_align_impl.h"
#include "opforge/ops/mmcv_multi_level_roi_align.h"

namespace opforge {
namespace ops {
namespace mmcv_multi_level_roi_align {

/** The plugin's FeatData holds 10 maps; the spec's check `count(feats) <= 10` keeps every call within it. */
constexpr int kMaxLevels = 10;

/** The feature maps as the plugin's FeatData: plain values and device pointers, passed to a CUDA kernel by value. */
struct Levels {
  const float* data[kMaxLevels];
  int64_t height[kMaxLevels], width[kMaxLevels];
  float spatialScale[kMaxLevels];
  int count;
  int64_t batch, channels;
};

/** Each level's map and 1 / stride (the plugin divides in double, then keeps a float). */
inline Levels levels(const TensorList<const float>& feats, const std::vector<float>& strides) {
  Levels v{};
  v.count = feats.size();
  v.batch = feats[0].shape[0];
  v.channels = feats[0].shape[1];
  for (int l = 0; l < v.count; ++l) {
    v.data[l] = feats[l].data;
    v.height[l] = feats[l].shape[2];
    v.width[l] = feats[l].shape[3];
    v.spatialScale[l] = static_cast<float>(1.0 / static_cast<double>(strides[l]));
  }
  return v;
}

/**
 * Every level shares the first one's N and C: the plugin reads them from the first map only, so
 * another would be read out of bounds. The spec cannot say it (a variadic input's shape cannot read
 * its own first member), so both kernels check it on the host.
 */
inline Status checkLevels(const char* op, const TensorList<const float>& feats) {
  for (int l = 1; l < feats.size(); ++l)
    if (feats[l].shape[0] != feats[0].shape[0] || feats[l].shape[1] != feats[0].shape[1])
      return Status::Error(std::string(op) + ": feature map " + std::to_string(l) + " is " + feats[l].shape.str() +
                           ", map 0 is " + feats[0].shape.str() + ": every level shares N and C");
  return Status::Ok();
}

/**
 * MMDet's map_roi_levels on the unscaled RoI of size w x h: floor(log2(sqrt(w * h) / finest_scale +
 * 1e-6)) clamped to the levels. The plugin adds 1e-6 as a double, then takes log2f of the float.
 */
OPFORGE_HD inline int level(const Levels& v, float w, float h, int64_t finestScale) {
  const float scale = sqrtf(h * w);
  const float l = floorf(log2f(static_cast<float>(static_cast<double>(scale / static_cast<float>(finestScale)) + 1e-6)));
  // A RoI of negative area gives NaN, which CUDA (where the plugin runs) converts to level 0.
  if (!(l > 0.f)) return 0;
  return l >= static_cast<float>(v.count - 1) ? v.count - 1 : static_cast<int>(l);
}

/** The attributes and maps as plain values (Attrs holds a std::vector, which device code cannot take). */
struct Params {
  Levels levels;
  int64_t pooledH, pooledW, samplingRatio, finestScale;
  float roiScaleFactor;
  bool aligned, maxMode;
};

inline Params params(const Attrs& a, const TensorList<const float>& feats) {
  return Params{levels(feats, a.featmap_strides), a.output_height, a.output_width, a.sampling_ratio,
                a.finest_scale, a.roi_scale_factor, a.aligned != 0, a.pool_mode == 0};
}

/** Output element index (roi, c, ph, pw) of [num_rois, C, output_height, output_width]. */
OPFORGE_HD inline float pool(const Params& a, const float* rois, int64_t index) {
  const Levels& v = a.levels;
  const int64_t pw = index % a.pooledW, ph = (index / a.pooledW) % a.pooledH;
  const int64_t c = (index / a.pooledW / a.pooledH) % v.channels, n = index / a.pooledW / a.pooledH / v.channels;
  const float* roi = rois + n * 5;
  float x0 = roi[1], y0 = roi[2], x1 = roi[3], y1 = roi[4];
  const int l = level(v, x1 - x0, y1 - y0, a.finestScale);
  if (a.roiScaleFactor > 0.f) {  // MMDet 1.x's roi_rescale: (w + 1) * factor wide, ends 0.5 inside
    const float cx = (x0 + x1) * 0.5f, cy = (y0 + y1) * 0.5f, half = a.roiScaleFactor * 0.5f;
    const float halfW = fmaf(x1 - x0 + 1.f, half, -0.5f), halfH = fmaf(y1 - y0 + 1.f, half, -0.5f);
    x0 = cx - halfW;
    x1 = cx + halfW;
    y0 = cy - halfH;
    y1 = cy + halfH;
  }
  const float scale = v.spatialScale[l], offset = a.aligned ? -0.5f : 0.f;
  const float startW = fmaf(x0, scale, offset), startH = fmaf(y0, scale, offset);
  // Malformed RoIs: at least 1 x 1 in legacy mode, at least empty when aligned.
  const float roiW = fmaxf(fmaf(x1, scale, offset) - startW, a.aligned ? 0.f : 1.f);
  const float roiH = fmaxf(fmaf(y1, scale, offset) - startH, a.aligned ? 0.f : 1.f);
  const float binH = roiH / static_cast<float>(a.pooledH), binW = roiW / static_cast<float>(a.pooledW);
  const int64_t height = v.height[l], width = v.width[l];
  const float* plane = v.data[l] + (static_cast<int64_t>(roi[0]) * v.channels + c) * height * width;
  const auto gridH = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(binH));
  const auto gridW = a.samplingRatio > 0 ? a.samplingRatio : static_cast<int64_t>(ceilf(binW));
  // nvcc (--fmad=true, its default) contracts the plugin's roi_start + p * bin_size into an fma:
  // written out, so that the CPU computes the same.
  const float yOffset = fmaf(static_cast<float>(ph), binH, startH), yScale = binH / static_cast<float>(gridH);
  const float xOffset = fmaf(static_cast<float>(pw), binW, startW), xScale = binW / static_cast<float>(gridW);
  float out = a.maxMode ? -FLT_MAX : 0.f;
  for (int64_t iy = 0; iy < gridH; ++iy) {
    const float y = fmaf(static_cast<float>(iy) + .5f, yScale, yOffset);
    for (int64_t ix = 0; ix < gridW; ++ix) {
      const float x = fmaf(static_cast<float>(ix) + .5f, xScale, xOffset);
      const float val = mmcv_roi_align::bilinear(plane, height, width, y, x);
      out = a.maxMode ? fmaxf(out, val) : out + val;
    }
  }
  if (a.maxMode) return out;
  const int64_t count = gridH * gridW;
  return out / static_cast<float>(count > 1 ? count : 1);
}

/** The batch index of every RoI (the kernel reads the maps there); rowSize is 5, or 6 for rotated RoIs. */
inline Status checkRois(const char* op, const float* rois, int64_t numRois, int64_t rowSize, int64_t batch) {
  for (int64_t r = 0; r < numRois; ++r) {
    const float b = rois[r * rowSize];
    if (!(b >= 0.f && b < static_cast<float>(batch)))
      return Status::Error(std::string(op) + ": RoI " + std::to_string(r) + " has batch index " + std::to_string(b) +
                           ", the feature maps have " + std::to_string(batch));
  }
  return Status::Ok();
}

}  // namespace mmcv_multi_level_roi_align
}  // namespace ops
}  // namespace opforge
