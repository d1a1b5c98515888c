// CPU kernel of MyAdd: c = 2 * a + b.
#include "opforge/ops/my_add.h"

namespace opforge {
namespace ops {
namespace my_add {
namespace {

template <typename T>
Status add(const Io<T>& io) {
  using C = compute_t<T>;
  const int64_t n = io.c.numel();
  for (int64_t i = 0; i < n; ++i) io.c.data[i] = fromCompute<T>(C(2) * toCompute(io.a.data[i]) + toCompute(io.b.data[i]));
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs&, const State&, const Io<float>& io, const CpuContext&) { return add(io); }
Status cpu(const Attrs&, const State&, const Io<float16>& io, const CpuContext&) { return add(io); }
Status cpu(const Attrs&, const State&, const Io<double>& io, const CpuContext&) { return add(io); }

}  // namespace my_add
}  // namespace ops
}  // namespace opforge
