// opforge Node binding base: turns JS tensors into RawTensors, runs an op core's CPU path (or,
// for device-resident tensors, its CUDA path on the binding's stream), synchronously or on a
// worker thread, and returns new JS tensors. The generated op units hold only attribute parsing.
#pragma once

#include <napi.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "opforge/core.h"
#include "opforge/op_core.h"

#ifdef OPFORGE_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace opforge {
namespace node {

inline bool dtypeFromName(const std::string& s, DType* out) {
  static const char* const kNames[] = {"float32", "float16", "bfloat16", "float64", "int8", "uint8", "int32", "int64", "bool"};
  for (int i = 0; i < 9; ++i) {
    if (s == kNames[i]) { *out = static_cast<DType>(i); return true; }
  }
  return false;
}

/**
 * Throws a JS error unless one is already pending (a failed N-API call on a hostile argument leaves
 * one): throwing a second would abort the process. The pending exception is the one JS sees.
 */
template <class E>
void raise(Napi::Env env, const std::string& message) {
  if (env.IsExceptionPending()) return;
  E::New(env, message).ThrowAsJavaScriptException();
}


/** Schema limit on inputs and outputs (and a variadic input's members): per-call arrays live on the stack. */
constexpr int kMaxTensors = 32 + kMaxMembers;

// ---- device memory ---------------------------------------------------------------------
// A device tensor is { dtype, dims, device: 'cuda', handle } whose handle owns a DeviceBuffer;
// the memory is freed by free() or when the handle is garbage-collected.

struct DeviceBuffer {
  void* ptr = nullptr;
  size_t bytes = 0;
  void release() {
#ifdef OPFORGE_WITH_CUDA
    if (ptr != nullptr) cudaFree(ptr);
#endif
    ptr = nullptr;
  }
  ~DeviceBuffer() { release(); }
};

#ifdef OPFORGE_WITH_CUDA
/** The binding's stream: every op and copy runs on it, so chains need no synchronization. */
inline cudaStream_t stream() {
  static cudaStream_t s = [] {
    cudaStream_t created = nullptr;
    if (cudaStreamCreateWithFlags(&created, cudaStreamNonBlocking) != cudaSuccess) created = nullptr;
    return created;
  }();
  return s;
}

inline Status cudaStatus(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return Status::Ok();
  return Status::Error(std::string(what) + ": " + cudaGetErrorString(e));
}
#endif

/** Whether this addon was compiled with the CUDA kernels (opforge build --cuda). */
#ifdef OPFORGE_WITH_CUDA
constexpr bool kBuiltWithCuda = true;
#else
constexpr bool kBuiltWithCuda = false;
#endif

/** Whether CUDA kernels can run: built with CUDA and a device is present now. */
inline bool cudaAvailable() {
#ifdef OPFORGE_WITH_CUDA
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
#else
  return false;
#endif
}

inline Napi::Value newDeviceTensor(Napi::Env env, DType dtype, const Shape& shape, std::unique_ptr<DeviceBuffer> buf) {
  Napi::Object t = Napi::Object::New(env);
  t.Set("dtype", dtypeName(dtype));
  Napi::Array dims = Napi::Array::New(env, shape.rank);
  for (int d = 0; d < shape.rank; ++d) dims.Set(d, static_cast<double>(shape.dims[d]));
  t.Set("dims", dims);
  t.Set("device", "cuda");
  t.Set("handle", Napi::External<DeviceBuffer>::New(env, buf.release(), [](Napi::Env, DeviceBuffer* b) { delete b; }));
  return t;
}

inline Status deviceAlloc(size_t bytes, std::unique_ptr<DeviceBuffer>* out) {
  auto buf = std::make_unique<DeviceBuffer>();
  buf->bytes = bytes;
#ifdef OPFORGE_WITH_CUDA
  if (bytes > 0) {
    const cudaError_t e = cudaMalloc(&buf->ptr, bytes);
    // A failed allocation also sets CUDA's last error; clear it, or the next launch check reports it.
    if (e != cudaSuccess) { cudaGetLastError(); buf->ptr = nullptr; return cudaStatus(e, "cudaMalloc"); }
  }
#else
  return Status::Error("this addon was built without CUDA (opforge build --cuda)");
#endif
  *out = std::move(buf);
  return Status::Ok();
}

/** Reads {dtype, dims, data} (data a TypedArray of the dtype's width); undefined for an absent input. */
inline bool readTensor(Napi::Env env, Napi::Value v, const char* op, const char* input, RawTensor* t, bool* onDevice) {
  // Built only when there is an error to report: the success path stays allocation-free.
  auto what = [op, input] { return std::string(op) + ": input " + input; };
  if (v.IsUndefined() || v.IsNull()) { t->present = false; t->data = nullptr; return true; }
  if (!v.IsObject()) { raise<Napi::TypeError>(env, what() + " must be a tensor"); return false; }
  Napi::Object o = v.As<Napi::Object>();
  *onDevice = o.Get("handle").IsExternal();
  if (env.IsExceptionPending()) return false;
  if (!dtypeFromName(o.Get("dtype").ToString().Utf8Value(), &t->dtype)) {
    raise<Napi::TypeError>(env, what() + " has an unknown dtype");
    return false;
  }
  Napi::Value dims = o.Get("dims");
  if (!dims.IsArray()) { raise<Napi::TypeError>(env, what() + ".dims must be an array"); return false; }
  Napi::Array d = dims.As<Napi::Array>();
  if (d.Length() > static_cast<uint32_t>(kMaxRank)) { raise<Napi::RangeError>(env, what() + " has more than 8 dims"); return false; }
  t->shape.rank = static_cast<int32_t>(d.Length());
  for (uint32_t i = 0; i < d.Length(); ++i) {
    const double x = d.Get(i).ToNumber().DoubleValue();
    if (!(x >= 0) || x > 9.007199254740991e15 || x != static_cast<double>(static_cast<int64_t>(x))) {
      raise<Napi::RangeError>(env, what() + ".dims must be non-negative integers");
      return false;
    }
    t->shape.dims[i] = static_cast<int64_t>(x);
  }
  if (*onDevice) {
    DeviceBuffer* b = o.Get("handle").As<Napi::External<DeviceBuffer>>().Data();
    if (b == nullptr || (b->ptr == nullptr && t->shape.numel() > 0)) { raise<Napi::Error>(env, what() + " was freed"); return false; }
    // At least the dims' bytes: an output whose dims the kernel decided is the leading part of its bound-sized buffer.
    if (b->bytes < static_cast<size_t>(t->shape.numel()) * dtypeSize(t->dtype)) {
      raise<Napi::RangeError>(env, what() + ": device buffer has " + std::to_string(b->bytes) + " bytes, dims " + t->shape.str() + " need " + std::to_string(static_cast<size_t>(t->shape.numel()) * dtypeSize(t->dtype)));
      return false;
    }
    t->data = b->ptr;
    t->present = true;
    return true;
  }
  Napi::Value data = o.Get("data");
  if (!data.IsTypedArray()) { raise<Napi::TypeError>(env, what() + ".data must be a TypedArray"); return false; }
  Napi::TypedArray ta = data.As<Napi::TypedArray>();
  if (ta.ElementSize() != dtypeSize(t->dtype)) {
    raise<Napi::TypeError>(env, what() + ".data has " + std::to_string(ta.ElementSize()) + "-byte elements, " + dtypeName(t->dtype) + " needs " + std::to_string(dtypeSize(t->dtype)));
    return false;
  }
  if (static_cast<int64_t>(ta.ElementLength()) != t->shape.numel()) {
    raise<Napi::RangeError>(env, what() + ".data has " + std::to_string(ta.ElementLength()) + " elements, dims " + t->shape.str() + " need " + std::to_string(t->shape.numel()));
    return false;
  }
  t->data = static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
  t->present = true;
  return true;
}

/** Whether the addon can run Core's CUDA kernel: built with CUDA and the spec names one. */
template <class Core>
constexpr bool hasCuda() {
#ifdef OPFORGE_WITH_CUDA
  return Core::kHasCuda;
#else
  return false;
#endif
}

// ---- the call ABI of index.js ------------------------------------------------------------
// A call passes only the tensors' data (a TypedArray, or a device tensor's handle) and the
// list/string attributes as arguments. Everything scalar travels through a scratch Float64Array
// shared with index.js: each input's dtype code, rank and dims, each scalar attribute, and on
// return each output's dtype code, rank and dims. Each N-API property read or object built costs
// about 0.1 us, which for small tensors would be most of a call (docs/benchmarks.md).
namespace abi {
constexpr int kTensorSlots = 2 + kMaxRank;  // dtype code, rank, dims
constexpr int kInputBase = 0;
constexpr int kOutputBase = kMaxTensors * kTensorSlots;
constexpr int kAttrBase = 2 * kMaxTensors * kTensorSlots;
constexpr int kMaxScalarAttrs = 64;  // the schema's limit on attributes
// Set to 1 when a small output did not fit in the pool: index.js then hands over a new one. The
// addon never calls into JS during a call, so nothing can change its inputs or outputs midway.
constexpr int kPoolExhausted = kAttrBase + kMaxScalarAttrs;
constexpr size_t kScratchDoubles = kPoolExhausted + 1;
// Small host outputs are views into a shared pool buffer, as Node's Buffer.allocUnsafe pools
// buffers under 4 KiB: allocating a fresh ArrayBuffer costs more than a 1k-element kernel.
// A pool is never reused, so outputs start zeroed and stay independent of later calls.
constexpr size_t kPooledBelow = 4096;
}  // namespace abi

/** Per-environment (main thread, each worker) state of the addon. */
struct EnvState {
  Napi::Reference<Napi::ArrayBuffer> scratch;
  Napi::Reference<Napi::ArrayBuffer> pool;  // from index.js (set_pool); none: every output gets its own buffer
  size_t poolUsed = 0;
};

/** The scratch slots, looked up per call so a detached or replaced buffer is an error, not a crash. */
inline double* scratch(Napi::Env env) {
  EnvState* st = env.GetInstanceData<EnvState>();
  if (st == nullptr || st->scratch.IsEmpty()) return nullptr;
  Napi::ArrayBuffer ab = st->scratch.Value();
  if (ab.ByteLength() < abi::kScratchDoubles * sizeof(double)) return nullptr;
  return static_cast<double*>(ab.Data());
}

/** A scratch number as an int64 the way napi_get_value_int64 converts: non-finite is 0, the rest saturates. */
inline int64_t toInt64(double x) {
  if (!(x == x) || x == HUGE_VAL || x == -HUGE_VAL) return 0;
  if (x >= 9.2233720368547758e18) return INT64_MAX;
  if (x <= -9.2233720368547758e18) return INT64_MIN;
  return static_cast<int64_t>(x);
}

/** A host output buffer of `bytes`: a slice of the pool when small and it has room; else its own. */
inline Napi::ArrayBuffer outputBuffer(Napi::Env env, double* slots, size_t bytes, size_t* offset) {
  EnvState* st = env.GetInstanceData<EnvState>();
  *offset = 0;
  if (st == nullptr || st->pool.IsEmpty() || bytes >= abi::kPooledBelow) return Napi::ArrayBuffer::New(env, bytes);
  const size_t need = (bytes + 7) & ~size_t(7);  // keeps every view 8-byte aligned
  Napi::ArrayBuffer pool = st->pool.Value();
  // A detached pool reads as 0 bytes, like a full one.
  if (st->poolUsed + need > pool.ByteLength()) {
    slots[abi::kPoolExhausted] = 1;
    return Napi::ArrayBuffer::New(env, bytes);
  }
  *offset = st->poolUsed;
  st->poolUsed += need;
  return pool;
}

inline Napi::Value newTypedArray(Napi::Env env, DType t, Napi::ArrayBuffer buf, size_t offset, size_t n) {
  napi_typedarray_type type = napi_uint8_array;
  switch (t) {
    case DType::kFloat32: type = napi_float32_array; break;
    case DType::kFloat64: type = napi_float64_array; break;
    case DType::kFloat16: case DType::kBFloat16: type = napi_uint16_array; break;
    case DType::kInt8: type = napi_int8_array; break;
    case DType::kUInt8: case DType::kBool: type = napi_uint8_array; break;
    case DType::kInt32: type = napi_int32_array; break;
    case DType::kInt64: type = napi_bigint64_array; break;
  }
  napi_value out = nullptr;
  if (napi_create_typedarray(env, type, n, buf, offset, &out) != napi_ok) return env.Undefined();
  return Napi::Value(env, out);
}

inline Napi::Value newTypedArray(Napi::Env env, DType t, size_t n) {
  return newTypedArray(env, t, Napi::ArrayBuffer::New(env, n * dtypeSize(t)), 0, n);
}

/** The TypedArray type that holds `t` (16-bit floats as raw bits; bool as bytes). */
inline bool holds(napi_typedarray_type type, DType t) {
  switch (t) {
    case DType::kFloat32: return type == napi_float32_array;
    case DType::kFloat64: return type == napi_float64_array;
    case DType::kFloat16: case DType::kBFloat16: return type == napi_uint16_array;
    case DType::kInt8: return type == napi_int8_array;
    case DType::kUInt8: case DType::kBool: return type == napi_uint8_array || type == napi_uint8_clamped_array;
    case DType::kInt32: return type == napi_int32_array;
    case DType::kInt64: return type == napi_bigint64_array;
  }
  return false;
}

/** Input `i` of a call: dtype and dims from the scratch slots, data from the argument. */
inline bool readInput(Napi::Env env, const double* slots, napi_value arg, const char* op, const char* input, RawTensor* t, bool* onDevice) {
  // Built only when there is an error to report: the success path stays allocation-free.
  auto what = [op, input] { return std::string(op) + ": input " + input; };
  napi_valuetype kind = napi_undefined;
  napi_typeof(env, arg, &kind);
  if (kind == napi_undefined || kind == napi_null) { t->present = false; t->data = nullptr; return true; }
  const double code = slots[0], rank = slots[1];
  if (!(code >= 0 && code <= static_cast<double>(DType::kBool)) || code != static_cast<int>(code)) {
    raise<Napi::TypeError>(env, what() + " has an unknown dtype");
    return false;
  }
  t->dtype = static_cast<DType>(static_cast<int>(code));
  if (!(rank >= 0 && rank <= kMaxRank) || rank != static_cast<int>(rank)) { raise<Napi::RangeError>(env, what() + " has more than 8 dims"); return false; }
  t->shape.rank = static_cast<int32_t>(rank);
  for (int i = 0; i < t->shape.rank; ++i) {
    const double x = slots[2 + i];
    if (!(x >= 0) || x > 9.007199254740991e15 || x != static_cast<double>(static_cast<int64_t>(x))) {
      raise<Napi::RangeError>(env, what() + ".dims must be non-negative integers");
      return false;
    }
    t->shape.dims[i] = static_cast<int64_t>(x);
  }
  const size_t bytes = static_cast<size_t>(t->shape.numel()) * dtypeSize(t->dtype);
  *onDevice = kind == napi_external;
  if (*onDevice) {
    void* p = nullptr;
    napi_get_value_external(env, arg, &p);
    // Every external this addon hands out is a DeviceBuffer (index.js passes only handles here).
    DeviceBuffer* b = static_cast<DeviceBuffer*>(p);
    if (b == nullptr || (b->ptr == nullptr && t->shape.numel() > 0)) { raise<Napi::Error>(env, what() + " was freed"); return false; }
    // At least the dims' bytes: an output whose dims the kernel decided is the leading part of its bound-sized buffer.
    if (b->bytes < bytes) {
      raise<Napi::RangeError>(env, what() + ": device buffer has " + std::to_string(b->bytes) + " bytes, dims " + t->shape.str() + " need " + std::to_string(bytes));
      return false;
    }
    t->data = b->ptr;
    t->present = true;
    return true;
  }
  napi_typedarray_type type;
  size_t length = 0, offset = 0;
  void* data = nullptr;
  napi_value buffer;
  bool isTyped = false;
  napi_is_typedarray(env, arg, &isTyped);
  if (!isTyped || napi_get_typedarray_info(env, arg, &type, &length, &data, &buffer, &offset) != napi_ok) {
    raise<Napi::TypeError>(env, what() + ".data must be a TypedArray");
    return false;
  }
  if (!holds(type, t->dtype)) { raise<Napi::TypeError>(env, what() + ": " + dtypeName(t->dtype) + " data must be in its own TypedArray type"); return false; }
  if (static_cast<int64_t>(length) != t->shape.numel()) {
    raise<Napi::RangeError>(env, what() + ".data has " + std::to_string(length) + " elements, dims " + t->shape.str() + " need " + std::to_string(t->shape.numel()));
    return false;
  }
  t->data = data;  // napi_get_typedarray_info already adds the view's byte offset
  t->present = true;
  return true;
}

/** One call of op core `Core` (the op header's `Core` type), prepared on the JS thread. */
template <class Core>
struct Call {
  static constexpr int kIn = Core::kMaxInputs, kOut = Core::kNumOutputs;
  typename Core::Attrs attrs;
  typename Core::State state;
  bool device = false;
  RawTensor in[kIn];
  int numIn = Core::kNumInputs;  // the inputs, then a variadic input's members
  /** The outputs, then one slot per data dim (op_core.h: the kernel sets it). */
  RawTensor out[kOut + Core::kNumDataDims];
  size_t workspaceBytes = 0;
  /** Data dims: where a CPU kernel sets them; a CUDA kernel's are in `dataDimsDevice`. */
  int64_t dataDims[Core::kNumDataDims > 0 ? Core::kNumDataDims : 1] = {};
  std::shared_ptr<DeviceBuffer> dataDimsDevice;
  /** The Float64Array the values go to, for index.js (the last element of the result). */
  double* dataDimsOut = nullptr;
};

/**
 * After a run: each data dim the kernel set, read back (from the device: synchronized), checked
 * against its bound, into the result's Float64Array, from which index.js gives the outputs their
 * actual dims.
 */
template <class Core>
Status readDataDims(Call<Core>& c) {
  if constexpr (Core::kNumDataDims > 0) {
#ifdef OPFORGE_WITH_CUDA
    if (c.device) {
      OPFORGE_RETURN_IF_ERROR(cudaStatus(cudaMemcpyAsync(c.dataDims, c.dataDimsDevice->ptr, sizeof(c.dataDims), cudaMemcpyDeviceToHost, stream()), "data dims"));
      OPFORGE_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream()), (std::string(Core::kName) + ": kernel").c_str()));
    }
