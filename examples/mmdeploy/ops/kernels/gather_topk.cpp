// CPU kernel of GatherTopk: every output element through source() (shared with CUDA); an index
// outside [0, G) is an error.
#include <string>

#include "gather_topk_impl.h"

namespace opforge {
namespace ops {
namespace gather_topk {

namespace {

template <typename T, typename I>
Status run(const Io<T, I>& io) {
  const Layout l = layout(io.data.shape, io.indices.shape);
  const int64_t total = io.output.numel();
  for (int64_t i = 0; i < total; ++i) {
    const int64_t row = static_cast<int64_t>(io.indices.data[pick(l, i)]);
    if (row < 0 || row >= l.rows)
      return Status::Error(std::string(kName) + ": index " + std::to_string(row) + " is outside the " +
                           std::to_string(l.rows) + " rows of data");
    io.output.data[i] = io.data.data[source(l, i, row)];
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs&, const State&, const Io<float, int64_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<float, int32_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<int32_t, int64_t>& io, const CpuContext&) { return run(io); }
Status cpu(const Attrs&, const State&, const Io<int32_t, int32_t>& io, const CpuContext&) { return run(io); }

}  // namespace gather_topk
}  // namespace ops
}  // namespace opforge
