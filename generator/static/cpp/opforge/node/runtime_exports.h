// opforge Node binding, the addon's own exports beside the ops: the call ABI's description and
// scratch pool (index.js reads them), and the copies between host and device tensors. Included
// once, by the generated addon.cpp; the per-op units need only addon_base.h.
#pragma once

#include <napi.h>

#include <memory>
#include <utility>

#include "opforge/node/addon_base.h"

namespace opforge {
namespace node {

// ---- copies between host and device ------------------------------------------------------

/** toDevice(tensor): a device copy of a host tensor. */
inline Napi::Value toDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  RawTensor t;
  bool onDevice = false;
  if (!readTensor(env, info[0], "toDevice", "tensor", &t, &onDevice)) return env.Undefined();
  if (!t.present || onDevice) { raise<Napi::TypeError>(env, "toDevice: expects a host tensor { dtype, dims, data }"); return env.Undefined(); }
  if (!cudaAvailable()) { raise<Napi::Error>(env, "toDevice: no CUDA device (or the addon was built without CUDA)"); return env.Undefined(); }
  const size_t bytes = static_cast<size_t>(t.shape.numel()) * dtypeSize(t.dtype);
  std::unique_ptr<DeviceBuffer> buf;
  Status s = deviceAlloc(bytes, &buf);
#ifdef OPFORGE_WITH_CUDA
  if (s.ok() && bytes > 0) s = cudaStatus(cudaMemcpyAsync(buf->ptr, t.data, bytes, cudaMemcpyHostToDevice, stream()), "copy to device");
  // The source is a JS buffer the caller may change right away: finish the copy before returning.
  if (s.ok()) s = cudaStatus(cudaStreamSynchronize(stream()), "copy to device");
#endif
  if (!s.ok()) { raise<Napi::Error>(env, "toDevice: " + s.message()); return env.Undefined(); }
  return newDeviceTensor(env, t.dtype, t.shape, std::move(buf));
}

/** toHost(deviceTensor): waits for the stream and copies the data into a new host tensor. */
inline Napi::Value toHost(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  RawTensor t;
  bool onDevice = false;
  if (!readTensor(env, info[0], "toHost", "tensor", &t, &onDevice)) return env.Undefined();
  if (!t.present || !onDevice) { raise<Napi::TypeError>(env, "toHost: expects a device tensor from toDevice() or a CUDA op"); return env.Undefined(); }
  const size_t n = static_cast<size_t>(t.shape.numel());
  Napi::Value data = newTypedArray(env, t.dtype, n);
#ifdef OPFORGE_WITH_CUDA
  Napi::TypedArray ta = data.As<Napi::TypedArray>();
  void* dst = static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
  Status s = Status::Ok();
  if (n > 0) s = cudaStatus(cudaMemcpyAsync(dst, t.data, n * dtypeSize(t.dtype), cudaMemcpyDeviceToHost, stream()), "copy to host");
  if (s.ok()) s = cudaStatus(cudaStreamSynchronize(stream()), "copy to host (a kernel before it may have failed)");
  if (!s.ok()) { raise<Napi::Error>(env, "toHost: " + s.message()); return env.Undefined(); }
#endif
  Napi::Object o = Napi::Object::New(env);
  o.Set("dtype", dtypeName(t.dtype));
  Napi::Array dims = Napi::Array::New(env, t.shape.rank);
  for (int d = 0; d < t.shape.rank; ++d) dims.Set(d, static_cast<double>(t.shape.dims[d]));
  o.Set("dims", dims);
  o.Set("data", data);
  return o;
}

/** free(deviceTensor): releases the device memory now instead of at garbage collection. */
inline Napi::Value freeDevice(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (info[0].IsObject() && info[0].As<Napi::Object>().Get("handle").IsExternal()) {
    DeviceBuffer* b = info[0].As<Napi::Object>().Get("handle").As<Napi::External<DeviceBuffer>>().Data();
#ifdef OPFORGE_WITH_CUDA
    cudaStreamSynchronize(stream());  // a queued kernel may still use it
#endif
    if (b != nullptr) b->release();
    return env.Undefined();
  }
  raise<Napi::TypeError>(env, "free: expects a device tensor");
  return env.Undefined();
}

/** setPool(buffer): the next pool (index.js marks each untransferable, as Node marks its own). */
inline Napi::Value setPool(const Napi::CallbackInfo& info) {
  EnvState* st = info.Env().GetInstanceData<EnvState>();
  if (!info[0].IsArrayBuffer()) { raise<Napi::TypeError>(info.Env(), "set_pool: expects an ArrayBuffer"); return info.Env().Undefined(); }
  st->pool = Napi::Persistent(info[0].As<Napi::ArrayBuffer>());
  st->poolUsed = 0;
  return info.Env().Undefined();
}

/**
 * Sets up the environment's state and exports the call ABI (with `abiVersion`, which index.js
 * checks) and the device helpers next to the ops.
 */
inline void exportRuntime(Napi::Env env, Napi::Object exports, int abiVersion) {
  auto* st = new EnvState();
  env.SetInstanceData(st);
  Napi::ArrayBuffer scratch = Napi::ArrayBuffer::New(env, abi::kScratchDoubles * sizeof(double));
  st->scratch = Napi::Persistent(scratch);
  Napi::Object a = Napi::Object::New(env);
  a.Set("version", abiVersion);
  a.Set("scratch", scratch);
  a.Set("tensorSlots", abi::kTensorSlots);
  a.Set("inputBase", abi::kInputBase);
  a.Set("outputBase", abi::kOutputBase);
  a.Set("attrBase", abi::kAttrBase);
  a.Set("poolExhausted", abi::kPoolExhausted);
  a.Set("maxMembers", kMaxMembers);
  exports.Set("abi", a);
  exports.Set("set_pool", Napi::Function::New(env, setPool));
  exports.Set("cuda_available", Napi::Function::New(env, [](const Napi::CallbackInfo& i) { return Napi::Boolean::New(i.Env(), cudaAvailable()); }));
  exports.Set("built_with_cuda", Napi::Boolean::New(env, kBuiltWithCuda));
  exports.Set("to_device", Napi::Function::New(env, toDevice));
  exports.Set("to_host", Napi::Function::New(env, toHost));
  exports.Set("free", Napi::Function::New(env, freeDevice));
}

}  // namespace node
}  // namespace opforge
