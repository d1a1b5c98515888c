// opforge's launcher of Triton kernels compiled ahead of time (kernels.triton, docs/triton.md).
// The build compiles each kernel per dtype binding and CUDA architecture with Triton's compiler
// (opforge_triton_aot.py) into images embedded in the op's CUDA object; this launches one on the
// backend's stream through the CUDA driver (its entry points found through the CUDA runtime, so
// nothing links libcuda and nothing imports Python or Triton at run time). A cubin runs on GPUs of
// its major architecture from its minor on; a portable PTX (not sm_XXa) is JIT-compiled by the
// driver for a newer GPU; a GPU neither covers is an error naming both.
#pragma once

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "opforge/core.h"

namespace opforge {
namespace triton {

enum ImageKind : int { kCubin = 0, kPtx = 1 };

/** One compiled form of a kernel: a cubin for `arch` (e.g. 90), or PTX (portable: any newer GPU). */
struct Image {
  int arch;
  ImageKind kind;
  bool portable;
  const unsigned char* data;
  size_t size;
  const char* name;        // the kernel's symbol in the image
  unsigned sharedBytes;    // Triton's metadata.shared
};

/** A kernel of one dtype binding: its images, warps per program, and what built it. */
struct Kernel {
  const Image* images;
  int numImages;
  int numWarps;
  const char* tritonVersion;
  const char* archs;
};

namespace detail {

struct Driver {
  decltype(&cuModuleLoadData) moduleLoadData = nullptr;
  decltype(&cuModuleGetFunction) moduleGetFunction = nullptr;
  decltype(&cuFuncSetAttribute) funcSetAttribute = nullptr;
  decltype(&cuLaunchKernel) launchKernel = nullptr;
  decltype(&cuGetErrorString) getErrorString = nullptr;
  std::string error;
};

template <class F>
bool entry(const char* symbol, F* fn, std::string* error) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion(symbol, &p, 12000, cudaEnableDefault, &q) != cudaSuccess || q != cudaDriverEntryPointSuccess || p == nullptr) {
    *error = std::string("the CUDA driver has no ") + symbol;
    return false;
  }
  *fn = reinterpret_cast<F>(p);
  return true;
}

inline const Driver& driver() {
  static const Driver d = [] {
    Driver r;
    const bool ok = entry("cuModuleLoadData", &r.moduleLoadData, &r.error) && entry("cuModuleGetFunction", &r.moduleGetFunction, &r.error) &&
                    entry("cuFuncSetAttribute", &r.funcSetAttribute, &r.error) && entry("cuLaunchKernel", &r.launchKernel, &r.error) &&
                    entry("cuGetErrorString", &r.getErrorString, &r.error);
    (void)ok;
    return r;
  }();
  return d;
}

inline std::string cuError(CUresult r) {
  const char* s = nullptr;
  if (driver().getErrorString != nullptr) driver().getErrorString(r, &s);
  return s != nullptr ? s : "CUDA driver error " + std::to_string(static_cast<int>(r));
}

/** The image for a GPU of compute capability `cc` (e.g. 90): a cubin of its major architecture at or below it, else a portable PTX at or below it. */
inline const Image* pick(const Kernel& k, int cc) {
  const Image* best = nullptr;
  for (int i = 0; i < k.numImages; ++i) {
    const Image& im = k.images[i];
    if (im.kind == kCubin && im.arch / 10 == cc / 10 && im.arch <= cc && (best == nullptr || im.arch > best->arch)) best = &im;
  }
  if (best != nullptr) return best;
  for (int i = 0; i < k.numImages; ++i) {
    const Image& im = k.images[i];
    if (im.kind == kPtx && im.portable && im.arch <= cc && (best == nullptr || im.arch > best->arch)) best = &im;
  }
  return best;
}

/** The compute capability of device `dev` (e.g. 90), read once per device and kept; 0 where it cannot be read. */
inline int capability(int dev) {
  constexpr int kKept = 64;
  static std::atomic<int> kept[kKept] = {};
  int cc = dev >= 0 && dev < kKept ? kept[dev].load(std::memory_order_relaxed) : 0;
  if (cc != 0) return cc;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
    return 0;
  cc = major * 10 + minor;
  if (dev >= 0 && dev < kKept) kept[dev].store(cc, std::memory_order_relaxed);
  return cc;
}

/** The loaded function of `k` on the current device (loaded once per device and kept). */
inline Status function(const char* op, const Kernel& k, CUfunction* f, unsigned* shared) {
  if (!driver().error.empty()) return Status::Error(std::string(op) + ": " + driver().error);
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return Status::Error(std::string(op) + ": no CUDA device");
  static std::mutex mu;
  static std::map<std::pair<const Kernel*, int>, std::pair<CUfunction, unsigned>> loaded;
  std::lock_guard<std::mutex> lock(mu);
  const auto it = loaded.find({&k, dev});
  if (it != loaded.end()) {
    *f = it->second.first;
    *shared = it->second.second;
    return Status::Ok();
  }
  const int cc = capability(dev);
  if (cc == 0) return Status::Error(std::string(op) + ": cannot read the compute capability of CUDA device " + std::to_string(dev));
  const Image* im = pick(k, cc);
  if (im == nullptr)
    return Status::Error(std::string(op) + ": its Triton kernel was compiled for sm " + k.archs + " (Triton " + k.tritonVersion + "), and none of those images runs on this GPU (sm_" +
                         std::to_string(cc) + "): build for it (CMAKE_CUDA_ARCHITECTURES)");
  cudaFree(nullptr);  // the device's primary context current, as the backends' CUDA runtime calls use it
  CUmodule mod = nullptr;
  CUresult r = driver().moduleLoadData(&mod, im->data);
  if (r == CUDA_SUCCESS) r = driver().moduleGetFunction(f, mod, im->name);
  if (r == CUDA_SUCCESS && im->sharedBytes > 49152) r = driver().funcSetAttribute(*f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(im->sharedBytes));
  if (r != CUDA_SUCCESS) return Status::Error(std::string(op) + ": loading its Triton kernel " + im->name + " (sm_" + std::to_string(im->arch) + "): " + cuError(r));
  loaded[{&k, dev}] = {*f, im->sharedBytes};
  *shared = im->sharedBytes;
  return Status::Ok();
}

}  // namespace detail

