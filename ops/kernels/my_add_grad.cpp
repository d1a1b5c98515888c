// CPU kernel of MyAddGrad: grad_a = 2 * grad_c, grad_b = grad_c (the gradient of MyAdd).
#include "opforge/ops/my_add_grad.h"

namespace opforge {
namespace ops {
namespace my_add_grad {
namespace {

template <typename T>
Status grad(const Attrs& attrs, const Io<T>& io) {
  using C = compute_t<T>;
  (void)attrs;
  const int64_t n = io.grad_c.numel();
  for (int64_t i = 0; i < n; ++i) {
    const C g = toCompute(io.grad_c.data[i]);
    io.grad_a.data[i] = fromCompute<T>(C(2) * g);
    io.grad_b.data[i] = io.grad_c.data[i];
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return grad(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<double>& io, const CpuContext&) { return grad(attrs, io); }

}  // namespace my_add_grad
}  // namespace ops
}  // namespace opforge
