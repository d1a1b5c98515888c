// Helpers of the generated Paddle Inference examples (out/paddle/<op>/custom_op_test.cc): host
// buffers, seeded data, feeding a predictor and checking a fetched output's shape against the op
// core's inference.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "opforge/core.h"
#include "paddle_inference_api.h"

namespace opforge {
namespace paddle_example {

/** Host data of one tensor (not std::vector: std::vector<bool> has no data() to copy from or to). */
template <typename T>
struct Host {
  explicit Host(size_t n) : size(n), values(new T[n]()) {}
  Host(std::initializer_list<T> v) : Host(v.size()) { std::copy(v.begin(), v.end(), values.get()); }
  size_t size;
  std::unique_ptr<T[]> values;
};

template <typename T>
Host<T> seeded(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Host<T> v(n);
  for (size_t i = 0; i < n; ++i) v.values[i] = static_cast<T>(dist(gen));
  return v;
}

template <typename T>
void feed(paddle_infer::Predictor& p, const std::string& name, const std::vector<int>& shape, const Host<T>& data) {
  auto t = p.GetInputHandle(name);
  t->Reshape(shape);
  t->CopyFromCpu(data.values.get());
}

template <typename T>
bool fetch(paddle_infer::Predictor& p, const std::string& name, const opforge::Shape& expected, const char* output) {
  auto t = p.GetOutputHandle(name);
  const std::vector<int> shape = t->shape();
  bool same = static_cast<int>(shape.size()) == expected.rank;
  for (size_t d = 0; same && d < shape.size(); ++d) same = shape[d] == expected.dims[d];
  Host<T> data(static_cast<size_t>(expected.numel()));
  if (same) t->CopyToCpu(data.values.get());
  std::cout << output << ": shape [";
  for (size_t d = 0; d < shape.size(); ++d) std::cout << (d ? ", " : "") << shape[d];
  std::cout << "] " << (same ? "as the op core infers" : "DIFFERS from the op core's " + expected.str());
  for (size_t i = 0; same && i < data.size && i < 8; ++i) std::cout << (i ? ", " : "; first values: ") << +data.values[i];
  std::cout << "\n";
  return same;
}

}  // namespace paddle_example
}  // namespace opforge
