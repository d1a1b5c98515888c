// opforge Node session binding: an ONNX Runtime session with custom-op libraries registered,
// driven from JS. ONNX Runtime itself is loaded with dlopen from a path the caller gives (for
// example onnxruntime-node's bundled libonnxruntime.so.1), and only its C API is used, so any
// runtime at least as new as the headers this was compiled with works.
//
// JS: new Session(ortLibrary, modelPath, customOpLibraries[], intraOpThreads, { provider: 'cpu' | 'cuda', device }?)
//       .inputs / .outputs: [{ name, dtype, dims }]  (dims: number, or a string for a symbolic dim)
//       .run({ name: { dtype, dims, data } }, outputNames?) -> { name: { dtype, dims, data } }
//       .close()
#include <dlfcn.h>
#include <napi.h>
#include <onnxruntime_c_api.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct DtypeInfo {
  const char* name;
  ONNXTensorElementDataType ort;
  size_t bytes;
  napi_typedarray_type array;
};

// opforge's dtype names and the TypedArray each uses (16-bit floats as raw bits, bool as bytes).
const DtypeInfo kDtypes[] = {
    {"float32", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT, 4, napi_float32_array},
    {"float16", ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16, 2, napi_uint16_array},
    {"bfloat16", ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16, 2, napi_uint16_array},
    {"float64", ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE, 8, napi_float64_array},
    {"int8", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8, 1, napi_int8_array},
    {"uint8", ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8, 1, napi_uint8_array},
    {"int32", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32, 4, napi_int32_array},
    {"int64", ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64, 8, napi_bigint64_array},
    {"bool", ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL, 1, napi_uint8_array},
};

const DtypeInfo* byName(const std::string& s) {
  for (const auto& d : kDtypes) if (s == d.name) return &d;
  return nullptr;
}
const DtypeInfo* byOrt(ONNXTensorElementDataType t) {
  for (const auto& d : kDtypes) if (t == d.ort) return &d;
  return nullptr;
}

/** The loaded runtime: one per library path for the life of the process (ORT allows one OrtEnv). */
struct Runtime {
  const OrtApi* api = nullptr;
  OrtEnv* env = nullptr;
  std::string path;
};

Runtime* runtimeFor(const std::string& path, std::string* err) {
  static Runtime* rt = nullptr;
  if (rt != nullptr) {
    if (rt->path != path) { *err = "ONNX Runtime is already loaded from " + rt->path + "; one runtime per process"; return nullptr; }
    return rt;
  }
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) { *err = std::string("cannot load ONNX Runtime: ") + dlerror(); return nullptr; }
  using GetApiBase = const OrtApiBase* (*)();
  auto getBase = reinterpret_cast<GetApiBase>(dlsym(h, "OrtGetApiBase"));
  if (getBase == nullptr) { *err = path + " has no OrtGetApiBase: not an ONNX Runtime library"; return nullptr; }
  const OrtApiBase* base = getBase();
  const OrtApi* api = base->GetApi(ORT_API_VERSION);
  if (api == nullptr) {
    *err = std::string("ONNX Runtime ") + base->GetVersionString() + " at " + path + " is older than the headers this binding was built with (API " + std::to_string(ORT_API_VERSION) + ")";
    return nullptr;
  }
  // OPFORGE_ORT_LOG_LEVEL: 0 verbose .. 4 fatal (default 2, warnings).
  const char* lv = getenv("OPFORGE_ORT_LOG_LEVEL");
  const int level = lv != nullptr && lv[0] >= '0' && lv[0] <= '4' && lv[1] == '\0' ? lv[0] - '0' : ORT_LOGGING_LEVEL_WARNING;
  OrtEnv* env = nullptr;
  if (OrtStatus* s = api->CreateEnv(static_cast<OrtLoggingLevel>(level), "opforge", &env)) {
    *err = api->GetErrorMessage(s);
    api->ReleaseStatus(s);
    return nullptr;
  }
  rt = new Runtime{api, env, path};  // never unloaded: sessions and custom-op libraries outlive any JS object
  return rt;
}

