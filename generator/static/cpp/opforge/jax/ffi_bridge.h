// opforge JAX bridge: runs an op core behind an XLA typed-FFI handler. The generated handler per op
// (out/jax/<op>/<op>_jax.cc) decodes the op's attributes into the core's Attrs and hands the
// call's buffers here; this checks them against the op core (dtypes, ranks, dims: the core's own
// checks and messages), sizes the workspace, computes the state, and runs the core's runCpu or
// runCuda. Nothing here knows an op: every function is a template over the op core's `Core`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "xla/ffi/api/ffi.h"

#include "opforge/core.h"
#include "opforge/jax/dtype.h"
#include "opforge/op_core.h"

#ifdef OPFORGE_JAX_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace opforge {
namespace jax_bridge {

namespace ffi = ::xla::ffi;

/** Schema limit on inputs and outputs: per-call arrays live on the stack. */
constexpr int kMaxTensors = 32;

/** Alignment of the workspace the bridge hands a kernel (what cudaMalloc gives). */
constexpr size_t kWorkspaceAlignment = 256;

/** An op-core Status as the FFI error JAX raises (XlaRuntimeError / JaxRuntimeError with the message). */
inline ffi::Error toError(const Status& s) {
  return s.ok() ? ffi::Error::Success() : ffi::Error::InvalidArgument(s.message());
}

/** Returns the FFI error of a failed Status. */
#define OPFORGE_JAX_RETURN_IF_ERROR(expr)                                          \
  do {                                                                            \
    ::opforge::Status opforge_jax_status_ = (expr);                               \
    if (!opforge_jax_status_.ok()) return ::opforge::jax_bridge::toError(opforge_jax_status_); \
  } while (0)

/** The op core's float attribute from the f64 JAX passes. */
inline float narrow(double v) { return static_cast<float>(v); }

/** A list attribute (an int64 or float64 numpy array on the Python side) as the op core's vector. */
inline std::vector<int64_t> toVector(ffi::Span<const int64_t> v) { return std::vector<int64_t>(v.begin(), v.end()); }
inline std::vector<float> toVector(ffi::Span<const double> v) {
  std::vector<float> out;
  out.reserve(v.size());
  for (double x : v) out.push_back(static_cast<float>(x));
  return out;
}

inline std::string toString(std::string_view v) { return std::string(v); }

/** A buffer as the op core's RawTensor; its dtype must be one opforge knows, its rank at most kMaxRank. */
inline Status toRaw(const char* op, const std::string& what, const ffi::AnyBuffer& b, RawTensor* t) {
  if (!fromXla(b.element_type(), &t->dtype)) {
    return Status::Error(std::string(op) + ": " + what + " has XLA element type " + std::to_string(static_cast<int>(b.element_type())) + ", which no opforge dtype matches");
  }
  const auto dims = b.dimensions();
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return Status::Error(std::string(op) + ": " + what + " has rank " + std::to_string(dims.size()) + ", at most " + std::to_string(kMaxRank) + " is supported");
  }
  t->shape.rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) t->shape.dims[d] = dims[d];
  t->data = const_cast<void*>(static_cast<const void*>(b.untyped_data()));
  t->present = true;
  return Status::Ok();
}

/** Everything a run needs besides the buffers, from the op core: output dtypes and dims, workspace bytes, state. */
template <class Op>
struct Plan {
  RawTensor inputs[Op::kMaxInputs];
  /** The call's input tensors: the inputs, then a variadic input's members (Op::kNumInputs without one). */
  int numIn = Op::kNumInputs;
  RawTensor outputs[kMaxTensors];
  size_t workspaceBytes = 0;
  typename Op::State state;
};

/**
 * The call's buffers against the op core: `present` says which inputs the Python side passed (an
 * absent optional input has no buffer), the outputs must have the dtypes and dims the core infers
 * (opforge_jax computes them from the same spec; a mismatch is a bug, said by name). A variadic
 * input's members are the operands after the other inputs' (its bit in `present` is not read).
 */
