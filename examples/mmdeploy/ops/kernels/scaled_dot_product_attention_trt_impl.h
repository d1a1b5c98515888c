// Shared by the CPU and CUDA kernels of ScaledDotProductAttentionTRT: the mask rule the spec
// cannot state (each dim 1 or the full size; its rank, 2 or 3, is the spec's) and one query row
// of the attention.
#pragma once

#include <cmath>
#include <string>

#include "opforge/ops/scaled_dot_product_attention_trt.h"

namespace opforge {
namespace ops {
namespace scaled_dot_product_attention_trt {

/** Strides of the mask over (b, t, s), 0 where it broadcasts (the spec's checks: each dim 1 or full). */
struct MaskStrides {
  int64_t b = 0, t = 0, s = 0;
};

inline Status maskStrides(const Shape& mask, int64_t /*batch*/, int64_t /*nt*/, int64_t /*ns*/, MaskStrides* out) {
  int64_t dims[3] = {1, 1, 1};
  for (int i = 0; i < mask.rank; ++i) dims[3 - mask.rank + i] = mask[i];
  out->s = dims[2] == 1 ? 0 : 1;
  out->t = dims[1] == 1 ? 0 : dims[2];
  out->b = dims[0] == 1 ? 0 : dims[1] * dims[2];
  return Status::Ok();
}

/**
 * One query row: attn[j] = softmax_j(q . k[j] / sqrt(E) + mask[j]), out = sum_j attn[j] v[j].
 * mask is null or already offset to this (b, t); maskStep is its stride over s.
 */
OPFORGE_HD inline void attendRow(const float* q, const float* k, const float* v, const float* mask, int64_t maskStep,
                                 int64_t ns, int64_t e, float* attn, float* out) {
  const float scale = 1.0f / sqrtf(static_cast<float>(e));
  float top = -INFINITY;
  for (int64_t j = 0; j < ns; ++j) {
    float dot = 0.f;
    for (int64_t d = 0; d < e; ++d) dot += q[d] * k[j * e + d];
    float s = dot * scale;
    if (mask != nullptr) s += mask[j * maskStep];
    attn[j] = s;
    top = fmaxf(top, s);
  }
  float sum = 0.f;
  for (int64_t j = 0; j < ns; ++j) {
    attn[j] = expf(attn[j] - top);
    sum += attn[j];
  }
  for (int64_t j = 0; j < ns; ++j) attn[j] /= sum;
  for (int64_t d = 0; d < e; ++d) {
    float acc = 0.f;
    for (int64_t j = 0; j < ns; ++j) acc += attn[j] * v[j * e + d];
    out[d] = acc;
  }
}

}  // namespace scaled_dot_product_attention_trt
}  // namespace ops
}  // namespace opforge
