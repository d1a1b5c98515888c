// ScatterND's layout, shared by the CPU and CUDA kernels (MMDeploy's trt_scatternd_kernel.cu): n
// index rows of k entries, each addressing a slice of `copy` contiguous elements of data.
#pragma once

#include <cstdint>

#include "opforge/ops/scatter_nd.h"

namespace opforge {
namespace ops {
namespace scatter_nd {

struct Layout {
  int64_t rows, k, copy;
  int64_t dims[kMaxRank];     // data's leading dims
  int64_t strides[kMaxRank];  // data's strides, in elements
};

inline Layout layout(const Shape& data, const Shape& indices) {
  Layout l{1, indices[indices.rank - 1], 1, {}, {}};
  for (int d = 0; d < indices.rank - 1; ++d) l.rows *= indices[d];
  int64_t stride = 1;
  for (int d = data.rank - 1; d >= 0; --d) {
    l.dims[d] = data[d];
    l.strides[d] = stride;
    stride *= data[d];
  }
  for (int d = static_cast<int>(l.k); d < data.rank; ++d) l.copy *= data[d];
  return l;
}

/** Where index row `row` writes in data (element offset), or -1 where an entry lies outside its dim. */
template <typename I>
OPFORGE_HD int64_t target(const Layout& l, const I* indices, int64_t row) {
  int64_t offset = 0;
  for (int64_t j = 0; j < l.k; ++j) {
    const int64_t v = static_cast<int64_t>(indices[row * l.k + j]);
    if (v < 0 || v >= l.dims[j]) return -1;
    offset += v * l.strides[j];
  }
  return offset;
}

}  // namespace scatter_nd
}  // namespace ops
}  // namespace opforge
