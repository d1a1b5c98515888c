// CPU kernel of LeakyRelu: y = x >= 0 ? x : alpha * x.
#include "opforge/ops/leaky_relu.h"

namespace opforge {
namespace ops {
namespace leaky_relu {
namespace {

template <typename T>
Status relu(const Attrs& attrs, const Io<T>& io) {
  using C = compute_t<T>;
  const C alpha = static_cast<C>(attrs.alpha);
  const int64_t n = io.input.numel();
  for (int64_t i = 0; i < n; ++i) {
    const C v = toCompute(io.input.data[i]);
    // Both sides computed unconditionally: the loop is then a select the compiler vectorizes.
    const C scaled = alpha * v;
    io.output.data[i] = fromCompute<T>(v >= C(0) ? v : scaled);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return relu(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return relu(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext&) { return relu(attrs, io); }

}  // namespace leaky_relu
}  // namespace ops
}  // namespace opforge
