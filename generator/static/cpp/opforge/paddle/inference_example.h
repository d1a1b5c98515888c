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

/** Feeds one input and records its shape and presence for the op core's inference. */
template <typename T>
void feed(paddle_infer::Predictor& p, const std::string& name, const std::vector<int>& shape, const Host<T>& data,
          opforge::Shape* in, bool* present) {
  auto t = p.GetInputHandle(name);
  t->Reshape(shape);
  t->CopyFromCpu(data.values.get());
  in->rank = static_cast<int32_t>(shape.size());
  for (size_t d = 0; d < shape.size(); ++d) in->dims[d] = shape[d];
  *present = true;
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

/**
 * The example's main(): loads <model.pdmodel> <model.pdiparams> (CPU; GPU and the TensorRT subgraph
 * as configured), checks the model has `numFeeds` feeds and the op's outputs as fetches, feeds the
 * inputs (`feedInputs` also records their shapes and presence), runs the predictor, and checks
 * every fetched output's shape against the op core's inference (`checkOutputs`).
 */
template <class Core, class Feed, class Check>
int runExample(int argc, char** argv, size_t numFeeds, const typename Core::Attrs& attrs, Feed feedInputs,
               Check checkOutputs) {
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " <model.pdmodel> <model.pdiparams>\n";
    return 2;
  }
  paddle_infer::Config config;
  config.SetModel(argv[1], argv[2]);
#if defined(OPFORGE_PADDLE_WITH_GPU)
  config.EnableUseGpu(100, 0);
#if defined(OPFORGE_PADDLE_USE_TENSORRT)
  // min_subgraph_size 1: the op alone becomes a TensorRT engine, run by opforge's Paddle-named plugin.
  config.EnableTensorRtEngine(1 << 30, 1, 1, paddle_infer::PrecisionType::kFloat32, false, false);
#endif
#endif
  auto predictor = paddle_infer::CreatePredictor(config);
  const std::vector<std::string> feeds = predictor->GetInputNames();
  const std::vector<std::string> fetches = predictor->GetOutputNames();
  if (feeds.size() != numFeeds || fetches.size() != static_cast<size_t>(Core::kNumOutputs)) {
    std::cerr << "expected a model with " << numFeeds << " feeds and " << Core::kNumOutputs << " fetches\n";
    return 2;
  }
  opforge::Shape in[Core::kNumInputs];
  bool present[Core::kNumInputs] = {};
  feedInputs(*predictor, feeds, in, present);
  if (!predictor->Run()) {
    std::cerr << "Run failed\n";
    return 1;
  }
  opforge::Shape outShapes[Core::kNumOutputs];
  opforge::Status s = Core::checkShapes(attrs, in, present, Core::kNumInputs);
  if (s.ok()) s = Core::inferShapes(attrs, in, Core::kNumInputs, outShapes);
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  return checkOutputs(*predictor, fetches, outShapes) ? 0 : 1;
}

}  // namespace paddle_example
}  // namespace opforge