/**
 * The configuration a launch uses (configOf; configFor for a GPU of capability cc): the context's tactic k (1..n, TensorRT's) is configuration k - 1;
 * else the one the spec makes the default on this GPU (`archs:`, `defaults` rows {capability,
 * configuration}: the GPU's own, else the highest of its major architecture below it); else the first.
 */
inline int configFor(int cc, int n, const int (*defaults)[2], int numDefaults) {
  int best = -1, config = 0;
  for (int i = 0; i < numDefaults; ++i)
    if (defaults[i][0] / 10 == cc / 10 && defaults[i][0] <= cc && defaults[i][0] > best) best = defaults[i][0], config = defaults[i][1];
  return config < n ? config : 0;
}

inline int configOf(const CudaContext& ctx, int n, const int (*defaults)[2], int numDefaults) {
  if (ctx.tactic >= 1 && ctx.tactic <= n) return ctx.tactic - 1;
  if (numDefaults == 0) return 0;
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return 0;
  return configFor(detail::capability(dev), n, defaults, numDefaults);
}

/**
 * Launches `k` with `args` (pointers to each non-constexpr parameter's value, in order) on the
 * context's stream over `grid` programs; Triton's trailing scratch parameters are passed as null
 * (the build refuses kernels that need them). An empty grid launches nothing.
 */
inline Status launch(const char* op, const Kernel& k, const int64_t (&grid)[3], void** args, int numArgs, const CudaContext& ctx) {
  for (int d = 0; d < 3; ++d) {
    if (grid[d] == 0) return Status::Ok();
    if (grid[d] < 0 || grid[d] > (d == 0 ? int64_t{2147483647} : int64_t{65535}))
      return Status::Error(std::string(op) + ": the Triton launch grid's " + "xyz"[d] + " is " + std::to_string(grid[d]) + ", outside 1.." + (d == 0 ? "2147483647" : "65535"));
  }
  CUfunction f = nullptr;
  unsigned shared = 0;
  OPFORGE_RETURN_IF_ERROR(detail::function(op, k, &f, &shared));
  CUdeviceptr globalScratch = 0, profileScratch = 0;
  void* params[66];
  if (numArgs > 64) return Status::Error(std::string(op) + ": more than 64 Triton arguments");
  for (int i = 0; i < numArgs; ++i) params[i] = args[i];
  params[numArgs] = &globalScratch;
  params[numArgs + 1] = &profileScratch;
  const CUresult r = detail::driver().launchKernel(f, static_cast<unsigned>(grid[0]), static_cast<unsigned>(grid[1]), static_cast<unsigned>(grid[2]), static_cast<unsigned>(k.numWarps * 32), 1, 1,
                                                   shared, static_cast<CUstream>(ctx.stream), params, nullptr);
  if (r != CUDA_SUCCESS) return Status::Error(std::string(op) + ": launching its Triton kernel: " + detail::cuError(r));
  return Status::Ok();
}

}  // namespace triton
}  // namespace opforge
