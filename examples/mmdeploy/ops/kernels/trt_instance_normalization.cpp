// CPU kernel of TRTInstanceNormalization: per (n, c) slice, mean and biased variance (accumulated
// in double), then (x - mean) / sqrt(var + epsilon) * scale[c] + bias[c].
#include <cmath>

#include "trt_instance_normalization_impl.h"

namespace opforge {
namespace ops {
namespace trt_instance_normalization {
namespace {

template <typename T>
Status normalize(const Attrs& attrs, const Io<T>& io) {
  int64_t count = 0, length = 0;
  slices(io.input.shape, &count, &length);
  if (count == 0 || length == 0) return Status::Ok();
  const int64_t channels = io.input.shape[1];
  for (int64_t s = 0; s < count; ++s) {
    const T* x = io.input.data + s * length;
    T* y = io.output.data + s * length;
    double sum = 0;
    for (int64_t i = 0; i < length; ++i) sum += toCompute(x[i]);
    const double mean = sum / static_cast<double>(length);
    double sq = 0;
    for (int64_t i = 0; i < length; ++i) {
      const double d = toCompute(x[i]) - mean;
      sq += d * d;
    }
    const double inv = 1.0 / std::sqrt(sq / static_cast<double>(length) + static_cast<double>(attrs.epsilon));
    const int64_t c = s % channels;
    const double a = inv * io.scale.data[c], b = io.bias.data[c];
    for (int64_t i = 0; i < length; ++i)
      y[i] = fromCompute<T>(static_cast<float>((toCompute(x[i]) - mean) * a + b));
  }
  return Status::Ok();
}

}  // namespace

Status cpu(const Attrs& attrs, const State&, const Io<float>& io, const CpuContext&) { return normalize(attrs, io); }
Status cpu(const Attrs& attrs, const State&, const Io<float16>& io, const CpuContext&) { return normalize(attrs, io); }

}  // namespace trt_instance_normalization
}  // namespace ops
}  // namespace opforge