#endif
    for (int d = 0; d < Core::kNumDataDims; ++d) {
      OPFORGE_RETURN_IF_ERROR(checkDataDim<Core>(d, c.dataDims[d], dataDim<Core>(c.out, d).bound));
      c.dataDimsOut[d] = static_cast<double>(c.dataDims[d]);
    }
  }
  (void)c;
  return Status::Ok();
}

/**
 * The JS value of tensor `t` of a call: argument t, or for a variadic input's members element
 * t - P of the array argument P (its members; index.js checked that it is one).
 */
template <class Core>
napi_value tensorArg(const Napi::CallbackInfo& info, int t) {
  constexpr int p = Core::kNumInputs - 1;
  if (!Core::kVariadic || t < p) return info[t];
  return info[p].As<Napi::Array>().Get(static_cast<uint32_t>(t - p));
}

/** How many tensors a call passes: kNumInputs, or the fixed inputs and the members of the array argument. */
template <class Core>
bool tensorCount(const Napi::CallbackInfo& info, int* numIn) {
  *numIn = Core::kNumInputs;
  if constexpr (Core::kVariadic) {
    constexpr int p = Core::kNumInputs - 1;
    if (!info[p].IsArray()) {
      raise<Napi::TypeError>(info.Env(), std::string(Core::kName) + ": input " + Core::kInputNames[p] + " is variadic: pass an array of tensors");
      return false;
    }
    *numIn = p + static_cast<int>(info[p].As<Napi::Array>().Length());
  }
  Status s = Core::checkCount(*numIn);
  if (!s.ok()) { raise<Napi::RangeError>(info.Env(), s.message()); return false; }
  return true;
}

