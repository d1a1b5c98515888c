// CPU kernel of ScatterND: copy data, then each index row's slice from updates, in order; an index
// outside its dim of data is an error.
#include <cstring>
#include <string>

#include "scatter_nd_impl.h"

namespace opforge {
namespace ops {
namespace scatter_nd {

namespace {

template <typename T, typename I>
Status run(const Io<T, I>& io) {
  const Layout l = layout(io.data.shape, io.indices.shape);
  if (io.output.numel() > 0) std::memcpy(io.output.data, io.data.data, sizeof(T) * io.output.numel());
  for (int64_t row = 0; row < l.rows; ++row) {
    const int64_t at = target(l, io.indices.data, row);
    if (at < 0) return Status::Error(std::string(kName) + ": index row " + std::to_string(row) + " lies outside data");
    std::memcpy(io.output.data + at, io.updates.data + row * l.copy, sizeof(T) * l.copy);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs&, const State&, const Io<float, int64_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<float, int32_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<int32_t, int64_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<int32_t, int32_t>& io, const CpuContext&) { return run(io); }

}  // namespace scatter_nd
}  // namespace ops
}  // namespace opforge
