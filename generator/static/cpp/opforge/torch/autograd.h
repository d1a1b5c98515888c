// opforge PyTorch extension, training: what every op's Autograd kernel shares. The generated
// per-op torch::autograd::Function saves the inputs, outputs and attributes; its backward runs
// the spec's gradient ops through the dispatcher (so CPU, CUDA, fake tensors and torch.compile
// take them like any op). In C++, so a call that needs no gradient costs no Python. Gradients
// of outputs the loss does not use arrive as zeros (the Function's default materialize_grads).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/autograd/custom_function.h>

#include <string>
#include <vector>

namespace opforge {
namespace torch_ext {

/** A tensor argument of a boxed call: None for an absent optional input. */
inline c10::IValue tensorOrNone(const at::Tensor& t) {
  return t.defined() ? c10::IValue(t) : c10::IValue();
}

/** Runs gradient op `name` (opforge::<snake>) on a full argument stack; returns its outputs. */
inline std::vector<at::Tensor> callGradient(const char* name, torch::jit::Stack stack) {
  const auto op = c10::Dispatcher::singleton().findSchemaOrThrow(name, "");
  op.callBoxed(&stack);
  std::vector<at::Tensor> out;
  out.reserve(stack.size());
  for (const c10::IValue& v : stack) out.push_back(v.toTensor());
  return out;
}

}  // namespace torch_ext
}  // namespace opforge