/** Writes an output's dtype code, rank and dims into its scratch slots. */
inline void writeOutput(double* slots, DType t, const Shape& s) {
  slots[0] = static_cast<double>(static_cast<int>(t));
  slots[1] = s.rank;
  for (int d = 0; d < s.rank; ++d) slots[2 + d] = static_cast<double>(s.dims[d]);
}

/**
 * Reads and checks the inputs (arguments 0..kNumInputs-1 and their scratch slots), infers and
 * allocates the outputs; *result is the one output's data or handle, or an array of them.
 * False when a JS error was thrown.
 */
template <class Core>
bool prepare(const Napi::CallbackInfo& info, double* slots, const typename Core::Attrs& attrs, Call<Core>* c, Napi::Value* result) {
  Napi::Env env = info.Env();
  c->attrs = attrs;
  Status s = Core::validate(attrs);
  if (!s.ok()) { raise<Napi::RangeError>(env, s.message()); return false; }
  Shape shapes[Call<Core>::kIn];
  DType dtypes[Call<Core>::kIn] = {};
  bool present[Call<Core>::kIn] = {};
  int host = 0, dev = 0;
  if (!tensorCount<Core>(info, &c->numIn)) return false;
  const int numIn = c->numIn;
  for (int i = 0; i < numIn; ++i) {
    bool onDevice = false;
    if (!readInput(env, slots + abi::kInputBase + i * abi::kTensorSlots, tensorArg<Core>(info, i), Core::kName, Core::kInputNames[Core::portOf(i)], &c->in[i], &onDevice)) return false;
    shapes[i] = c->in[i].shape;
    dtypes[i] = c->in[i].dtype;
    present[i] = c->in[i].present;
    if (present[i]) (onDevice ? dev : host) += 1;
  }
  if (host > 0 && dev > 0) {
    raise<Napi::TypeError>(env, std::string(Core::kName) + ": inputs mix host and device tensors; copy with toDevice() or toHost() first");
    return false;
  }
  c->device = dev > 0;
  if (c->device && !hasCuda<Core>()) {
    raise<Napi::TypeError>(env, std::string(Core::kName) + (cudaAvailable() ? ": the spec names no CUDA kernel; run it on host tensors" : ": this addon was built without CUDA"));
    return false;
  }
  DType outT[Call<Core>::kOut] = {};
  int binding = -1;
  s = Core::inferTypes(attrs, dtypes, present, numIn, outT, &binding);
  if (!s.ok()) { raise<Napi::TypeError>(env, s.message()); return false; }
  s = Core::checkShapes(attrs, shapes, present, numIn);
  if (!s.ok()) { raise<Napi::RangeError>(env, s.message()); return false; }
  Shape outShapes[Call<Core>::kOut];
  s = Core::inferShapes(attrs, shapes, numIn, outShapes);
  if (!s.ok()) { raise<Napi::RangeError>(env, s.message()); return false; }
  s = Core::workspaceSize(attrs, shapes, dtypes, numIn, &c->workspaceBytes);
  if (!s.ok()) { raise<Napi::RangeError>(env, s.message()); return false; }
  if constexpr (Core::kHasConfigure) {
    s = Core::configure(attrs, shapes, &c->state);
    if (!s.ok()) { raise<Napi::Error>(env, s.message()); return false; }
  }
  bool wanted[Call<Core>::kOut] = {};
  int numWanted = 0;
  s = Core::outputsPresent(attrs, wanted, &numWanted);
  if (!s.ok()) { raise<Napi::RangeError>(env, s.message()); return false; }
  Napi::Value values[Call<Core>::kOut];
  std::vector<DeviceBuffer*> made;  // released at once if a later output does not fit
  for (int o = 0; o < Core::kNumOutputs; ++o) {
    if (!wanted[o]) {  // left out by the attributes (`present:`): rank -1 tells the JS side
      slots[abi::kOutputBase + o * abi::kTensorSlots + 1] = -1;
      c->out[o] = RawTensor{outT[o], nullptr, Shape{}, false};
      values[o] = env.Undefined();
      continue;
    }
    const size_t n = static_cast<size_t>(outShapes[o].numel());
    writeOutput(slots + abi::kOutputBase + o * abi::kTensorSlots, outT[o], outShapes[o]);
    if (c->device) {
      std::unique_ptr<DeviceBuffer> buf;
      s = deviceAlloc(n * dtypeSize(outT[o]), &buf);
      if (!s.ok()) {
        for (DeviceBuffer* b : made) b->release();
        raise<Napi::Error>(env, std::string(Core::kName) + ": " + s.message());
        return false;
      }
      made.push_back(buf.get());
      c->out[o] = RawTensor{outT[o], buf->ptr, outShapes[o], true};
      values[o] = Napi::External<DeviceBuffer>::New(env, buf.release(), [](Napi::Env, DeviceBuffer* b) { delete b; });
      continue;
    }
    size_t offset = 0;
    Napi::ArrayBuffer buf = outputBuffer(env, slots, n * dtypeSize(outT[o]), &offset);
    if (env.IsExceptionPending()) return false;
    values[o] = newTypedArray(env, outT[o], buf, offset, n);
    if (values[o].IsUndefined()) { raise<Napi::Error>(env, std::string(Core::kName) + ": could not allocate an output"); return false; }
    c->out[o] = RawTensor{outT[o], static_cast<uint8_t*>(buf.Data()) + offset, outShapes[o], true};
  }
  if constexpr (Core::kNumDataDims > 0) {
    // The slots the kernel sets (-1 until it does), and the values for index.js after the run.
    for (int d = 0; d < Core::kNumDataDims; ++d) c->dataDims[d] = -1;
    void* where = c->dataDims;
    if (c->device) {
      std::unique_ptr<DeviceBuffer> buf;
      s = deviceAlloc(sizeof(c->dataDims), &buf);
#ifdef OPFORGE_WITH_CUDA
      if (s.ok()) s = cudaStatus(cudaMemcpyAsync(buf->ptr, c->dataDims, sizeof(c->dataDims), cudaMemcpyHostToDevice, stream()), "data dims");
#endif
      if (!s.ok()) { raise<Napi::Error>(env, std::string(Core::kName) + ": " + s.message()); return false; }
      where = buf->ptr;
      c->dataDimsDevice = std::move(buf);
    }
    for (int d = 0; d < Core::kNumDataDims; ++d)
      c->out[Core::kNumOutputs + d] = RawTensor{DType::kInt64, static_cast<int64_t*>(where) + d, Shape{}, true};
    Napi::Float64Array sizes = Napi::Float64Array::New(env, Core::kNumDataDims);
    c->dataDimsOut = sizes.Data();
    // Always an array: the outputs, then the data dims' values.
    Napi::Array arr = Napi::Array::New(env, Core::kNumOutputs + 1);
    for (int o = 0; o < Core::kNumOutputs; ++o) arr.Set(o, values[o]);
    arr.Set(Core::kNumOutputs, sizes);
    *result = arr;
  } else if constexpr (Core::kNumOutputs == 1) {
    *result = values[0];
  } else {
    Napi::Array arr = Napi::Array::New(env, Core::kNumOutputs);
    for (int o = 0; o < Core::kNumOutputs; ++o) arr.Set(o, values[o]);
    *result = arr;
  }
  return true;
}

