// GatherTopk's layout, shared by the CPU and CUDA kernels (MMDeploy's gather_topk_kernel.cu): data
// as [B, G, C] and indices as [B, K], B the product of the batch dims and C of the trailing ones.
#pragma once

#include <cstdint>

#include "opforge/ops/gather_topk.h"

namespace opforge {
namespace ops {
namespace gather_topk {

struct Layout {
  int64_t batch, rows, picks, channels;
};

inline Layout layout(const Shape& data, const Shape& indices) {
  Layout l{1, 0, indices[indices.rank - 1], 1};
  for (int d = 0; d < indices.rank - 1; ++d) l.batch *= data[d];
  l.rows = data[indices.rank - 1];
  for (int d = indices.rank; d < data.rank; ++d) l.channels *= data[d];
  return l;
}

/** Where output element `i` reads in data, given the row its index picks. */
OPFORGE_HD inline int64_t source(const Layout& l, int64_t i, int64_t row) {
  const int64_t c = i % l.channels;
  const int64_t b = i / (l.picks * l.channels);
  return (b * l.rows + row) * l.channels + c;
}

/** The index that output element `i` uses. */
OPFORGE_HD inline int64_t pick(const Layout& l, int64_t i) { return i / l.channels; }

}  // namespace gather_topk
}  // namespace ops
}  // namespace opforge
