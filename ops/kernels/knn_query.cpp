// CPU kernel of KNNQuery.
#include "opforge/ops/knn_query.h"

#include "knn_query_impl.h"

namespace opforge {
namespace ops {
namespace knn_query {

Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {
  const int64_t n = io.xyz.shape[0];
  const int64_t m = io.new_xyz.shape[0];
  const int64_t batches = io.offset.shape[0];
  const int64_t k = attrs.nsample;
  // Offsets come from data, not the spec: check them before indexing with them.
  int64_t prev = 0, prevNew = 0;
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t o = io.offset.data[b], no = io.new_offset.data[b];
    if (o < prev || o > n) return Status::Error(std::string(kName) + ": offset must be non-decreasing and at most xyz rows (" + std::to_string(n) + "), got offset[" + std::to_string(b) + "] = " + std::to_string(o));
    if (no < prevNew || no > m) return Status::Error(std::string(kName) + ": new_offset must be non-decreasing and at most new_xyz rows (" + std::to_string(m) + "), got new_offset[" + std::to_string(b) + "] = " + std::to_string(no));
    prev = o;
    prevNew = no;
  }
  if (m > 0 && prevNew != m) return Status::Error(std::string(kName) + ": new_offset must end at the number of new_xyz rows (" + std::to_string(m) + ")");
  for (int64_t q = 0; q < m; ++q) {
    const int64_t b = knn::batchOf(io.new_offset.data, batches, q);
    const int64_t begin = b > 0 ? io.offset.data[b - 1] : 0;
    const int64_t end = io.offset.data[b];
    knn::query(io.xyz.data, begin, end, io.new_xyz.data + 3 * q, k, io.idx.data + q * k, io.dist2.data + q * k);
  }
  return Status::Ok();
}

}  // namespace knn_query
}  // namespace ops
}  // namespace opforge