/**
 * Runs a prepared call; touches no JS value, so it may run on a worker thread. CUDA work is
 * queued on the binding's stream; `wait` synchronizes so kernel faults surface here.
 */
template <class Core>
Status execute(Call<Core>& c, bool wait) {
  if (!c.device) {
    std::vector<uint8_t> ws(c.workspaceBytes);
    CpuContext ctx;
    ctx.workspace = ws.empty() ? nullptr : ws.data();
    ctx.workspaceSize = c.workspaceBytes;
    OPFORGE_RETURN_IF_ERROR(Core::runCpu(c.attrs, c.state, c.in, c.numIn, c.out, ctx));
    return readDataDims(c);
  }
#ifdef OPFORGE_WITH_CUDA
  if constexpr (Core::kHasCuda) {
    cudaGetLastError();  // a stale error from an earlier call must not be blamed on this launch
    CudaContext ctx;
    ctx.stream = stream();
    ctx.workspaceSize = c.workspaceBytes;
    const std::string name(Core::kName);
    if (c.workspaceBytes > 0) OPFORGE_RETURN_IF_ERROR(cudaStatus(cudaMallocAsync(&ctx.workspace, c.workspaceBytes, stream()), (name + ": workspace").c_str()));
    Status s = Core::runCuda(c.attrs, c.state, c.in, c.numIn, c.out, ctx);
    if (s.ok()) s = cudaStatus(cudaGetLastError(), (name + ": kernel launch").c_str());
    if (ctx.workspace != nullptr) cudaFreeAsync(ctx.workspace, stream());  // stream-ordered: after the kernel
    if (s.ok() && wait) s = cudaStatus(cudaStreamSynchronize(stream()), (name + ": kernel").c_str());
    if (s.ok()) s = readDataDims(c);  // (synchronizes where the op has data dims)
    return s;
  }
#endif
  (void)wait;
  return Status::Error(std::string(Core::kName) + ": no CUDA kernel in this addon");
}

