// opforge Paddle custom-op base: the KernelFn, InferShapeFn and InferDtypeFn bodies every
// generated PD_BUILD_OP shares. Converts paddle::Tensor / paddle::DataType to the op core's
// RawTensor / DType, runs the framework-free bridge (bridge.h) and throws Paddle's exception with
// the op core's message on any error. The per-op code only converts attributes.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "paddle/extension.h"
#if __has_include("paddle/common/enforce.h")
#include "paddle/common/enforce.h"
#define OPFORGE_PADDLE_ENFORCE 1
#endif

#include "opforge/core.h"
#include "opforge/op_core.h"
#include "opforge/paddle/bridge.h"
#include "opforge/paddle/dtype.h"

namespace opforge {
namespace paddle_bridge {

/**
 * Raises the op's error in Paddle. Paddle's own InvalidArgument reaches Python as a ValueError
 * carrying the message, in dygraph and in the PIR executor; PD_THROW's exception becomes an
 * OSError in dygraph, and the PIR executor reports it as a bare 'std::exception'.
 */
[[noreturn]] inline void fail(const std::string& message) {
#if defined(OPFORGE_PADDLE_ENFORCE)
  PADDLE_THROW(::common::errors::InvalidArgument("%s", message.c_str()));
#else
  PD_THROW(message);
#endif
}

inline void throwIfError(const Status& s) {
  if (!s.ok()) fail(s.message());
}

/**
 * After a run with dims the kernel decides: each value checked against its bound, and each output
 * naming one the leading part of its bound-sized tensor in its actual dims (the kernel wrote it
 * contiguously so).
 */
template <class Op>
void exactOutputs(const ::paddle::Tensor& values, const RawTensor* out, std::vector<::paddle::Tensor>* outs) {
  int64_t v[Op::kNumDataDims] = {};
  for (int d = 0; d < Op::kNumDataDims; ++d) {
    v[d] = values.data<int64_t>()[d];
    throwIfError(checkDataDim<Op>(d, v[d], dataDim<Op>(out, d).bound));
  }
  Shape shapes[Op::kNumOutputs];
  for (int o = 0; o < Op::kNumOutputs; ++o) shapes[o] = out[o].shape;
  exactShapes<Op>(shapes, v);
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    if (!out[o].present || shapes[o] == out[o].shape) continue;
    ::paddle::Tensor& t = (*outs)[static_cast<size_t>(o)];
    ::paddle::Tensor exact = ::paddle::empty(toDims(shapes[o]), t.dtype(), t.place());
    const size_t bytes = static_cast<size_t>(shapes[o].numel()) * dtypeSize(out[o].dtype);
    if (bytes > 0 && t.is_cpu()) std::memcpy(exact.data(), t.data(), bytes);
#if defined(PADDLE_WITH_CUDA)
    if (bytes > 0 && t.is_gpu() && cudaMemcpyAsync(exact.data(), t.data(), bytes, cudaMemcpyDeviceToDevice, t.stream()) != cudaSuccess)
      fail(std::string(Op::kName) + ": copying output " + Op::kOutputNames[o] + " to its actual dims failed");
#endif
    t = exact;
  }
}

/**
 * KernelFn body: runs the op on its inputs' device (CPU kernel, or CUDA kernel on the tensors'
 * stream). `members`: a variadic input's (paddle::Vec), after the other inputs.
 */
template <class Op>
std::vector<::paddle::Tensor> compute(const typename Op::Attrs& attrs, std::initializer_list<const ::paddle::Tensor*> inputs,
                                      const std::vector<::paddle::Tensor>& members = {}) {
  const ::paddle::Tensor* given[Op::kMaxInputs] = {};
  int numIn = 0;
  throwIfError(gather<Op>(inputs, members, given, &numIn));
  RawTensor in[Op::kMaxInputs];
  const ::paddle::Tensor* first = nullptr;
  for (int i = 0; i < numIn; ++i) {
    const ::paddle::Tensor* t = given[i];
    RawTensor& r = in[i];
    const std::string what = Op::inputName(i);
    if (t == nullptr || !t->initialized()) {
      r.present = false;
      continue;
    }
    if (!fromPaddle(t->dtype(), &r.dtype)) fail(std::string(Op::kName) + ": " + what + " has a dtype opforge does not support");
    throwIfError(toShape(Op::kName, what.c_str(), t->shape(), &r.shape));
    r.data = const_cast<void*>(t->data());
    r.present = true;
    if (first == nullptr) {
      first = t;
    } else if (t->place() != first->place()) {
      fail(std::string(Op::kName) + ": " + what + " is on " + t->place().DebugString() + ", other inputs on " + first->place().DebugString());
    }
  }
  Plan<typename Op::State> p;
  throwIfError(plan<Op>(attrs, in, &p, numIn));
  const ::paddle::Place place = first != nullptr ? first->place() : ::paddle::Place(::paddle::CPUPlace());
  std::vector<::paddle::Tensor> outs;
  outs.reserve(static_cast<size_t>(Op::kNumOutputs));
  RawTensor out[kMaxTensors];
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    outs.push_back(::paddle::empty(toDims(p.outShapes[o]), toPaddle(p.outDtypes[o]), place));
    out[o].dtype = p.outDtypes[o];
    out[o].data = p.outPresent[o] ? outs.back().data() : nullptr;
    out[o].shape = p.outShapes[o];
    out[o].present = p.outPresent[o];
  }
  // Dims the kernel decides: an int64 slot each on the inputs' device, -1 until the kernel sets it.
  ::paddle::Tensor dataDims;
  if constexpr (Op::kNumDataDims > 0) {
    dataDims = ::paddle::empty({Op::kNumDataDims}, ::paddle::DataType::INT64, ::paddle::CPUPlace());
    for (int d = 0; d < Op::kNumDataDims; ++d) dataDims.data<int64_t>()[d] = -1;
    if (!(first == nullptr || first->is_cpu())) dataDims = dataDims.copy_to(place, true);
    for (int d = 0; d < Op::kNumDataDims; ++d)
      out[Op::kNumOutputs + d] = RawTensor{DType::kInt64, dataDims.data<int64_t>() + d, Shape{}, true};
  }
  ::paddle::Tensor scratch;
  void* workspace = nullptr;
  if (p.workspaceBytes > 0) {
    scratch = ::paddle::empty({static_cast<int64_t>(p.workspaceBytes)}, ::paddle::DataType::UINT8, place);
    workspace = scratch.data();
  }
  if (first == nullptr || first->is_cpu()) {
    throwIfError(runCpu<Op>(attrs, p, in, out, workspace));
#if defined(PADDLE_WITH_CUDA)
  } else if (first->is_gpu()) {
    throwIfError(runCuda<Op>(attrs, p, in, out, workspace, static_cast<void*>(first->stream())));
#endif
  } else {
    fail(std::string(Op::kName) + ": inputs on " + place.DebugString() + "; opforge runs on CPU and (built with PADDLE_WITH_CUDA) GPU");
  }
  if constexpr (Op::kNumDataDims > 0) exactOutputs<Op>(dataDims.is_cpu() ? dataDims : dataDims.copy_to(::paddle::CPUPlace(), true), out, &outs);
  return outs;
}

