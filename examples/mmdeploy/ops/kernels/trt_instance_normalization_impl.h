// Shared by the CPU and CUDA kernels of TRTInstanceNormalization: the shape checks the spec
// cannot state (rank >= 3, C scale values).
#pragma once

#include <string>

#include "opforge/ops/trt_instance_normalization.h"

namespace opforge {
namespace ops {
namespace trt_instance_normalization {

/** Slices (N * C) and elements per slice; an error for a rank below 3 or a scale of other than C values. */
inline Status slices(const Shape& in, int64_t scaleCount, int64_t* count, int64_t* length) {
  if (in.rank < 3)
    return Status::Error(std::string(kName) + ": input needs rank >= 3 ([N, C, ...]), got rank " + std::to_string(in.rank));
  if (scaleCount != in[1])
    return Status::Error(std::string(kName) + ": scale has " + std::to_string(scaleCount) + " values, input has " +
                         std::to_string(in[1]) + " channels");
  int64_t len = 1;
  for (int d = 2; d < in.rank; ++d) len *= in[d];
  *count = in[0] * in[1];
  *length = len;
  return Status::Ok();
}

}  // namespace trt_instance_normalization
}  // namespace ops
}  // namespace opforge