/** run(...inputs, ...listAttrs): host tensors run the CPU kernel, device tensors the CUDA kernel (not awaited). */
template <class Core>
Napi::Value run(const Napi::CallbackInfo& info, double* slots, const typename Core::Attrs& attrs) {
  Napi::Env env = info.Env();
  Call<Core> c;  // on the stack: the sync path allocates nothing but the outputs
  Napi::Value result;
  if (!prepare<Core>(info, slots, attrs, &c, &result)) return env.Undefined();
  Status s = execute(c, false);
  if (!s.ok()) { raise<Napi::Error>(env, s.message()); return env.Undefined(); }
  return result;
}

/** The worker of runAsync: the kernel runs off the JS thread; inputs and outputs stay referenced. */
template <class Core>
class RunWorker : public Napi::AsyncWorker {
 public:
  RunWorker(const Napi::CallbackInfo& info, std::unique_ptr<Call<Core>> call, Napi::Value result)
      : Napi::AsyncWorker(info.Env()), call_(std::move(call)), deferred_(Napi::Promise::Deferred::New(info.Env())),
        result_(Napi::Persistent(result)) {
    // The kernel reads the inputs' memory later: keep their TypedArrays or handles alive until then.
    for (int i = 0; i < call_->numIn; ++i) {
      if (call_->in[i].present) inputs_[i] = Napi::Persistent(Napi::Value(info.Env(), tensorArg<Core>(info, i)));
    }
  }
  Napi::Promise promise() const { return deferred_.Promise(); }
  void Execute() override {
    Status s = execute(*call_, true);
    if (!s.ok()) SetError(s.message());
  }
  void OnOK() override { deferred_.Resolve(result_.Value()); }
  void OnError(const Napi::Error& e) override { deferred_.Reject(e.Value()); }