template <class Op>
Status plan(const typename Op::Attrs& attrs, ffi::RemainingArgs args, ffi::RemainingRets rets, uint64_t present, Plan<Op>* p) {
  OPFORGE_RETURN_IF_ERROR(Op::validate(attrs));
  DType dtypes[Op::kMaxInputs] = {};
  bool given[Op::kMaxInputs] = {};
  Shape shapes[Op::kMaxInputs];
  const int fixed = Op::kVariadic ? Op::kNumInputs - 1 : Op::kNumInputs;
  size_t operands = 0;  // of the inputs before a variadic one
  for (int i = 0; i < fixed; ++i) {
    given[i] = ((present >> i) & 1u) != 0;
    if (given[i]) ++operands;
    else if (!Op::kInputOptional[i]) return Status::Error(std::string(Op::kName) + ": input " + Op::kInputNames[i] + " is required");
  }
  if (operands > args.size() || (!Op::kVariadic && operands != args.size())) {
    return Status::Error(std::string(Op::kName) + ": the call has " + std::to_string(args.size()) + " operands, " + std::to_string(operands) + " inputs are present");
  }
  // The operands left are the members: counted before the arrays are filled.
  const int numIn = Op::kVariadic ? fixed + static_cast<int>(args.size() - operands) : fixed;
  OPFORGE_RETURN_IF_ERROR(Op::checkCount(numIn));
  p->numIn = numIn;
  if constexpr (Op::kVariadic) {
    for (int t = fixed; t < numIn; ++t) given[t] = true;
  }
  size_t next = 0;
  for (int t = 0; t < numIn; ++t) {
    p->inputs[t].present = given[t];
    if (!given[t]) continue;
    auto b = args.get<ffi::AnyBuffer>(next++);
    if (!b.has_value()) return Status::Error(std::string(Op::kName) + ": " + Op::inputName(t) + " is not a buffer");
    OPFORGE_RETURN_IF_ERROR(toRaw(Op::kName, Op::inputName(t), *b, &p->inputs[t]));
    dtypes[t] = p->inputs[t].dtype;
    shapes[t] = p->inputs[t].shape;
  }
  // The call has the outputs the attributes ask for (`present:`), which come first.
  bool wanted[kMaxTensors] = {};
  int numWanted = 0;
  OPFORGE_RETURN_IF_ERROR(Op::outputsPresent(attrs, wanted, &numWanted));
  // Then one rank-0 int64 result per dim the kernel decides: its value (the outputs are padded to the bound).
  if (rets.size() != static_cast<size_t>(numWanted + Op::kNumDataDims)) {
    return Status::Error(std::string(Op::kName) + ": the call has " + std::to_string(rets.size()) + " results, the attributes ask for " + std::to_string(numWanted) + " outputs" +
                         (Op::kNumDataDims > 0 ? " and " + std::to_string(Op::kNumDataDims) + " data dims" : std::string()));
  }
  DType outDtypes[kMaxTensors] = {};
  int binding = -1;
  OPFORGE_RETURN_IF_ERROR(Op::inferTypes(attrs, dtypes, given, numIn, outDtypes, &binding));
  OPFORGE_RETURN_IF_ERROR(Op::checkShapes(attrs, shapes, given, numIn));
  Shape outShapes[kMaxTensors];
  OPFORGE_RETURN_IF_ERROR(Op::inferShapes(attrs, shapes, numIn, outShapes));
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    if (!wanted[o]) {
      p->outputs[o] = RawTensor{outDtypes[o], nullptr, Shape{}, false};
      continue;
    }
    auto r = rets.get<ffi::AnyBuffer>(static_cast<size_t>(o));
    if (!r.has_value()) return Status::Error(std::string(Op::kName) + ": output " + Op::kOutputNames[o] + " is not a buffer");
    const std::string what = std::string("output ") + Op::kOutputNames[o];
    OPFORGE_RETURN_IF_ERROR(toRaw(Op::kName, what, **r, &p->outputs[o]));
    if (p->outputs[o].dtype != outDtypes[o] || p->outputs[o].shape != outShapes[o]) {
      return Status::Error(std::string(Op::kName) + ": " + what + " was declared " + dtypeName(p->outputs[o].dtype) + p->outputs[o].shape.str() +
                           ", the op core infers " + dtypeName(outDtypes[o]) + outShapes[o].str());
    }
  }
  for (int d = 0; d < Op::kNumDataDims; ++d) {
    auto r = rets.get<ffi::AnyBuffer>(static_cast<size_t>(numWanted + d));
    const std::string what = std::string("data dim ") + Op::kInfo.dataDimNames[d];
    if (!r.has_value()) return Status::Error(std::string(Op::kName) + ": " + what + " is not a buffer");
    RawTensor& t = p->outputs[Op::kNumOutputs + d];
    OPFORGE_RETURN_IF_ERROR(toRaw(Op::kName, what, **r, &t));
    if (t.dtype != DType::kInt64 || t.shape.rank != 0) return Status::Error(std::string(Op::kName) + ": " + what + " was declared " + dtypeName(t.dtype) + t.shape.str() + ", not a rank-0 int64");
  }
  OPFORGE_RETURN_IF_ERROR(Op::workspaceSize(attrs, shapes, dtypes, numIn, &p->workspaceBytes));
  if constexpr (Op::kHasConfigure) OPFORGE_RETURN_IF_ERROR(Op::configure(attrs, shapes, &p->state));
  return Status::Ok();
}

/** The bytes of output `o` as allocated (its bound dims). */
template <class Op>
size_t boundBytes(const Plan<Op>& p, int o) {
  return static_cast<size_t>(p.outputs[o].shape.numel()) * dtypeSize(p.outputs[o].dtype);
}

/** Whether output `o` has a dim the kernel decides (it is padded: zeros past the kernel's rows). */
template <class Op>
bool padded(int o) {
  for (int axis = 0; axis < kMaxRank; ++axis)
    if (Op::dataDimAt(o, axis) >= 0) return true;
  return false;
}

