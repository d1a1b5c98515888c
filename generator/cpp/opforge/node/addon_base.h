// opforge Node binding base: turns JS tensors into RawTensors, runs an op core's CPU path
// and returns new JS tensors. The generated addon.cpp holds only the per-op attribute parsing.
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "opforge/core.h"

namespace opforge {
namespace node {

inline bool dtypeFromName(const std::string& s, DType* out) {
  static const char* const kNames[] = {"float32", "float16", "bfloat16", "float64", "int8", "uint8", "int32", "int64", "bool"};
  for (int i = 0; i < 9; ++i) {
    if (s == kNames[i]) { *out = static_cast<DType>(i); return true; }
  }
  return false;
}

/** The functions of one op core the binding needs. */
template <class Attrs, class State>
struct OpCore {
  const char* name;
  int numInputs;
  int numOutputs;
  const char* const* inputNames;
  Status (*validate)(const Attrs&);
  Status (*checkShapes)(const Attrs&, const Shape*, const bool*);
  Status (*inferTypes)(const DType*, const bool*, DType*, int*);
  Status (*inferShapes)(const Attrs&, const Shape*, Shape*);
  Status (*workspaceSize)(const Attrs&, const Shape*, size_t*);
  Status (*runCpu)(const Attrs&, const State&, const RawTensor*, const RawTensor*, const CpuContext&);
  /** null when the op has no state. */
  Status (*configure)(const Attrs&, const Shape*, State*);
};

/** Schema limit on inputs and outputs: lets the per-call arrays live on the stack. */
constexpr int kMaxTensors = 32;

/** Reads {dtype, dims, data} (data a TypedArray of the dtype's width); undefined for an absent input. */
inline bool readTensor(Napi::Env env, Napi::Value v, const char* op, const char* input, RawTensor* t) {
  // Built only when there is an error to report: the success path stays allocation-free.
  auto what = [op, input] { return std::string(op) + ": input " + input; };
  if (v.IsUndefined() || v.IsNull()) { t->present = false; t->data = nullptr; return true; }
  if (!v.IsObject()) { Napi::TypeError::New(env, what() + " must be a tensor").ThrowAsJavaScriptException(); return false; }
  Napi::Object o = v.As<Napi::Object>();
  if (!dtypeFromName(o.Get("dtype").ToString().Utf8Value(), &t->dtype)) {
    Napi::TypeError::New(env, what() + " has an unknown dtype").ThrowAsJavaScriptException();
    return false;
  }
  Napi::Value dims = o.Get("dims");
  if (!dims.IsArray()) { Napi::TypeError::New(env, what() + ".dims must be an array").ThrowAsJavaScriptException(); return false; }
  Napi::Array d = dims.As<Napi::Array>();
  if (d.Length() > static_cast<uint32_t>(kMaxRank)) { Napi::RangeError::New(env, what() + " has more than 8 dims").ThrowAsJavaScriptException(); return false; }
  t->shape.rank = static_cast<int32_t>(d.Length());
  for (uint32_t i = 0; i < d.Length(); ++i) {
    const double x = d.Get(i).ToNumber().DoubleValue();
    if (!(x >= 0) || x > 9.007199254740991e15 || x != static_cast<double>(static_cast<int64_t>(x))) {
      Napi::RangeError::New(env, what() + ".dims must be non-negative integers").ThrowAsJavaScriptException();
      return false;
    }
    t->shape.dims[i] = static_cast<int64_t>(x);
  }
  Napi::Value data = o.Get("data");
  if (!data.IsTypedArray()) { Napi::TypeError::New(env, what() + ".data must be a TypedArray").ThrowAsJavaScriptException(); return false; }
  Napi::TypedArray ta = data.As<Napi::TypedArray>();
  if (ta.ElementSize() != dtypeSize(t->dtype)) {
    Napi::TypeError::New(env, what() + ".data has " + std::to_string(ta.ElementSize()) + "-byte elements, " + dtypeName(t->dtype) + " needs " + std::to_string(dtypeSize(t->dtype))).ThrowAsJavaScriptException();
    return false;
  }
  if (static_cast<int64_t>(ta.ElementLength()) != t->shape.numel()) {
    Napi::RangeError::New(env, what() + ".data has " + std::to_string(ta.ElementLength()) + " elements, dims " + t->shape.str() + " need " + std::to_string(t->shape.numel())).ThrowAsJavaScriptException();
    return false;
  }
  t->data = static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
  t->present = true;
  return true;
}

inline Napi::Value newTypedArray(Napi::Env env, DType t, size_t n) {
  switch (t) {
    case DType::kFloat32: return Napi::Float32Array::New(env, n);
    case DType::kFloat64: return Napi::Float64Array::New(env, n);
    case DType::kFloat16: case DType::kBFloat16: return Napi::Uint16Array::New(env, n);
    case DType::kInt8: return Napi::Int8Array::New(env, n);
    case DType::kUInt8: case DType::kBool: return Napi::Uint8Array::New(env, n);
    case DType::kInt32: return Napi::Int32Array::New(env, n);
    case DType::kInt64: return Napi::BigInt64Array::New(env, n);
  }
  return env.Undefined();
}

/** run(inputs: (Tensor | undefined)[]) with attrs already parsed: validates, checks, infers, runs the CPU kernel. */
template <class Attrs, class State>
Napi::Value run(const Napi::CallbackInfo& info, const OpCore<Attrs, State>& op, const Attrs& attrs) {
  Napi::Env env = info.Env();
  Status s = op.validate(attrs);
  if (!s.ok()) { Napi::RangeError::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  if (!info[0].IsArray()) { Napi::TypeError::New(env, std::string(op.name) + ": inputs must be an array").ThrowAsJavaScriptException(); return env.Undefined(); }
  Napi::Array arr = info[0].As<Napi::Array>();
  RawTensor in[kMaxTensors];
  Shape shapes[kMaxTensors];
  DType dtypes[kMaxTensors] = {};
  bool present[kMaxTensors] = {};
  for (int i = 0; i < op.numInputs; ++i) {
    if (!readTensor(env, arr.Get(i), op.name, op.inputNames[i], &in[i])) return env.Undefined();
    shapes[i] = in[i].shape;
    dtypes[i] = in[i].dtype;
    present[i] = in[i].present;
  }
  DType outT[kMaxTensors] = {};
  int binding = -1;
  s = op.inferTypes(dtypes, present, outT, &binding);
  if (!s.ok()) { Napi::TypeError::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  s = op.checkShapes(attrs, shapes, present);
  if (!s.ok()) { Napi::RangeError::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  Shape outShapes[kMaxTensors];
  s = op.inferShapes(attrs, shapes, outShapes);
  if (!s.ok()) { Napi::RangeError::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  Napi::Array result = Napi::Array::New(env, op.numOutputs);
  RawTensor out[kMaxTensors];
  for (int o = 0; o < op.numOutputs; ++o) {
    Napi::Value data = newTypedArray(env, outT[o], static_cast<size_t>(outShapes[o].numel()));
    Napi::TypedArray ta = data.As<Napi::TypedArray>();
    out[o] = RawTensor{outT[o], static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset(), outShapes[o], true};
    Napi::Object t = Napi::Object::New(env);
    t.Set("dtype", dtypeName(outT[o]));
    Napi::Array dims = Napi::Array::New(env, outShapes[o].rank);
    for (int d = 0; d < outShapes[o].rank; ++d) dims.Set(d, static_cast<double>(outShapes[o].dims[d]));
    t.Set("dims", dims);
    t.Set("data", data);
    result.Set(o, t);
  }
  size_t wsBytes = 0;
  s = op.workspaceSize(attrs, shapes, &wsBytes);
  if (!s.ok()) { Napi::RangeError::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  std::vector<uint8_t> ws(wsBytes);
  CpuContext ctx;
  ctx.workspace = ws.empty() ? nullptr : ws.data();
  ctx.workspaceSize = wsBytes;
  State state;
  if (op.configure != nullptr) {
    s = op.configure(attrs, shapes, &state);
    if (!s.ok()) { Napi::Error::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  }
  s = op.runCpu(attrs, state, in, out, ctx);
  if (!s.ok()) { Napi::Error::New(env, s.message()).ThrowAsJavaScriptException(); return env.Undefined(); }
  return result;
}

}  // namespace node
}  // namespace opforge