 private:
  std::unique_ptr<Call<Core>> call_;
  Napi::Promise::Deferred deferred_;
  Napi::Reference<Napi::Value> inputs_[Call<Core>::kIn];
  Napi::Reference<Napi::Value> result_;
};

/** runAsync(...inputs, ...listAttrs): like run, resolved when the kernel has finished (CUDA: synchronized). */
template <class Core>
Napi::Value runAsync(const Napi::CallbackInfo& info, double* slots, const typename Core::Attrs& attrs) {
  Napi::Env env = info.Env();
  auto c = std::make_unique<Call<Core>>();
  Napi::Value result;
  if (!prepare<Core>(info, slots, attrs, c.get(), &result)) return env.Undefined();
  auto* w = new RunWorker<Core>(info, std::move(c), result);
  Napi::Promise p = w->promise();
  w->Queue();  // the worker deletes itself after OnOK/OnError
  return p;
}

/**
 * A string attribute (argument `arg`) into `out`; a TypeError naming the op and attribute when it is
 * not a string (index.js checks first: this guards a call that bypasses it).
 */
inline bool readStringAttr(const Napi::CallbackInfo& info, size_t arg, const char* op, const char* name, std::string* out) {
  if (!info[arg].IsString()) {
    raise<Napi::TypeError>(info.Env(), std::string(op) + ": attribute " + name + " must be a string");
    return false;
  }
  *out = info[arg].As<Napi::String>().Utf8Value();
  return true;
}

