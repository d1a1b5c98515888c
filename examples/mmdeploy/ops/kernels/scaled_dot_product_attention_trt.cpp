// CPU kernel of ScaledDotProductAttentionTRT: each query row in turn (attendRow, shared with CUDA).
#include "scaled_dot_product_attention_trt_impl.h"

namespace opforge {
namespace ops {
namespace scaled_dot_product_attention_trt {

Status cpu(const Attrs&, const State&, const Io& io, const CpuContext&) {
  const int64_t batch = io.q.shape[0], nt = io.q.shape[1], e = io.q.shape[2], ns = io.k.shape[1];
  MaskStrides m;
  if (io.mask.present()) OPFORGE_RETURN_IF_ERROR(maskStrides(io.mask.shape, batch, nt, ns, &m));
  if (batch * nt == 0) return Status::Ok();
  if (ns == 0) return Status::Error(std::string(kName) + ": softmax over zero keys");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < nt; ++t) {
      const float* mask = io.mask.present() ? io.mask.data + b * m.b + t * m.t : nullptr;
      attendRow(io.q.data + (b * nt + t) * e, io.k.data + b * ns * e, io.v.data + b * ns * e, mask, m.s, ns, e,
                io.attn.data + (b * nt + t) * ns, io.output.data + (b * nt + t) * e);
    }
  return Status::Ok();
}

}  // namespace scaled_dot_product_attention_trt
}  // namespace ops
}  // namespace opforge