class Session : public Napi::ObjectWrap<Session> {
 public:
  static Napi::Function Define(Napi::Env env) {
    return DefineClass(env, "Session", {
        InstanceAccessor<&Session::Inputs>("inputs"),
        InstanceAccessor<&Session::Outputs>("outputs"),
        InstanceMethod<&Session::Run>("run"),
        InstanceMethod<&Session::Close>("close"),
    });
  }

  explicit Session(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Session>(info) {
    Napi::Env env = info.Env();
    if (info.Length() < 4 || !info[0].IsString() || !info[1].IsString() || !info[2].IsArray() || !info[3].IsNumber()) {
      Napi::TypeError::New(env, "Session(ortLibrary, modelPath, customOpLibraries, intraOpThreads)").ThrowAsJavaScriptException();
      return;
    }
    std::string err;
    rt_ = runtimeFor(info[0].As<Napi::String>().Utf8Value(), &err);
    if (rt_ == nullptr) { Napi::Error::New(env, err).ThrowAsJavaScriptException(); return; }
    const OrtApi& api = *rt_->api;
    OrtSessionOptions* opts = nullptr;
    if (!ok(env, api.CreateSessionOptions(&opts))) return;
    Napi::Array libs = info[2].As<Napi::Array>();
    bool good = ok(env, api.SetIntraOpNumThreads(opts, info[3].As<Napi::Number>().Int32Value()));
    if (good && info.Length() > 4 && info[4].IsObject()) good = appendProvider(env, opts, info[4].As<Napi::Object>());
    for (uint32_t i = 0; good && i < libs.Length(); ++i) {
      const std::string lib = libs.Get(i).ToString().Utf8Value();
      good = ok(env, api.RegisterCustomOpsLibrary_V2(opts, lib.c_str()), "custom-op library " + lib + ": ");
    }
    const std::string model = info[1].As<Napi::String>().Utf8Value();
    if (good) good = ok(env, api.CreateSession(rt_->env, model.c_str(), opts, &session_), model + ": ");
    api.ReleaseSessionOptions(opts);
    if (good) good = readIo(env);
  }

  ~Session() override { release(); }

 private:
  struct Io {
    std::string name;
    ONNXTensorElementDataType type;
    std::vector<int64_t> dims;
    std::vector<std::string> symbols;
  };

  bool ok(Napi::Env env, OrtStatus* s, const std::string& prefix = "") {
    if (s == nullptr) return true;
    Napi::Error::New(env, prefix + rt_->api->GetErrorMessage(s)).ThrowAsJavaScriptException();
    rt_->api->ReleaseStatus(s);
    return false;
  }

  /**
   * { provider: 'cuda', device, cpuFallback }: ONNX Runtime's CUDA EP on that device; unless
   * cpuFallback, no node may fall back to the CPU EP (a custom op with no CUDA kernel is an error,
   * not a silent CPU run). The runtime
   * must have the CUDA provider (libonnxruntime_providers_cuda.so beside it); ORT's error says so.
   */
  bool appendProvider(Napi::Env env, OrtSessionOptions* opts, Napi::Object o) {
    const OrtApi& api = *rt_->api;
    const std::string provider = o.Has("provider") ? o.Get("provider").ToString().Utf8Value() : "cpu";
    if (provider == "cpu") return true;
    if (provider != "cuda") { Napi::TypeError::New(env, "provider must be 'cpu' or 'cuda', not " + provider).ThrowAsJavaScriptException(); return false; }
    const std::string device = o.Has("device") ? o.Get("device").ToString().Utf8Value() : "0";
    OrtCUDAProviderOptionsV2* cuda = nullptr;
    if (!ok(env, api.CreateCUDAProviderOptions(&cuda), "CUDA execution provider: ")) return false;
    const char* keys[] = {"device_id"};
    const char* values[] = {device.c_str()};
    const bool fallback = o.Has("cpuFallback") && o.Get("cpuFallback").ToBoolean();
    bool good = ok(env, api.UpdateCUDAProviderOptions(cuda, keys, values, 1), "CUDA execution provider: ") &&
                ok(env, api.SessionOptionsAppendExecutionProvider_CUDA_V2(opts, cuda), "CUDA execution provider: ") &&
                (fallback || ok(env, api.AddSessionConfigEntry(opts, "session.disable_cpu_ep_fallback", "1")));
    api.ReleaseCUDAProviderOptions(cuda);
    return good;
  }

  bool readIo(Napi::Env env) {
    const OrtApi& api = *rt_->api;
    OrtAllocator* alloc = nullptr;
    if (!ok(env, api.GetAllocatorWithDefaultOptions(&alloc))) return false;
    for (int side = 0; side < 2; ++side) {
      size_t n = 0;
      if (!ok(env, side == 0 ? api.SessionGetInputCount(session_, &n) : api.SessionGetOutputCount(session_, &n))) return false;
      for (size_t i = 0; i < n; ++i) {
        char* name = nullptr;
        OrtTypeInfo* ti = nullptr;
        if (!ok(env, side == 0 ? api.SessionGetInputName(session_, i, alloc, &name) : api.SessionGetOutputName(session_, i, alloc, &name))) return false;
        Io io{name, ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED, {}, {}};
        if (OrtStatus* s = api.AllocatorFree(alloc, name)) api.ReleaseStatus(s);
        if (!ok(env, side == 0 ? api.SessionGetInputTypeInfo(session_, i, &ti) : api.SessionGetOutputTypeInfo(session_, i, &ti))) return false;
        const OrtTensorTypeAndShapeInfo* tsi = nullptr;
        size_t rank = 0;
        if (api.CastTypeInfoToTensorInfo(ti, &tsi) == nullptr && tsi != nullptr && api.GetTensorElementType(tsi, &io.type) == nullptr &&
            api.GetDimensionsCount(tsi, &rank) == nullptr) {
          io.dims.resize(rank);
          std::vector<const char*> syms(rank, nullptr);
          if (rank > 0) {
            ok(env, api.GetDimensions(tsi, io.dims.data(), rank));
            ok(env, api.GetSymbolicDimensions(tsi, syms.data(), rank));
          }
          for (const char* s : syms) io.symbols.emplace_back(s != nullptr ? s : "");
        }
        api.ReleaseTypeInfo(ti);
        (side == 0 ? inputs_ : outputs_).push_back(std::move(io));
      }
    }
    return !env.IsExceptionPending();
  }

  Napi::Value Describe(Napi::Env env, const std::vector<Io>& ios) {
    Napi::Array a = Napi::Array::New(env, ios.size());
    for (size_t i = 0; i < ios.size(); ++i) {
      Napi::Object o = Napi::Object::New(env);
      o.Set("name", ios[i].name);
      const DtypeInfo* d = byOrt(ios[i].type);
      o.Set("dtype", d != nullptr ? Napi::Value(Napi::String::New(env, d->name)) : env.Null());
      Napi::Array dims = Napi::Array::New(env, ios[i].dims.size());
      for (size_t k = 0; k < ios[i].dims.size(); ++k) {
        if (!ios[i].symbols[k].empty()) dims.Set(static_cast<uint32_t>(k), ios[i].symbols[k]);
        else if (ios[i].dims[k] < 0) dims.Set(static_cast<uint32_t>(k), env.Null());
        else dims.Set(static_cast<uint32_t>(k), static_cast<double>(ios[i].dims[k]));
      }
      o.Set("dims", dims);
      a.Set(static_cast<uint32_t>(i), o);
    }
    return a;
  }
  Napi::Value Inputs(const Napi::CallbackInfo& info) { return Describe(info.Env(), inputs_); }
  Napi::Value Outputs(const Napi::CallbackInfo& info) { return Describe(info.Env(), outputs_); }

  /** A JS tensor as an OrtValue over the JS memory (no copy). */
  OrtValue* toValue(Napi::Env env, const std::string& name, Napi::Value v, const OrtMemoryInfo* mem) {
    const OrtApi& api = *rt_->api;
    const std::string what = "input " + name;
    if (!v.IsObject()) { Napi::TypeError::New(env, what + " must be a tensor { dtype, dims, data }").ThrowAsJavaScriptException(); return nullptr; }
    Napi::Object o = v.As<Napi::Object>();
    const DtypeInfo* d = byName(o.Get("dtype").ToString().Utf8Value());
    if (d == nullptr) { Napi::TypeError::New(env, what + " has an unknown dtype").ThrowAsJavaScriptException(); return nullptr; }
    Napi::Value dv = o.Get("dims");
    Napi::Value data = o.Get("data");
    if (!dv.IsArray() || !data.IsTypedArray()) { Napi::TypeError::New(env, what + " needs dims (array) and data (TypedArray)").ThrowAsJavaScriptException(); return nullptr; }
    Napi::Array da = dv.As<Napi::Array>();
    std::vector<int64_t> dims(da.Length());
    int64_t n = 1;
    for (uint32_t k = 0; k < da.Length(); ++k) {
      const double x = da.Get(k).ToNumber().DoubleValue();
      if (!(x >= 0) || x > 9.007199254740991e15 || x != static_cast<double>(static_cast<int64_t>(x))) {
        Napi::RangeError::New(env, what + ".dims must be non-negative integers").ThrowAsJavaScriptException();
        return nullptr;
      }
      dims[k] = static_cast<int64_t>(x);
      n *= dims[k];
    }
    Napi::TypedArray ta = data.As<Napi::TypedArray>();
    if (ta.TypedArrayType() != d->array) { Napi::TypeError::New(env, what + ": " + d->name + " data has the wrong TypedArray type").ThrowAsJavaScriptException(); return nullptr; }
    if (static_cast<int64_t>(ta.ElementLength()) != n) {
      Napi::RangeError::New(env, what + " has " + std::to_string(ta.ElementLength()) + " elements, its dims need " + std::to_string(n)).ThrowAsJavaScriptException();
      return nullptr;
    }
    void* p = static_cast<uint8_t*>(ta.ArrayBuffer().Data()) + ta.ByteOffset();
    static uint8_t empty[8];
    OrtValue* value = nullptr;
    if (!ok(env, api.CreateTensorWithDataAsOrtValue(mem, n == 0 ? empty : p, static_cast<size_t>(n) * d->bytes, dims.data(), dims.size(), d->ort, &value), what + ": ")) return nullptr;
    return value;
  }

  Napi::Value fromValue(Napi::Env env, const std::string& name, OrtValue* v) {
    const OrtApi& api = *rt_->api;
    OrtTensorTypeAndShapeInfo* tsi = nullptr;
    if (!ok(env, api.GetTensorTypeAndShape(v, &tsi))) return env.Undefined();
    ONNXTensorElementDataType t = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
    size_t rank = 0, count = 0;
    std::vector<int64_t> dims;
    bool good = ok(env, api.GetTensorElementType(tsi, &t)) && ok(env, api.GetDimensionsCount(tsi, &rank));
    if (good) { dims.resize(rank); good = (rank == 0 || ok(env, api.GetDimensions(tsi, dims.data(), rank))) && ok(env, api.GetTensorShapeElementCount(tsi, &count)); }
    api.ReleaseTensorTypeAndShapeInfo(tsi);
    if (!good) return env.Undefined();
    const DtypeInfo* d = byOrt(t);
    if (d == nullptr) { Napi::TypeError::New(env, "output " + name + " has an element type opforge tensors cannot hold").ThrowAsJavaScriptException(); return env.Undefined(); }
    void* src = nullptr;
    if (count > 0 && !ok(env, api.GetTensorMutableData(v, &src))) return env.Undefined();
    Napi::ArrayBuffer buf = Napi::ArrayBuffer::New(env, count * d->bytes);
    if (count > 0) memcpy(buf.Data(), src, count * d->bytes);
    Napi::Object o = Napi::Object::New(env);
    o.Set("dtype", d->name);
    Napi::Array da = Napi::Array::New(env, rank);
    for (size_t k = 0; k < rank; ++k) da.Set(static_cast<uint32_t>(k), static_cast<double>(dims[k]));
    o.Set("dims", da);
    napi_value arr = nullptr;
    napi_create_typedarray(env, d->array, count, buf, 0, &arr);
    o.Set("data", Napi::Value(env, arr));
    return o;
  }

  Napi::Value Run(const Napi::CallbackInfo& info) {
    Napi::Env env = info.Env();
    if (session_ == nullptr) { Napi::Error::New(env, "the session is closed").ThrowAsJavaScriptException(); return env.Undefined(); }
    if (!info[0].IsObject()) { Napi::TypeError::New(env, "run(feeds, outputNames?): feeds must be an object").ThrowAsJavaScriptException(); return env.Undefined(); }
    const OrtApi& api = *rt_->api;
    Napi::Object feeds = info[0].As<Napi::Object>();
    std::vector<std::string> inNames, outNames;
    Napi::Array keys = feeds.GetPropertyNames();
    for (uint32_t i = 0; i < keys.Length(); ++i) inNames.push_back(keys.Get(i).ToString().Utf8Value());
    if (info.Length() > 1 && info[1].IsArray()) {
      Napi::Array a = info[1].As<Napi::Array>();
      for (uint32_t i = 0; i < a.Length(); ++i) outNames.push_back(a.Get(i).ToString().Utf8Value());
    } else {
      for (const auto& o : outputs_) outNames.push_back(o.name);
    }
    OrtMemoryInfo* mem = nullptr;
    if (!ok(env, api.CreateCpuMemoryInfo(OrtArenaAllocator, OrtMemTypeDefault, &mem))) return env.Undefined();
    std::vector<OrtValue*> ins(inNames.size(), nullptr), outs(outNames.size(), nullptr);
    bool good = true;
    for (size_t i = 0; good && i < inNames.size(); ++i) good = (ins[i] = toValue(env, inNames[i], feeds.Get(inNames[i]), mem)) != nullptr;
    api.ReleaseMemoryInfo(mem);
    Napi::Value result = env.Undefined();
    if (good) {
      std::vector<const char*> ip, op;
      for (const auto& s : inNames) ip.push_back(s.c_str());
      for (const auto& s : outNames) op.push_back(s.c_str());
      good = ok(env, api.Run(session_, nullptr, ip.data(), ins.data(), ins.size(), op.data(), op.size(), outs.data()));
    }
    if (good) {
      Napi::Object r = Napi::Object::New(env);
      for (size_t o = 0; o < outs.size() && !env.IsExceptionPending(); ++o) r.Set(outNames[o], fromValue(env, outNames[o], outs[o]));
      result = r;
    }
    for (OrtValue* v : ins) if (v != nullptr) api.ReleaseValue(v);
    for (OrtValue* v : outs) if (v != nullptr) api.ReleaseValue(v);
    return env.IsExceptionPending() ? env.Undefined() : result;
  }

  Napi::Value Close(const Napi::CallbackInfo& info) {
    release();
    return info.Env().Undefined();
  }

  void release() {
    if (session_ != nullptr) rt_->api->ReleaseSession(session_);
    session_ = nullptr;
  }

  Runtime* rt_ = nullptr;
  OrtSession* session_ = nullptr;
  std::vector<Io> inputs_, outputs_;
};

/** The ORT version string of a library path (loads it). */
Napi::Value Version(const Napi::CallbackInfo& info) {
  std::string err;
  Runtime* rt = runtimeFor(info[0].ToString().Utf8Value(), &err);
  if (rt == nullptr) { Napi::Error::New(info.Env(), err).ThrowAsJavaScriptException(); return info.Env().Undefined(); }
  using GetApiBase = const OrtApiBase* (*)();
  void* h = dlopen(rt->path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
  auto getBase = h != nullptr ? reinterpret_cast<GetApiBase>(dlsym(h, "OrtGetApiBase")) : nullptr;
  return Napi::String::New(info.Env(), getBase != nullptr ? getBase()->GetVersionString() : "unknown");
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("Session", Session::Define(env));
  exports.Set("ortVersion", Napi::Function::New(env, Version));
  exports.Set("apiVersion", Napi::Number::New(env, ORT_API_VERSION));
  return exports;
}

}  // namespace

NODE_API_MODULE(opforge_ort_session, Init)
