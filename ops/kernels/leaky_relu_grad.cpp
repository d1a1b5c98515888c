// CPU kernel of LeakyReluGrad: grad_input = input >= 0 ? grad_output : alpha * grad_output (the gradient of LeakyRelu).
#include "opforge/ops/leaky_relu_grad.h"

namespace opforge {
namespace ops {
namespace leaky_relu_grad {
namespace {

template <typename T>
Status grad(const Attrs& attrs, const Io<T>& io) {
  using C = compute_t<T>;
  const C alpha = static_cast<C>(attrs.alpha);
  const int64_t n = io.input.numel();
  for (int64_t i = 0; i < n; ++i) {
    const C g = toCompute(io.grad_output.data[i]);
    const C scaled = alpha * g;
    io.grad_input.data[i] = fromCompute<T>(toCompute(io.input.data[i]) >= C(0) ? g : scaled);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext&) { return grad(attrs, io); }

}  // namespace leaky_relu_grad
}  // namespace ops
}  // namespace opforge
