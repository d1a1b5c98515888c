// Launch helpers for opforge CUDA kernels (include from .cu files only).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "opforge/core.h"

namespace opforge {
namespace cuda {

constexpr int kBlock = 256;
/** Grid-stride loops keep the grid bounded; 65535 blocks saturate any current GPU. */
inline unsigned gridFor(int64_t n, int block = kBlock) {
  const int64_t blocks = (n + block - 1) / block;
  return static_cast<unsigned>(blocks < 65535 ? (blocks > 0 ? blocks : 1) : 65535);
}

/** Turns a failed launch into a Status naming the op. */
inline Status lastError(const char* op) {
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return Status::Error(std::string(op) + ": CUDA launch failed: " + cudaGetErrorString(e));
  return Status::Ok();
}

}  // namespace cuda
}  // namespace opforge
