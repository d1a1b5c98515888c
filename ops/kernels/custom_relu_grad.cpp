// CPU kernel of CustomReluGrad: grad_x = x > 0 ? grad_y : alpha * grad_y (the gradient of CustomRelu).
#include "opforge/ops/custom_relu_grad.h"

namespace opforge {
namespace ops {
namespace custom_relu_grad {
namespace {

template <typename T>
Status grad(const Attrs& attrs, const Io<T>& io) {
  using C = compute_t<T>;
  const C alpha = static_cast<C>(attrs.alpha);
  const int64_t n = io.x.numel();
  for (int64_t i = 0; i < n; ++i) {
    const C g = toCompute(io.grad_y.data[i]);
    const C scaled = alpha * g;
    io.grad_x.data[i] = fromCompute<T>(toCompute(io.x.data[i]) > C(0) ? g : scaled);
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext&) { return grad(attrs, io); }

}  // namespace custom_relu_grad
}  // namespace ops
}  // namespace opforge
