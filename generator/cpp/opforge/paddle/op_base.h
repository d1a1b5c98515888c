// opforge Paddle custom-op base: the KernelFn, InferShapeFn and InferDtypeFn bodies every
// generated PD_BUILD_OP shares. Converts paddle::Tensor / paddle::DataType to the op core's
// RawTensor / DType, runs the framework-free bridge (bridge.h) and throws Paddle's exception
// (PD_THROW) with the op core's message on any error. The per-op code only converts attributes.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "paddle/extension.h"

#include "opforge/core.h"
#include "opforge/paddle/bridge.h"
#include "opforge/paddle/dtype.h"

namespace opforge {
namespace paddle_bridge {

inline void throwIfError(const Status& s) {
  if (!s.ok()) PD_THROW(s.message());
}

/** KernelFn body: runs the op on its inputs' device (CPU kernel, or CUDA kernel on the tensors' stream). */
template <class Op>
std::vector<::paddle::Tensor> compute(const typename Op::Attrs& attrs, std::initializer_list<const ::paddle::Tensor*> inputs) {
  RawTensor in[kMaxTensors];
  const ::paddle::Tensor* first = nullptr;
  int i = 0;
  for (const ::paddle::Tensor* t : inputs) {
    RawTensor& r = in[i];
    const std::string what = std::string("input ") + Op::kInputNames[i];
    ++i;
    if (t == nullptr || !t->initialized()) {
      r.present = false;
      continue;
    }
    if (!fromPaddle(t->dtype(), &r.dtype)) PD_THROW(std::string(Op::kName) + ": " + what + " has a dtype opforge does not support");
    throwIfError(toShape(Op::kName, what.c_str(), t->shape(), &r.shape));
    r.data = const_cast<void*>(t->data());
    r.present = true;
    if (first == nullptr) {
      first = t;
    } else if (t->place() != first->place()) {
      PD_THROW(std::string(Op::kName) + ": " + what + " is on " + t->place().DebugString() + ", other inputs on " + first->place().DebugString());
    }
  }
  Plan<typename Op::State> p;
  throwIfError(plan<Op>(attrs, in, &p));
  const ::paddle::Place place = first != nullptr ? first->place() : ::paddle::Place(::paddle::CPUPlace());
  std::vector<::paddle::Tensor> outs;
  outs.reserve(static_cast<size_t>(Op::kNumOutputs));
  RawTensor out[kMaxTensors];
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    outs.push_back(::paddle::empty(toDims(p.outShapes[o]), toPaddle(p.outDtypes[o]), place));
    out[o].dtype = p.outDtypes[o];
    out[o].data = outs.back().data();
    out[o].shape = p.outShapes[o];
    out[o].present = true;
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
    PD_THROW(std::string(Op::kName) + ": inputs on " + place.DebugString() + "; opforge runs on CPU and (built with PADDLE_WITH_CUDA) GPU");
  }
  return outs;
}

/** InferShapeFn body (inputs: null for an absent optional input). */
template <class Op>
std::vector<std::vector<int64_t>> inferShape(const typename Op::Attrs& attrs, std::initializer_list<const std::vector<int64_t>*> inputs) {
  std::vector<std::vector<int64_t>> out;
  throwIfError(inferShapes<Op>(attrs, inputs.begin(), &out));
  return out;
}

/** InferDtypeFn body (inputs: null for an absent optional input). */
template <class Op>
std::vector<::paddle::DataType> inferDtype(std::initializer_list<const ::paddle::DataType*> inputs) {
  DType in[kMaxTensors] = {};
  bool present[kMaxTensors] = {};
  int i = 0;
  for (const ::paddle::DataType* t : inputs) {
    present[i] = t != nullptr;
    if (present[i] && !fromPaddle(*t, &in[i])) PD_THROW(std::string(Op::kName) + ": input " + Op::kInputNames[i] + " has a dtype opforge does not support");
    ++i;
  }
  std::vector<DType> out;
  throwIfError(inferDtypes<Op>(in, present, &out));
  std::vector<::paddle::DataType> result;
  result.reserve(out.size());
  for (DType t : out) result.push_back(toPaddle(t));
  return result;
}

}  // namespace paddle_bridge
}  // namespace opforge
