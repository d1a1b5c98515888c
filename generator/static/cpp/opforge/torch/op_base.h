// opforge PyTorch extension base: turns at::Tensors into RawTensors, runs an op core's CPU or
// CUDA path on the inputs' device (CUDA on PyTorch's current stream) and returns new tensors.
// The generated per-op files hold only the TORCH_LIBRARY schema and attribute conversion.
#pragma once

#include <ATen/EmptyTensor.h>
#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>

#include <array>
#include <initializer_list>
#include <string>
#include <vector>

#include "opforge/core.h"
#include "opforge/op_core.h"

#ifdef OPFORGE_WITH_CUDA
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#endif

namespace opforge {
namespace torch_ext {


/** Schema limit on inputs and outputs (and a variadic input's members): per-call arrays live on the stack. */
constexpr int kMaxTensors = 32 + kMaxMembers;

inline bool toDType(at::ScalarType t, DType* out) {
  switch (t) {
    case at::kFloat: *out = DType::kFloat32; return true;
    case at::kHalf: *out = DType::kFloat16; return true;
    case at::kBFloat16: *out = DType::kBFloat16; return true;
    case at::kDouble: *out = DType::kFloat64; return true;
    case at::kChar: *out = DType::kInt8; return true;
    case at::kByte: *out = DType::kUInt8; return true;
    case at::kInt: *out = DType::kInt32; return true;
    case at::kLong: *out = DType::kInt64; return true;
    case at::kBool: *out = DType::kBool; return true;
    default: return false;
  }
}

inline at::ScalarType toScalarType(DType t) {
  switch (t) {
    case DType::kFloat32: return at::kFloat;
    case DType::kFloat16: return at::kHalf;
    case DType::kBFloat16: return at::kBFloat16;
    case DType::kFloat64: return at::kDouble;
    case DType::kInt8: return at::kChar;
    case DType::kUInt8: return at::kByte;
    case DType::kInt32: return at::kInt;
    case DType::kInt64: return at::kLong;
    case DType::kBool: return at::kBool;
  }
  return at::kFloat;
}

// An attribute argument of the TORCH_LIBRARY function (schema types: bool, int, float, str, int[],
// float[]) stored into the op core's Attrs field. A given list replaces a spec default, never extends it.
inline void assignAttr(bool& field, bool v) { field = v; }
inline void assignAttr(int64_t& field, int64_t v) { field = v; }
inline void assignAttr(float& field, double v) { field = static_cast<float>(v); }
inline void assignAttr(std::string& field, c10::string_view v) { field.assign(v.data(), v.size()); }
inline void assignAttr(std::vector<int64_t>& field, at::IntArrayRef v) { field.assign(v.begin(), v.end()); }
inline void assignAttr(std::vector<float>& field, at::ArrayRef<double> v) {
  field.clear();
  for (double x : v) field.push_back(static_cast<float>(x));
}

/** Raises the op core's error as a Python RuntimeError (c10::Error). */
inline void check(const Status& s) {
  TORCH_CHECK(s.ok(), s.message());
}

/**
 * Refuses, before any work, a device the op cannot run on: a CUDA tensor when the spec names no
 * CUDA kernel (never a silent copy to the CPU: docs/decisions.md), a CUDA tensor when this
 * extension was built without CUDA, any device but CPU and CUDA. Every op registers for the CUDA
 * key so that CUDA tensors reach this message, not the dispatcher's "Could not run ... 'CUDA'".
 */
template <class Core>
void checkDevice(const at::Device& device) {
  if (device.is_cpu()) return;
  TORCH_CHECK(device.is_cuda(), Core::kName, ": inputs on ", device, " are not supported (CPU and CUDA are)");
  TORCH_CHECK(Core::kHasCuda, Core::kName,
              " has no CUDA kernel (its spec names no kernels.cuda), so it runs on the CPU only: move the "
              "inputs to the CPU (.cpu()) or add a CUDA kernel to the spec");
#ifndef OPFORGE_WITH_CUDA
  TORCH_CHECK(false, Core::kName, ": this extension was built without CUDA (configure out/torch with -DWITH_CUDA=ON)");
#endif
}

/**
 * Runs op core `Core` (the op header's `Core` type): validates, checks shapes and dtypes,
 * allocates outputs and runs the kernel on the inputs' device. Fixed-size arrays, not vectors:
 * this runs on every call, and small tensors spend most of a call outside the kernel.
 */
/**
 * After a run with dims the kernel decides: each value checked against its bound, and each output
 * naming one the leading part of its bound-sized allocation in its actual dims (a view: the kernel
 * wrote it contiguously so).
 */
template <class Core>
void exactOutputs(const at::Tensor& values, const RawTensor* rawOut, std::array<at::Tensor, Core::kNumOutputs>* outputs) {
  int64_t v[Core::kNumDataDims > 0 ? Core::kNumDataDims : 1] = {};
  for (int d = 0; d < Core::kNumDataDims; ++d) {
    v[d] = values.data_ptr<int64_t>()[d];
    check(checkDataDim<Core>(d, v[d], dataDim<Core>(rawOut, d).bound));
  }
  Shape shapes[Core::kNumOutputs];
  for (int o = 0; o < Core::kNumOutputs; ++o) shapes[o] = rawOut[o].shape;
  exactShapes<Core>(shapes, v);
  for (int o = 0; o < Core::kNumOutputs; ++o) {
    if (!rawOut[o].present || shapes[o] == rawOut[o].shape) continue;
    at::Tensor& t = (*outputs)[o];
    t = t.view({-1}).narrow(0, 0, shapes[o].numel()).view(at::IntArrayRef(shapes[o].dims, static_cast<size_t>(shapes[o].rank)));
  }
}

template <class Core>
std::array<at::Tensor, Core::kNumOutputs> run(const typename Core::Attrs& attrs, std::initializer_list<c10::optional<at::Tensor>> given,
                                              at::TensorList members = {}) {
  constexpr const char* kOp = Core::kName;
  check(Core::validate(attrs));
  static_assert(Core::kMaxInputs <= kMaxTensors && Core::kNumOutputs <= kMaxTensors, "too many tensors");
  // A variadic input (Tensor[] in the schema) comes as `members`, after the other inputs.
  const int fixed = Core::kVariadic ? Core::kNumInputs - 1 : Core::kNumInputs;
  TORCH_CHECK(static_cast<int>(given.size()) == fixed, kOp, ": wrong number of inputs");
  const int numIn = fixed + static_cast<int>(members.size());
  check(Core::checkCount(numIn));
  // Contiguous copies (or the tensors themselves) stay alive until the kernel has been launched.
  std::array<at::Tensor, Core::kMaxInputs> inputs;
  RawTensor raw[kMaxTensors];
  Shape shapes[kMaxTensors];
  DType dtypes[kMaxTensors] = {};
  bool present[kMaxTensors] = {};
  c10::optional<at::Device> device;
  int i = 0;
  auto take = [&](const at::Tensor* g) {
    if (g != nullptr && g->defined()) {
      const at::Tensor& t = *g;
      TORCH_CHECK(toDType(t.scalar_type(), &dtypes[i]), kOp, ": ", Core::inputName(i),
                  " has unsupported dtype ", t.scalar_type());
      TORCH_CHECK(t.dim() <= kMaxRank, kOp, ": ", Core::inputName(i), " has rank ", t.dim(),
                  ", more than ", kMaxRank);
      if (!device) device = t.device();
      TORCH_CHECK(t.device() == *device, kOp, ": ", Core::inputName(i), " is on ", t.device(),
                  ", the other inputs on ", *device);
      inputs[i] = t.contiguous();
      shapes[i].rank = static_cast<int32_t>(t.dim());
      for (int64_t d = 0; d < t.dim(); ++d) shapes[i].dims[d] = t.size(d);
      raw[i].dtype = dtypes[i];
      raw[i].data = inputs[i].data_ptr();
      raw[i].shape = shapes[i];
      raw[i].present = true;
      present[i] = true;
    } else {
      raw[i].present = false;
      raw[i].data = nullptr;
    }
    ++i;
  };
  for (const auto& g : given) take(g.has_value() ? &*g : nullptr);
  for (const at::Tensor& m : members) take(&m);
  TORCH_CHECK(device.has_value(), kOp, ": needs at least one input tensor");
  checkDevice<Core>(*device);
  DType outDtypes[kMaxTensors] = {};
  int binding = -1;
  check(Core::inferTypes(attrs, dtypes, present, numIn, outDtypes, &binding));
  check(Core::checkShapes(attrs, shapes, present, numIn));
  typename Core::State state;
  if constexpr (Core::kHasConfigure) check(Core::configure(attrs, shapes, &state));
  Shape outShapes[kMaxTensors];
  check(Core::inferShapes(attrs, shapes, numIn, outShapes));
  size_t workspaceBytes = 0;
  check(Core::workspaceSize(attrs, shapes, dtypes, numIn, &workspaceBytes));

  // CPU tensors straight from the CPU allocator, as ATen's own kernels get theirs (at::empty
  // would go through the dispatcher once more); CUDA through at::empty (the caching allocator).
  const auto options = at::TensorOptions().device(*device);
  const bool cpu = device->is_cpu();
  auto allocate = [&](const Shape& s, at::ScalarType type) -> at::Tensor {
    const at::IntArrayRef sizes(s.dims, static_cast<size_t>(s.rank));
    return cpu ? at::Tensor(at::detail::empty_cpu(sizes, type)) : at::empty(sizes, options.dtype(type));
  };
  // An output the attributes leave out (`present:`) is an empty tensor: the schema's outputs are
  // fixed, and the Python package's function returns only the present ones.
  bool wanted[kMaxTensors] = {};
  int count = 0;
  check(Core::outputsPresent(attrs, wanted, &count));
  std::array<at::Tensor, Core::kNumOutputs> outputs;
  RawTensor rawOut[kMaxTensors];
  for (int o = 0; o < Core::kNumOutputs; ++o) {
    if (!wanted[o]) {
      outputs[o] = allocate(Shape{1, {0}}, toScalarType(outDtypes[o]));
      rawOut[o].dtype = outDtypes[o];
      rawOut[o].present = false;
      continue;
    }
    outputs[o] = allocate(outShapes[o], toScalarType(outDtypes[o]));
    rawOut[o].dtype = outDtypes[o];
    rawOut[o].data = outputs[o].data_ptr();
    rawOut[o].shape = outShapes[o];
  }
  // Dims the kernel decides: one int64 slot each on the device, -1 until the kernel sets it.
  at::Tensor dataDims;
  if constexpr (Core::kNumDataDims > 0) {
    dataDims = at::full({Core::kNumDataDims}, -1, options.dtype(at::kLong));
    for (int d = 0; d < Core::kNumDataDims; ++d)
      rawOut[Core::kNumOutputs + d] = RawTensor{DType::kInt64, dataDims.data_ptr<int64_t>() + d, Shape{}, true};
  }
  at::Tensor workspace;
  if (workspaceBytes > 0) {
    Shape bytes;
    bytes.rank = 1;
    bytes.dims[0] = static_cast<int64_t>(workspaceBytes);
    workspace = allocate(bytes, at::kByte);
  }

  if (cpu) {
    CpuContext ctx;
    ctx.workspace = workspaceBytes > 0 ? workspace.data_ptr() : nullptr;
    ctx.workspaceSize = workspaceBytes;
    check(Core::runCpu(attrs, state, raw, numIn, rawOut, ctx));
  } else {
    // CUDA, with a CUDA kernel and a CUDA build: checkDevice() refused everything else.
#ifdef OPFORGE_WITH_CUDA
    if constexpr (Core::kHasCuda) {
      c10::cuda::CUDAGuard guard(*device);
      CudaContext ctx;
      ctx.stream = c10::cuda::getCurrentCUDAStream(device->index()).stream();
      ctx.workspace = workspaceBytes > 0 ? workspace.data_ptr() : nullptr;
      ctx.workspaceSize = workspaceBytes;
      check(Core::runCuda(attrs, state, raw, numIn, rawOut, ctx));
    }
#endif
  }
  if constexpr (Core::kNumDataDims > 0) exactOutputs<Core>(dataDims.cpu(), rawOut, &outputs);  // (a CUDA run: synchronized)
  return outputs;
}

}  // namespace torch_ext
}  // namespace opforge
