// Shared by the CPU and CUDA kernels of TRTInstanceNormalization: how the input splits into
// slices. The spec states its checks (rank 3 to 5, C scale and bias values): every binding makes
// them before a kernel runs.
#pragma once

#include "opforge/ops/trt_instance_normalization.h"

namespace opforge {
namespace ops {
namespace trt_instance_normalization {

/** Slices (N * C) and elements per slice (the product of the dims after C). */
inline void slices(const Shape& in, int64_t* count, int64_t* length) {
  int64_t len = 1;
  for (int d = 2; d < in.rank; ++d) len *= in[d];
  *count = in[0] * in[1];
  *length = len;
}

}  // namespace trt_instance_normalization
}  // namespace ops
}  // namespace opforge