// The static-graph functions never throw: PIR calls InferShapeFn and InferDtypeFn where an
// exception ends the process (std::terminate). A call the op core refuses gets placeholder outputs
// (unknown dims, the first input's dtype) and the kernel raises the op's error when the graph runs.

/** InferShapeFn body (inputs: null for an absent optional input; then a variadic input's members). */
template <class Op>
std::vector<std::vector<int64_t>> inferShape(const typename Op::Attrs& attrs, std::initializer_list<const std::vector<int64_t>*> inputs,
                                             const std::vector<std::vector<int64_t>>& members = {}) {
  const std::vector<int64_t>* given[Op::kMaxInputs] = {};
  int numIn = 0;
  std::vector<std::vector<int64_t>> out;
  if (!gather<Op>(inputs, members, given, &numIn).ok() || !inferShapes<Op>(attrs, given, &out, numIn).ok())
    out.assign(static_cast<size_t>(Op::kNumOutputs), std::vector<int64_t>{kUnknownDim});
  return out;
}

/** InferDtypeFn body (inputs: null for an absent optional input; then a variadic input's members). */
template <class Op>
std::vector<::paddle::DataType> inferDtype(const typename Op::Attrs& attrs, std::initializer_list<const ::paddle::DataType*> inputs,
                                           const std::vector<::paddle::DataType>& members = {}) {
  const ::paddle::DataType* given[Op::kMaxInputs] = {};
  int numIn = 0;
  const bool counted = gather<Op>(inputs, members, given, &numIn).ok();
  DType in[Op::kMaxInputs] = {};
  bool present[Op::kMaxInputs] = {};
  bool known = counted;
  const ::paddle::DataType* fallback = nullptr;  // the placeholder dtype: the first present input's
  for (int i = 0; i < numIn && counted; ++i) {
    present[i] = given[i] != nullptr;
    if (present[i]) {
      if (fallback == nullptr) fallback = given[i];
      known = known && fromPaddle(*given[i], &in[i]);
    }
  }
  std::vector<DType> out;
  if (!known || !inferDtypes<Op>(attrs, in, present, &out, numIn).ok()) {
    return std::vector<::paddle::DataType>(static_cast<size_t>(Op::kNumOutputs), fallback != nullptr ? *fallback : ::paddle::DataType::FLOAT32);
  }
  std::vector<::paddle::DataType> result;
  result.reserve(out.size());
  for (DType t : out) result.push_back(toPaddle(t));
  return result;
}

/** A grad op's InferShapeFn: each input gradient has its input's dims (absent optional inputs: none). */
inline std::vector<std::vector<int64_t>> gradShapes(std::initializer_list<const std::vector<int64_t>*> inputs) {
  std::vector<std::vector<int64_t>> out;
  for (const std::vector<int64_t>* s : inputs) {
    if (s != nullptr) out.push_back(*s);
  }
  return out;
}

/** A grad op's InferDtypeFn: each input gradient has its input's dtype (absent optional inputs: none). */
inline std::vector<::paddle::DataType> gradDtypes(std::initializer_list<const ::paddle::DataType*> inputs) {
  std::vector<::paddle::DataType> out;
  for (const ::paddle::DataType* t : inputs) {
    if (t != nullptr) out.push_back(*t);
  }
  return out;
}

}  // namespace paddle_bridge
}  // namespace opforge