/** A list attribute (argument `arg`, a JS array of numbers) into `out`, as readStringAttr. */
template <class T>
bool readListAttr(const Napi::CallbackInfo& info, size_t arg, const char* op, const char* name, std::vector<T>* out) {
  if (!info[arg].IsArray()) {
    raise<Napi::TypeError>(info.Env(), std::string(op) + ": attribute " + name + " must be an array");
    return false;
  }
  Napi::Array v = info[arg].As<Napi::Array>();
  out->clear();
  for (uint32_t i = 0; i < v.Length(); ++i) {
    Napi::Number x = v.Get(i).ToNumber();
    out->push_back(std::is_same<T, float>::value ? static_cast<T>(x.FloatValue()) : static_cast<T>(x.Int64Value()));
  }
  return true;
}

/** What a generated op unit provides: the op core's Attrs from the scratch slots and the arguments. */
template <class Core>
using ReadAttrs = bool (*)(const Napi::CallbackInfo& info, const double* slots, typename Core::Attrs* attrs);

/** One op's JS entry point: its attributes read by `Read`, then run (Async: on a worker thread). */
template <class Core, ReadAttrs<Core> Read, bool Async>
Napi::Value entry(const Napi::CallbackInfo& info) {
  double* slots = scratch(info.Env());
  typename Core::Attrs attrs;
  if (slots == nullptr) {
    raise<Napi::Error>(info.Env(), std::string(Core::kName) + ": the addon's scratch buffer is gone");
    return info.Env().Undefined();
  }
  if (!Read(info, slots, &attrs)) return info.Env().Undefined();
  return Async ? runAsync<Core>(info, slots, attrs) : run<Core>(info, slots, attrs);
}

/** Exports an op as run_<snake> and run_<snake>_async (what index.js calls). */
template <class Core, ReadAttrs<Core> Read>
void exportOp(Napi::Env env, Napi::Object exports, const std::string& snake) {
  exports.Set("run_" + snake, Napi::Function::New(env, entry<Core, Read, false>));
  exports.Set("run_" + snake + "_async", Napi::Function::New(env, entry<Core, Read, true>));
}

}  // namespace node
}  // namespace opforge
