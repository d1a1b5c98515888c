// Shared by the CPU and CUDA kernels of GridPriorsTRT: one output row, as the plugin's kernel
// computes it.
#pragma once

#include "opforge/ops/grid_priors_trt.h"

namespace opforge {
namespace ops {
namespace grid_priors_trt {

/** Row index = (y * W + x) * A + a: base anchor a shifted by (x * stride_w, y * stride_h). */
OPFORGE_HD inline void prior(const float* base, float* out, int64_t index, int64_t anchors, int64_t width, int64_t strideH,
                             int64_t strideW) {
  const float* b = base + (index % anchors) * 4;
  const auto w = static_cast<float>(((index / anchors) % width) * strideW);
  const auto h = static_cast<float>((index / (width * anchors)) * strideH);
  float* o = out + index * 4;
  o[0] = b[0] + w;
  o[1] = b[1] + h;
  o[2] = b[2] + w;
  o[3] = b[3] + h;
}

}  // namespace grid_priors_trt
}  // namespace ops
}  // namespace opforge
