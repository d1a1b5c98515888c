// GPU throughput of opforge kernels through the op core's runCuda (issue 8, part 3).
// Prints one line per measurement: "name <median ms> <GB/s>". Median of 20 runs after warm-up.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "opforge/ops/custom_relu.h"
#include "opforge/ops/dynamic_trt_resize.h"
#include "opforge/ops/knn_query.h"
#include "opforge/ops/leaky_relu.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA error %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)

static float medianMs(std::function<void()> f, cudaStream_t s, int reps = 20) {
  for (int i = 0; i < 3; ++i) f();
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, s)); f(); CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float ms = 0; CK(cudaEventElapsedTime(&ms, a, b)); t.push_back(ms);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

static opforge::Shape shape(std::initializer_list<int64_t> d) { opforge::Shape s; for (auto x : d) s.dims[s.rank++] = x; return s; }

int main() {
  cudaStream_t s; CK(cudaStreamCreate(&s));
  opforge::CudaContext ctx; ctx.stream = s;
  const int64_t n = int64_t{1} << 28;
  const double bytes = 2.0 * n * 4;  // read + write, float32
  float *x, *y;
  CK(cudaMalloc(&x, n * 4)); CK(cudaMalloc(&y, n * 4));
  {
    std::vector<float> h(1 << 20);
    std::mt19937 rng(1); std::uniform_real_distribution<float> u(-1, 1);
    for (auto& v : h) v = u(rng);
    for (int64_t off = 0; off < n; off += h.size()) CK(cudaMemcpy(x + off, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
  }
  const opforge::RawTensor in{opforge::DType::kFloat32, x, shape({n}), true};
  const opforge::RawTensor out{opforge::DType::kFloat32, y, shape({n}), true};
  auto report = [&](const char* name, float ms, double b) { std::printf("%s %.4f %.1f\n", name, ms, b / (ms * 1e-3) / 1e9); };

  report("copy_d2d", medianMs([&] { CK(cudaMemcpyAsync(y, x, n * 4, cudaMemcpyDeviceToDevice, s)); }, s), bytes);
  {
    opforge::ops::custom_relu::Attrs a; opforge::ops::custom_relu::State st;
    report("opforge_custom_relu", medianMs([&] { auto r = opforge::ops::custom_relu::runCuda(a, st, &in, &out, ctx); if (!r.ok()) std::exit(2); }, s), bytes);
  }
  {
    opforge::ops::leaky_relu::Attrs a; opforge::ops::leaky_relu::State st;
    report("opforge_leaky_relu", medianMs([&] { auto r = opforge::ops::leaky_relu::runCuda(a, st, &in, &out, ctx); if (!r.ok()) std::exit(2); }, s), bytes);
  }
  {  // DynamicTRTResize: 8x3x256x256 -> 512x512, float32
    opforge::ops::dynamic_trt_resize::Attrs a; opforge::ops::dynamic_trt_resize::State st;
    const opforge::RawTensor rin[2] = {{opforge::DType::kFloat32, x, shape({8, 3, 256, 256}), true}, {opforge::DType::kFloat32, nullptr, shape({1, 1, 512, 512}), true}};
    const opforge::RawTensor rout{opforge::DType::kFloat32, y, shape({8, 3, 512, 512}), true};
    report("opforge_bicubic_8x3x256x256_to_512", medianMs([&] { auto r = opforge::ops::dynamic_trt_resize::runCuda(a, st, rin, &rout, ctx); if (!r.ok()) { std::printf("%s\n", r.message().c_str()); std::exit(2); } }, s), 4.0 * 8 * 3 * (256 * 256 + 512 * 512));
  }
  // KNNQuery: 2 batches of 8192 points, 2048 queries each, nsample 16 to 1024
  for (const int64_t k : {16, 64, 128, 256, 512, 1024}) {
    const int64_t np = 16384, nq = 4096;
    float* pts; int32_t* off; int32_t* qoff; int32_t* idx; float* d2;
    CK(cudaMalloc(&pts, np * 3 * 4)); CK(cudaMalloc(&off, 8)); CK(cudaMalloc(&qoff, 8)); CK(cudaMalloc(&idx, nq * k * 4)); CK(cudaMalloc(&d2, nq * k * 4));
    CK(cudaMemcpy(pts, x, np * 3 * 4, cudaMemcpyDeviceToDevice));
    const int32_t ho[2] = {8192, 16384}, hq[2] = {2048, 4096};
    CK(cudaMemcpy(off, ho, 8, cudaMemcpyHostToDevice)); CK(cudaMemcpy(qoff, hq, 8, cudaMemcpyHostToDevice));
    opforge::ops::knn_query::Attrs a; a.nsample = k; opforge::ops::knn_query::State st;
    const opforge::RawTensor kin[4] = {{opforge::DType::kFloat32, pts, shape({np, 3}), true}, {opforge::DType::kInt32, off, shape({2}), true},
                                       {opforge::DType::kFloat32, x, shape({nq, 3}), true}, {opforge::DType::kInt32, qoff, shape({2}), true}};
    const opforge::RawTensor kout[2] = {{opforge::DType::kInt32, idx, shape({nq, k}), true}, {opforge::DType::kFloat32, d2, shape({nq, k}), true}};
    const std::string name = "opforge_knn_16384pts_4096q_k" + std::to_string(k);
    report(name.c_str(), medianMs([&] { auto r = opforge::ops::knn_query::runCuda(a, st, kin, kout, ctx); if (!r.ok()) std::exit(2); }, s), 0);
    CK(cudaFree(pts)); CK(cudaFree(off)); CK(cudaFree(qoff)); CK(cudaFree(idx)); CK(cudaFree(d2));
  }
  return 0;
}