/** Runs the CPU kernel; its workspace is host memory owned by the call (XLA's scratch allocator is device memory). */
template <class Op>
ffi::Error runCpu(const typename Op::Attrs& attrs, ffi::RemainingArgs args, ffi::RemainingRets rets, uint64_t present) {
  Plan<Op> p;
  OPFORGE_JAX_RETURN_IF_ERROR(plan<Op>(attrs, args, rets, present, &p));
  std::unique_ptr<unsigned char[]> workspace;
  CpuContext ctx;
  if (p.workspaceBytes > 0) {
    workspace.reset(new unsigned char[p.workspaceBytes + kWorkspaceAlignment]);
    void* raw = workspace.get();
    size_t space = p.workspaceBytes + kWorkspaceAlignment;
    ctx.workspace = std::align(kWorkspaceAlignment, p.workspaceBytes, raw, space);
    ctx.workspaceSize = p.workspaceBytes;
  }
  // Padded outputs are zeros past what the kernel writes; data dims -1 until it sets them.
  for (int o = 0; o < Op::kNumOutputs; ++o)
    if (padded<Op>(o) && p.outputs[o].present) std::memset(p.outputs[o].data, 0, boundBytes(p, o));
  for (int d = 0; d < Op::kNumDataDims; ++d) *static_cast<int64_t*>(p.outputs[Op::kNumOutputs + d].data) = -1;
  OPFORGE_JAX_RETURN_IF_ERROR(Op::runCpu(attrs, p.state, p.inputs, p.numIn, p.outputs, ctx));
  for (int d = 0; d < Op::kNumDataDims; ++d)
    OPFORGE_JAX_RETURN_IF_ERROR(checkDataDim<Op>(d, *static_cast<int64_t*>(p.outputs[Op::kNumOutputs + d].data), dataDim<Op>(p.outputs, d).bound));
  return ffi::Error::Success();
}

#ifdef OPFORGE_JAX_WITH_CUDA
/**
 * Runs the CUDA kernel on `stream` (the cudaStream_t XLA gives the handler). Its workspace comes
 * from XLA's scratch allocator (valid for the call) when it has one; jaxlib 0.11.2 on CUDA gives
 * none from a handler (seen on an H200), so the fallback is stream-ordered memory: allocated and
 * freed on the call's stream, so it lives exactly as long as the kernel's work. Without a CUDA
 * kernel in the spec: the op's error.
 */
template <class Op>
ffi::Error runCuda(const typename Op::Attrs& attrs, ffi::RemainingArgs args, ffi::RemainingRets rets, uint64_t present, cudaStream_t stream,
                   ffi::ScratchAllocator& scratch) {
  if constexpr (Op::kHasCuda) {
    Plan<Op> p;
    OPFORGE_JAX_RETURN_IF_ERROR(plan<Op>(attrs, args, rets, present, &p));
    CudaContext ctx;
    ctx.stream = stream;
    void* owned = nullptr;
    if (p.workspaceBytes > 0) {
      std::optional<void*> ws = scratch.Allocate(p.workspaceBytes, kWorkspaceAlignment);
      if (!ws.has_value()) {
        const cudaError_t e = cudaMallocAsync(&owned, p.workspaceBytes, stream);
        if (e != cudaSuccess) {
          return ffi::Error(ffi::ErrorCode::kResourceExhausted, std::string(Op::kName) + ": no " + std::to_string(p.workspaceBytes) +
                                                                    " bytes of CUDA memory for the workspace (" + cudaGetErrorString(e) + ")");
        }
      }
      ctx.workspace = ws.has_value() ? *ws : owned;
      ctx.workspaceSize = p.workspaceBytes;
    }
    // Padded outputs are zeros past what the kernel writes; data dims -1 until it sets them (the
    // kernel's value stays on the device: JAX reads it as an array, unchecked here).
    for (int o = 0; o < Op::kNumOutputs; ++o)
      if (padded<Op>(o) && p.outputs[o].present) cudaMemsetAsync(p.outputs[o].data, 0, boundBytes(p, o), stream);
    for (int d = 0; d < Op::kNumDataDims; ++d) cudaMemsetAsync(p.outputs[Op::kNumOutputs + d].data, 0xff, sizeof(int64_t), stream);
    const Status s = Op::runCuda(attrs, p.state, p.inputs, p.numIn, p.outputs, ctx);
    if (owned != nullptr) cudaFreeAsync(owned, stream);
    return toError(s);
  } else {
    (void)attrs; (void)args; (void)rets; (void)present; (void)stream; (void)scratch;
    return ffi::Error::InvalidArgument(std::string(Op::kName) + " has no CUDA kernel (its spec names no kernels.cuda), so it runs on the CPU only: "
                                      "place the inputs on the CPU (jax.device_put(x, jax.devices(\"cpu\")[0])) or add a CUDA kernel to the spec");
  }
}
#endif

}  // namespace jax_bridge
}  // namespace opforge
