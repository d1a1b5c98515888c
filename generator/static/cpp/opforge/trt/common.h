// opforge TensorRT adapter, shared by every interface generation: version shims, logging,
// PluginField parsing (every reasonable width), the PluginCore that holds an op instance, and
// the glue from TensorRT descriptors to the op core's RawTensor dispatch.
// Builds against TensorRT 8.6, 10.x and 11.x headers; needs no libnvinfer symbol.
#pragma once

#include <NvInferRuntime.h>
#include <NvInferVersion.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "opforge/core.h"
#include "opforge/op_core.h"
#include "opforge/trt/dtype.h"

// IPluginV2 and IPluginV2Ext are deprecated since TensorRT 8.5, IPluginV2DynamicExt and
// IPluginCreator since 10. opforge still implements them on purpose (TensorRT 8.x users, Paddle
// Inference's plugin lookup), so code that names them is bracketed by these macros: the
// deprecation warning is silenced there and nowhere else.
#if defined(_MSC_VER)
#define OPFORGE_TRT_V2_BEGIN __pragma(warning(push)) __pragma(warning(disable : 4996))
#define OPFORGE_TRT_V2_END __pragma(warning(pop))
#else
#define OPFORGE_TRT_V2_BEGIN _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define OPFORGE_TRT_V2_END _Pragma("GCC diagnostic pop")
#endif

// The plugin library's C entry points stay visible when everything else is hidden
// (TENSORRTAPI is empty outside NVIDIA's own build).
#if defined(_MSC_VER)
#define OPFORGE_TRT_EXPORT __declspec(dllexport)
#else
#define OPFORGE_TRT_EXPORT __attribute__((visibility("default")))
#endif

namespace opforge {
namespace trt {

// ---- Logging --------------------------------------------------------------------------
// The logger comes from the ILoggerFinder TensorRT hands to setLoggerFinder() when it loads
// the library; without one (linked in statically, or in tests) errors go to stderr.

inline std::atomic<nvinfer1::ILoggerFinder*>& loggerFinder() {
  static std::atomic<nvinfer1::ILoggerFinder*> finder{nullptr};
  return finder;
}

inline void log(nvinfer1::ILogger::Severity severity, const std::string& message) noexcept {
  try {
    nvinfer1::ILoggerFinder* finder = loggerFinder().load();
    nvinfer1::ILogger* logger = finder != nullptr ? finder->findLogger() : nullptr;
    if (logger != nullptr) {
      logger->log(severity, message.c_str());
    } else if (severity <= nvinfer1::ILogger::Severity::kWARNING) {
      std::fprintf(stderr, "[opforge] %s\n", message.c_str());
    }
  } catch (...) {
  }
}
inline void logError(const std::string& m) noexcept { log(nvinfer1::ILogger::Severity::kERROR, m); }
inline void logWarning(const std::string& m) noexcept { log(nvinfer1::ILogger::Severity::kWARNING, m); }

// ---- Dims ---------------------------------------------------------------------------
// nvinfer1::Dims is Dims32 in TensorRT 8 and Dims64 from 10; both convert through int64_t.

/** Element type of Dims::d (int32_t in TensorRT 8, int64_t from 10). */
using DimValue = std::remove_all_extents_t<decltype(nvinfer1::Dims::d)>;

inline bool toShape(const nvinfer1::Dims& d, Shape* s) {
  if (d.nbDims < 0 || d.nbDims > kMaxRank) return false;
  s->rank = d.nbDims;
  for (int32_t i = 0; i < d.nbDims; ++i) s->dims[i] = static_cast<int64_t>(d.d[i]);
  return true;
}

inline bool allKnown(const nvinfer1::Dims& d) {
  for (int32_t i = 0; i < d.nbDims; ++i) if (d.d[i] < 0) return false;
  return true;
}

/**
 * One entry of a spliced output's dims: a dim (`from` null), or dims [start, end) of `from`
 * (Python's bounds; kNoBound: missing), as the op core's ShapePart.
 */
struct DimsPart {
  const nvinfer1::IDimensionExpr* dim;
  const nvinfer1::DimsExprs* from;
  int64_t start, end;
};
inline DimsPart dimPart(const nvinfer1::IDimensionExpr* d) { return {d, nullptr, 0, 0}; }
inline DimsPart slicePart(const nvinfer1::DimsExprs& from, int64_t start, int64_t end) { return {nullptr, &from, start, end}; }

/** A spliced output's dims; false where a slice lies outside its input or past Dims::MAX_DIMS. */
inline bool spliced(nvinfer1::DimsExprs& out, std::initializer_list<DimsPart> parts) {
  int32_t n = 0;
  for (const DimsPart& p : parts) {
    const int64_t r = p.from ? p.from->nbDims : 1;
    const int64_t a = !p.from || p.start == kNoBound ? 0 : p.start < 0 ? r + p.start : p.start;
    const int64_t e = !p.from || p.end == kNoBound ? r : p.end < 0 ? r + p.end : p.end;
    if (a < 0 || e > r || e < a || n + (e - a) > nvinfer1::Dims::MAX_DIMS) return false;
    for (int64_t d = a; d < e; ++d) out.d[n++] = p.from ? p.from->d[d] : p.dim;
  }
  out.nbDims = n;
  return true;
}

/** A constant dim expression; TensorRT 8 takes int32 constants. */
inline const nvinfer1::IDimensionExpr* constant(nvinfer1::IExprBuilder& b, int64_t v) {
#if NV_TENSORRT_MAJOR >= 10
  return b.constant(v);
#else
  return b.constant(static_cast<int32_t>(v));
#endif
}

inline const nvinfer1::IDimensionExpr* dimOp(nvinfer1::IExprBuilder& b, nvinfer1::DimensionOperation o,
                                          const nvinfer1::IDimensionExpr* x, const nvinfer1::IDimensionExpr* y) {
  if (x == nullptr || y == nullptr) return nullptr;
  return b.operation(o, *x, *y);
}

// Conditions are dims of value 1 or 0, so that one that reads dims can pick between two dims.
inline const nvinfer1::IDimensionExpr* notOf(nvinfer1::IExprBuilder& b, const nvinfer1::IDimensionExpr* x) {
  return dimOp(b, nvinfer1::DimensionOperation::kSUB, constant(b, 1), x);
}
inline const nvinfer1::IDimensionExpr* select(nvinfer1::IExprBuilder& b, const nvinfer1::IDimensionExpr* c,
                                              const nvinfer1::IDimensionExpr* x, const nvinfer1::IDimensionExpr* y) {
  using Op = nvinfer1::DimensionOperation;
  return dimOp(b, Op::kSUM, dimOp(b, Op::kPROD, c, x), dimOp(b, Op::kPROD, notOf(b, c), y));
}
/** x % y, the floor modulo: x - y * floor(x / y). */
inline const nvinfer1::IDimensionExpr* floorMod(nvinfer1::IExprBuilder& b, const nvinfer1::IDimensionExpr* x,
                                                const nvinfer1::IDimensionExpr* y) {
  using Op = nvinfer1::DimensionOperation;
  return dimOp(b, Op::kSUB, x, dimOp(b, Op::kPROD, y, dimOp(b, Op::kFLOOR_DIV, x, y)));
}

/**
 * floor(s * f) (or ceil) with IExprBuilder's integer operations: f's float32 is m * 2^e with an
 * integer m, so s * m is multiplied by 2^e or divided by 2^-e, in steps a constant can hold
 * (floor(floor(x / p) / q) = floor(x / (p q)), likewise ceil): the op core's value exactly.
 * nullptr (no dims) where f is not finite or 2^e does not fit a constant.
 */
inline const nvinfer1::IDimensionExpr* scaled(nvinfer1::IExprBuilder& b, const nvinfer1::IDimensionExpr* s, float f,
                                              bool ceil) {
  using Op = nvinfer1::DimensionOperation;
  if (!std::isfinite(f)) return nullptr;
  if (f == 0.0f) return constant(b, 0);
  int e = 0;
  const int64_t m = static_cast<int64_t>(std::ldexp(std::frexp(f, &e), 24));
  e -= 24;
  const nvinfer1::IDimensionExpr* x = dimOp(b, Op::kPROD, s, constant(b, m));
#if NV_TENSORRT_MAJOR >= 10
  constexpr int kStep = 62;  // 2^62 fits an int64 constant
#else
  constexpr int kStep = 30;  // TensorRT 8 takes int32 constants
#endif
  if (e >= 0) return e >= kStep ? nullptr : dimOp(b, Op::kPROD, x, constant(b, int64_t{1} << e));
  for (int k = -e; k > 0; k -= kStep)
    x = dimOp(b, ceil ? Op::kCEIL_DIV : Op::kFLOOR_DIV, x, constant(b, int64_t{1} << (k < kStep ? k : kStep)));
  return x;
}

// ---- PluginField parsing ---------------------------------------------------------------
// Creators publish the types onnx-tensorrt's plugin fallback produces for ONNX attributes
// (INT/INTS -> kINT32, FLOAT/FLOATS -> kFLOAT32, STRING -> kCHAR with a trailing NUL), and
// accept every other width that carries the value without loss of meaning.

enum class FieldResult { kSet, kError };


inline const char* fieldTypeName(nvinfer1::PluginFieldType t) {
  switch (t) {
    case nvinfer1::PluginFieldType::kFLOAT16: return "kFLOAT16";
    case nvinfer1::PluginFieldType::kFLOAT32: return "kFLOAT32";
    case nvinfer1::PluginFieldType::kFLOAT64: return "kFLOAT64";
    case nvinfer1::PluginFieldType::kINT8: return "kINT8";
    case nvinfer1::PluginFieldType::kINT16: return "kINT16";
    case nvinfer1::PluginFieldType::kINT32: return "kINT32";
    case nvinfer1::PluginFieldType::kCHAR: return "kCHAR";
    case nvinfer1::PluginFieldType::kDIMS: return "kDIMS";
    case nvinfer1::PluginFieldType::kUNKNOWN: return "kUNKNOWN";
#if NV_TENSORRT_MAJOR >= 10
    case nvinfer1::PluginFieldType::kBF16: return "kBF16";
    case nvinfer1::PluginFieldType::kINT64: return "kINT64";
#endif
    default: return "an unsupported type";
  }
}

namespace detail {

template <typename T>
inline T load(const void* data, int32_t i) {
  T v;
  std::memcpy(&v, static_cast<const uint8_t*>(data) + static_cast<size_t>(i) * sizeof(T), sizeof(T));
  return v;
}

inline bool checkData(const nvinfer1::PluginField& f, std::string* err) {
  if (f.length < 0) { *err = "has a negative length"; return false; }
  if (f.length > 0 && f.data == nullptr) { *err = "has no data"; return false; }
  return true;
}

inline bool isIntType(nvinfer1::PluginFieldType t) {
  return t == nvinfer1::PluginFieldType::kINT8 || t == nvinfer1::PluginFieldType::kINT16 ||
#if NV_TENSORRT_MAJOR >= 10
         t == nvinfer1::PluginFieldType::kINT64 ||
#endif
         t == nvinfer1::PluginFieldType::kINT32;
}

inline bool isFloatType(nvinfer1::PluginFieldType t) {
  return t == nvinfer1::PluginFieldType::kFLOAT16 || t == nvinfer1::PluginFieldType::kFLOAT32 ||
#if NV_TENSORRT_MAJOR >= 10
         t == nvinfer1::PluginFieldType::kBF16 ||
#endif
         t == nvinfer1::PluginFieldType::kFLOAT64;
}

inline int64_t intAt(const nvinfer1::PluginField& f, int32_t i) {
  switch (f.type) {
    case nvinfer1::PluginFieldType::kINT8: return load<int8_t>(f.data, i);
    case nvinfer1::PluginFieldType::kINT16: return load<int16_t>(f.data, i);
#if NV_TENSORRT_MAJOR >= 10
    case nvinfer1::PluginFieldType::kINT64: return load<int64_t>(f.data, i);
#endif
    default: return load<int32_t>(f.data, i);
  }
}

inline double floatAt(const nvinfer1::PluginField& f, int32_t i) {
  switch (f.type) {
    case nvinfer1::PluginFieldType::kFLOAT16: return toFloat(load<float16>(f.data, i));
    case nvinfer1::PluginFieldType::kFLOAT64: return load<double>(f.data, i);
#if NV_TENSORRT_MAJOR >= 10
    case nvinfer1::PluginFieldType::kBF16: return toFloat(load<bfloat16>(f.data, i));
#endif
    default: return load<float>(f.data, i);
  }
}

inline bool readInts(const nvinfer1::PluginField& f, std::vector<int64_t>* out, std::string* err) {
  if (!checkData(f, err)) return false;
  if (!isIntType(f.type)) { *err = std::string("has type ") + fieldTypeName(f.type) + ", expected an integer type (kINT32, kINT64, kINT16, kINT8)"; return false; }
  out->clear();
  for (int32_t i = 0; i < f.length; ++i) out->push_back(intAt(f, i));
  return true;
}

inline bool readFloats(const nvinfer1::PluginField& f, std::vector<float>* out, std::string* err) {
  if (!checkData(f, err)) return false;
  if (!isFloatType(f.type)) { *err = std::string("has type ") + fieldTypeName(f.type) + ", expected a float type (kFLOAT32, kFLOAT64, kFLOAT16, kBF16)"; return false; }
  out->clear();
  for (int32_t i = 0; i < f.length; ++i) out->push_back(static_cast<float>(floatAt(f, i)));
  return true;
}

inline bool one(size_t n, std::string* err) {
  if (n != 1) { *err = "holds " + std::to_string(n) + " values, expected exactly one"; return false; }
  return true;
}

}  // namespace detail

inline FieldResult readField(const nvinfer1::PluginField& f, std::vector<int64_t>* out, std::string* err) {
  return detail::readInts(f, out, err) ? FieldResult::kSet : FieldResult::kError;
}
inline FieldResult readField(const nvinfer1::PluginField& f, std::vector<float>* out, std::string* err) {
  return detail::readFloats(f, out, err) ? FieldResult::kSet : FieldResult::kError;
}
inline FieldResult readField(const nvinfer1::PluginField& f, int64_t* out, std::string* err) {
  std::vector<int64_t> v;
  if (!detail::readInts(f, &v, err) || !detail::one(v.size(), err)) return FieldResult::kError;
  *out = v[0];
  return FieldResult::kSet;
}
inline FieldResult readField(const nvinfer1::PluginField& f, bool* out, std::string* err) {
  std::vector<int64_t> v;
  if (!detail::readInts(f, &v, err) || !detail::one(v.size(), err)) return FieldResult::kError;
  if (v[0] != 0 && v[0] != 1) { *err = "is " + std::to_string(v[0]) + ", expected 0 or 1"; return FieldResult::kError; }
  *out = v[0] != 0;
  return FieldResult::kSet;
}
inline FieldResult readField(const nvinfer1::PluginField& f, float* out, std::string* err) {
  std::vector<float> v;
  if (!detail::readFloats(f, &v, err) || !detail::one(v.size(), err)) return FieldResult::kError;
  *out = v[0];
  return FieldResult::kSet;
}
inline FieldResult readField(const nvinfer1::PluginField& f, std::string* out, std::string* err) {
  if (!detail::checkData(f, err)) return FieldResult::kError;
  if (f.type != nvinfer1::PluginFieldType::kCHAR && f.type != nvinfer1::PluginFieldType::kINT8) {
    *err = std::string("has type ") + fieldTypeName(f.type) + ", expected kCHAR";
    return FieldResult::kError;
  }
  const char* s = static_cast<const char*>(f.data);
  size_t n = static_cast<size_t>(f.length);
  while (n > 0 && s[n - 1] == '\0') --n;  // onnx-tensorrt and Paddle count the terminating NUL
  if (std::memchr(s, '\0', n) != nullptr) { *err = "contains a NUL character"; return FieldResult::kError; }
  out->assign(s, n);
  return FieldResult::kSet;
}

/** Name of the single field the V3 plugins serialize: the op core's versioned, checksummed bytes. */
constexpr const char* kSerializedField = "opforge.serialized";

// ---- The op instance every plugin generation wraps ----------------------------------------

template <class Op>
Status runOnHost(const typename Op::Attrs& attrs, const typename Op::State& state, const RawTensor* inputs, int numIn,
                 const RawTensor* outputs, const CudaContext& ctx);

/**
 * Attributes and state of one op instance plus the TensorRT-independent logic the plugins
 * share. `Op` is the generated descriptor in out/trt/<op>/<op>_trt.h; it forwards to the op core.
 */
template <class Op>
class PluginCore {
 public:
  using Attrs = typename Op::Attrs;
  using State = typename Op::State;

  PluginCore() = default;
  explicit PluginCore(Attrs attrs) : attrs_(std::move(attrs)) {}

  const Attrs& attrs() const { return attrs_; }
  /** The configuration enqueue runs (TensorRT's tactic; 0 the default): a Triton kernel's `configs:`. */
  void setTactic(int tactic) { tactic_ = tactic; }

  /** Attributes from a field collection; a missing required field or a bad value is logged and fails. */
  static bool fromFields(const nvinfer1::PluginFieldCollection* fc, const char* pluginName, Attrs* out) {
    Attrs a;
    bool seen[Op::kNumAttributes > 0 ? Op::kNumAttributes : 1] = {};
    const int32_t n = fc != nullptr ? fc->nbFields : 0;
    if (n > 0 && fc->fields == nullptr) { logError(std::string(pluginName) + ": field collection has no fields array"); return false; }
    for (int32_t i = 0; i < n; ++i) {
      const nvinfer1::PluginField& f = fc->fields[i];
      if (f.name == nullptr) { logError(std::string(pluginName) + ": field " + std::to_string(i) + " has no name"); return false; }
      const int idx = fieldIndex(f.name);
      if (idx < 0) { logWarning(std::string(pluginName) + ": ignoring unknown field '" + f.name + "'"); continue; }
      std::string err;
      if (setField(a, idx, f, &err) != FieldResult::kSet) {
        logError(std::string(pluginName) + ": field '" + f.name + "' " + err);
        return false;
      }
      seen[idx] = true;
    }
    for (int i = 0; i < Op::kNumAttributes; ++i) {
      if (Op::kAttributes[i].required && !seen[i]) {
        logError(std::string(pluginName) + ": required field '" + Op::kAttributes[i].name + "' is missing");
        return false;
      }
    }
    const Status s = Op::validate(a);
    if (!s.ok()) { logError(s.message()); return false; }
    *out = std::move(a);
    return true;
  }

  static int fieldIndex(const char* name) {
    for (int i = 0; i < Op::kNumAttributes; ++i) if (std::strcmp(Op::kAttributes[i].name, name) == 0) return i;
    return -1;
  }

  /** Stores field f into the attribute at `index` (the op core's attribute order). */
  static FieldResult setField(Attrs& a, int index, const nvinfer1::PluginField& f, std::string* err) {
    FieldResult r = FieldResult::kError;
    bool found = false;
    int k = 0;
    forEachAttribute<Op>(a, [&](auto& v, const char*) {
      if (k++ == index) { found = true; r = readField(f, &v, err); }
    });
    if (!found) *err = "is not an attribute of this op";
    return r;
  }

  /** The published field names and types (what getFieldNames() returns). */
  static const nvinfer1::PluginFieldCollection* fieldNames() {
    static const std::vector<nvinfer1::PluginField> fields = [] {
      std::vector<nvinfer1::PluginField> v;
      for (int i = 0; i < Op::kNumAttributes; ++i) v.emplace_back(Op::kAttributes[i].name, nullptr, fieldType(Op::kAttributes[i].type), 0);
      return v;
    }();
    static const nvinfer1::PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.empty() ? nullptr : fields.data()};
    return &fc;
  }

  size_t serializedSize() const { return Op::serializedSize(attrs_, state_); }
  void serialize(void* buffer) const { Op::serialize(attrs_, state_, buffer); }
  std::vector<uint8_t> serialized() const {
    std::vector<uint8_t> b(serializedSize());
    serialize(b.data());
    return b;
  }
  /** Reads serialize()'s bytes; a truncated, foreign or corrupted buffer is logged and fails. */
  bool deserialize(const void* data, size_t size) {
    const Status s = Op::deserialize(data, size, &attrs_, &state_);
    if (!s.ok()) logError(s.message());
    return s.ok();
  }

  /**
   * Which inputs are present when TensorRT connects nbInputs of them (absent optionals are
   * trailing). A variadic input's members follow the other inputs, all of which must then be
   * connected: a missing optional one could not be told from a member.
   */
  static bool presence(int32_t nbInputs, bool* present) {
    if constexpr (Op::kVariadic) {
      if (nbInputs < Op::kMinInputs || nbInputs > Op::kMaxInputs) return false;
      for (int i = 0; i < nbInputs; ++i) present[i] = true;
      return true;
    }
    if (nbInputs > Op::kNumInputs || nbInputs < 0) return false;
    for (int i = 0; i < Op::kNumInputs; ++i) {
      present[i] = i < nbInputs;
      if (!present[i] && !Op::kInputOptional[i]) return false;
    }
    return true;
  }

  // ---- Dtypes this TensorRT cannot carry ----------------------------------------------
  // TensorRT has no float64 tensors, and none of int64 before 10 or bfloat16 before 9 (dtype.h,
  // from the type table). A dtype binding of the op that needs one is refused: never offered by
  // supportsFormatCombination, logged once when the op is created, and when no binding is left
  // the op cannot run on this TensorRT at all and creation fails.

  /** How many tensors the op core's arrays hold for nbInputs connected: the inputs (absent ones flagged), or every member too. */
  static int tensorCount(int32_t nbInputs) { return Op::kVariadic ? nbInputs : Op::kNumInputs; }

  /** The port of position `pos` (inputs, then outputs) when nbInputs inputs are connected. */
  static int portAt(int32_t pos, int32_t nbInputs) { return pos < nbInputs ? Op::portOf(pos) : Op::kNumInputs + (pos - nbInputs); }

  /** "input x" / "output y" of a port (inputs then outputs). */
  static std::string portName(int port) {
    return port < Op::kNumInputs ? std::string("input ") + Op::kInputNames[port] : std::string("output ") + Op::kOutputNames[port - Op::kNumInputs];
  }

  /** "TensorRT 8.6" for the headers this was compiled against. */
  static std::string trtName() { return "TensorRT " + std::to_string(NV_TENSORRT_MAJOR) + "." + std::to_string(NV_TENSORRT_MINOR); }

  /**
   * First port of binding b whose dtype this TensorRT lacks (optional inputs and outputs with
   * `present:` skipped when they may be left out); -1 if none.
   */
  static int uncarriedPort(int b, bool skipOptional) {
    for (int p = 0; p < Op::kNumInputs + Op::kNumOutputs; ++p) {
      if (skipOptional && p < Op::kNumInputs && Op::kInputOptional[p]) continue;
      if (skipOptional && p >= Op::kNumInputs + Op::kMinOutputs) continue;
      nvinfer1::DataType t;
      if (Op::eachDtype(p)) {  // a heterogeneous input's members: some dtype it allows will do
        bool some = false;
        for (int d = 0; d < 32 && !some; ++d) some = Op::portAllows(p, static_cast<DType>(d)) && toTrt(static_cast<DType>(d), &t);
        if (!some) return p;
        continue;
      }
      if (!toTrt(Op::bindingDtype(b, p), &t)) return p;
    }
    return -1;
  }

  /** "binding i64 (int64 input x)", or "int64 (output idx)" for an op without type variables. */
  static std::string refusedBinding(int b, int port) {
    const std::string what = Op::eachDtype(port) ? std::string("none of the dtypes") : std::string(dtypeName(Op::bindingDtype(b, port)));
    if (Op::kBindingNames[b][0] == '\0') return what + " (" + portName(port) + ")";
    return std::string("binding ") + Op::kBindingNames[b] + " (" + what + " " + portName(port) + ")";
  }

  /**
   * At creation from fields: logs (once per op) the dtype bindings this TensorRT refuses; false,
   * with an error, when it can run none of them.
   */
  static bool checkDtypes() {
    std::string refused;
    bool runnable = false;
    for (int b = 0; b < Op::kNumBindings; ++b) {
      const int p = uncarriedPort(b, true);
      if (p < 0) { runnable = true; continue; }
      refused += (refused.empty() ? "" : ", ") + refusedBinding(b, p);
    }
    if (!runnable) {
      logError(std::string(Op::kPluginName) + ": " + trtName() + " has no tensor type for " + refused + ": the op cannot run on this TensorRT");
      return false;
    }
    static std::atomic<bool> logged{false};
    if (!refused.empty() && !logged.exchange(true)) {
      logWarning(std::string(Op::kPluginName) + ": " + trtName() + " has no tensor type for " + refused + ": those dtype combinations are refused");
    }
    return true;
  }

  /**
   * The layer's output count: the outputs its attributes ask for (`present:`), which come first.
   * 0 (with an error) when the attributes ask for a present output after an absent one.
   */
  int32_t numOutputs() const {
    if constexpr (Op::kMinOutputs == Op::kNumOutputs) {
      return Op::kNumOutputs;
    } else {
      bool wanted[Op::kNumOutputs] = {};
      int n = 0;
      const Status s = Op::outputsPresent(attrs_, wanted, &n);
      if (!s.ok()) { logError(s.message()); return 0; }
      return n;
    }
  }

  /** Output dtypes from input dtypes through the op core's type inference. */
  bool outputTypes(const nvinfer1::DataType* in, int32_t nbInputs, nvinfer1::DataType* out) const {
    DType inT[Op::kMaxInputs] = {};
    bool present[Op::kMaxInputs] = {};
    if (!presence(nbInputs, present)) { logError(std::string(Op::kPluginName) + ": " + std::to_string(nbInputs) + " inputs connected"); return false; }
    for (int32_t i = 0; i < nbInputs; ++i) {
      if (!fromTrt(in[i], &inT[i])) { logError(std::string(Op::kPluginName) + ": " + Op::inputName(i) + " has a dtype the op does not support"); return false; }
    }
    DType outT[Op::kNumOutputs] = {};
    int binding = -1;
    const Status s = Op::inferTypes(attrs_, inT, present, tensorCount(nbInputs), outT, &binding);
    if (!s.ok()) { logError(s.message()); return false; }
    for (int o = 0; o < numOutputs(); ++o) {
      if (!toTrt(outT[o], &out[o])) {
        logError(std::string(Op::kPluginName) + ": " + trtName() + " has no tensor type for " +
                 (binding >= 0 && binding < Op::kNumBindings ? refusedBinding(binding, Op::kNumInputs + o) : std::string(dtypeName(outT[o])) + " (" + portName(Op::kNumInputs + o) + ")"));
        return false;
      }
    }
    return true;
  }

  /**
   * supportsFormatCombination from the spec's type constraints: linear format, a dtype the
   * position allows, and positions bound to one type variable agree (TensorRT asks in order,
   * so positions before `pos` are already decided).
   */
  bool supports(int32_t pos, const nvinfer1::TensorFormat* formats, const nvinfer1::DataType* types, int32_t nbInputs, int32_t nbOutputs) const {
    if (nbOutputs != numOutputs() || pos < 0 || pos >= nbInputs + nbOutputs) return false;
    if (formats[pos] != nvinfer1::TensorFormat::kLINEAR) return false;
    const int port = portAt(pos, nbInputs);
    DType t;
    if (!fromTrt(types[pos], &t)) return false;
    if (!Op::portAllows(port, t)) return false;
    // A member of an output that follows a heterogeneous input's member: that member's type.
    if (pos >= nbInputs) {
      const int src = Op::followsInput(pos - nbInputs);
      if (src >= 0 && src < nbInputs && types[src] != types[pos]) return false;
    }
    const int var = Op::kPortVar[port];
    // An output whose dtype the attributes choose has that dtype only (the inputs come first: all decided).
    if (Op::isChosen(var)) {
      nvinfer1::DataType outs[Op::kNumOutputs] = {};
      if (!outputTypes(types, nbInputs, outs) || outs[pos - nbInputs] != types[pos]) return false;
    }
    for (int32_t p = 0; var >= 0 && p < pos; ++p) {
      const int q = portAt(p, nbInputs);
      if (Op::kPortVar[q] == var && types[p] != types[pos]) return false;
    }
    // Some dtype binding must give every position so far exactly its type, with a TensorRT type
    // for each of them: a binding this TensorRT cannot carry (float64, ...) is never offered.
    for (int b = 0; b < Op::kNumBindings; ++b) {
      bool match = true;
      for (int32_t p = 0; match && p <= pos; ++p) {
        nvinfer1::DataType want;
        if (Op::eachDtype(portAt(p, nbInputs))) continue;  // each member on its own: portAllows said
        match = toTrt(Op::bindingDtype(b, portAt(p, nbInputs)), &want) && want == types[p];
      }
      if (match) return true;
    }
    return false;
  }

  /** Shapes of the connected inputs, checked against the spec. */
  static bool inputShapes(const nvinfer1::Dims* dims, int32_t nbInputs, Shape* shapes, bool* present) {
    if (!presence(nbInputs, present)) return false;
    for (int32_t i = 0; i < nbInputs; ++i) if (!toShape(dims[i], &shapes[i])) return false;
    return true;
  }

  /** Scratch bytes for these input dims (max dims at build time) and dtypes; 0 when dims are not known. */
  size_t workspace(const nvinfer1::Dims* dims, const nvinfer1::DataType* types, int32_t nbInputs) const {
    Shape shapes[Op::kMaxInputs];
    bool present[Op::kMaxInputs] = {};
    DType dtypes[Op::kMaxInputs] = {};
    if (!inputShapes(dims, nbInputs, shapes, present)) return 0;
    for (int32_t i = 0; i < nbInputs; ++i) if (!allKnown(dims[i]) || !fromTrt(types[i], &dtypes[i])) return 0;
    size_t bytes = 0;
    if (!Op::workspaceSize(attrs_, shapes, dtypes, tensorCount(nbInputs), &bytes).ok()) return 0;
    return withDataDims(bytes);
  }

  /** Checks concrete shapes (numIn tensors) and, for ops with state, runs configure() when they change. */
  bool prepare(const Shape* shapes, const bool* present, int numIn) {
    Status s = Op::checkShapes(attrs_, shapes, present, numIn);
    if (!s.ok()) { logError(s.message()); return false; }
    if constexpr (!Op::kHasConfigure) {
      return true;
    } else {
      bool same = configured_ && configuredCount_ == numIn;
      for (int i = 0; same && i < numIn; ++i) same = configuredShapes_[i] == shapes[i];
      if (same) return true;
      s = Op::configure(attrs_, shapes, &state_);
      if (!s.ok()) { logError(s.message()); return false; }
      for (int i = 0; i < numIn; ++i) configuredShapes_[i] = shapes[i];
      configuredCount_ = numIn;
      configured_ = true;
      return true;
    }
  }

  /**
   * Runs the op on device tensors: builds RawTensors from the descriptors, checks shapes and
   * dtypes through the op core, and dispatches to the CUDA kernel on `stream`. 0 on success.
   */
  int32_t enqueue(const nvinfer1::Dims* inDims, const nvinfer1::DataType* inTypes, int32_t nbInputs,
                  const nvinfer1::Dims* outDims, const nvinfer1::DataType* outTypes, int32_t nbOutputs,
                  const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream,
                  void* const* sizeTensors = nullptr) {
    if (nbOutputs != numOutputs()) { logError(std::string(Op::kPluginName) + ": wrong number of outputs"); return 1; }
    if (Op::kNumDataDims > 0 && sizeTensors == nullptr) { logError(std::string(Op::kPluginName) + ": " + kNoDataDims); return 1; }
    RawTensor in[Op::kMaxInputs];
    RawTensor out[Op::kNumOutputs + Op::kNumDataDims];
    Shape shapes[Op::kMaxInputs];
    bool present[Op::kMaxInputs] = {};
    if (!inputShapes(inDims, nbInputs, shapes, present)) { logError(std::string(Op::kPluginName) + ": bad input dims"); return 1; }
    const int numIn = tensorCount(nbInputs);
    for (int i = 0; i < numIn; ++i) {
      in[i].present = present[i];
      if (!present[i]) continue;
      in[i].shape = shapes[i];
      in[i].data = const_cast<void*>(inputs[i]);
      if (!fromTrt(inTypes[i], &in[i].dtype)) { logError(std::string(Op::kPluginName) + ": unsupported input dtype"); return 1; }
    }
    for (int o = 0; o < Op::kNumOutputs; ++o) {
      if (o >= nbOutputs) {  // left out by the attributes (`present:`)
        out[o].present = false;
        continue;
      }
      if (!toShape(outDims[o], &out[o].shape) || !fromTrt(outTypes[o], &out[o].dtype)) { logError(std::string(Op::kPluginName) + ": bad output descriptor"); return 1; }
      out[o].data = outputs[o];
    }
    if (!prepare(shapes, present, numIn)) return 1;
    Shape expected[Op::kNumOutputs];
    Status s = Op::inferShapes(attrs_, shapes, numIn, expected);
    if (!s.ok()) { logError(s.message()); return 1; }
    for (int o = 0; o < nbOutputs; ++o) {
      // A dim the kernel decides: TensorRT allocated its bound (the descriptor may say otherwise).
      Shape given = out[o].shape;
      for (int d = 0; d < expected[o].rank && d < given.rank; ++d)
        if (Op::dataDimAt(o, d) >= 0) given.dims[d] = expected[o].dims[d];
      if (expected[o] != given) {
        logError(std::string(Op::kPluginName) + ": output " + Op::kOutputNames[o] + " has shape " + out[o].shape.str() + ", expected " + expected[o].str());
        return 1;
      }
      out[o].shape = expected[o];
    }
    CudaContext ctx;
    ctx.stream = stream;
    ctx.workspace = workspace;
    ctx.tactic = tactic_;
    DType dtypes[Op::kMaxInputs] = {};
    for (int i = 0; i < numIn; ++i) dtypes[i] = in[i].dtype;
    size_t bytes = 0;
    s = Op::workspaceSize(attrs_, shapes, dtypes, numIn, &bytes);
    if (!s.ok()) { logError(s.message()); return 1; }
    ctx.workspaceSize = bytes;
    // Each data dim's int64 slot: after the kernel's workspace (getWorkspaceSize counts them).
    auto* slots = static_cast<int64_t*>(dataDimSlots(workspace, bytes));
    for (int d = 0; d < Op::kNumDataDims; ++d) out[Op::kNumOutputs + d] = RawTensor{DType::kInt64, slots + d, Shape{}, true};
    // The op's CUDA kernel; an op without one runs its CPU kernel on host copies.
    if constexpr (Op::kHasCuda) s = Op::runCuda(attrs_, state_, in, numIn, out, ctx);
    else s = runOnHost<Op>(attrs_, state_, in, numIn, out, ctx);
    if (!s.ok()) { logError(s.message()); return 1; }
    // TensorRT's size tensors are int32 (every 10.x takes that): the low half of each little-endian
    // int64 value, which is at most its bound.
    for (int d = 0; d < Op::kNumDataDims; ++d)
      if (cudaMemcpyAsync(sizeTensors[d], slots + d, sizeof(int32_t), cudaMemcpyDeviceToDevice, stream) != cudaSuccess) {
        logError(std::string(Op::kPluginName) + ": writing size tensor " + Op::kInfo.dataDimNames[d] + " failed");
        return 1;
      }
    return 0;
  }

  /** Where the data dims' slots start: after `bytes` of kernel workspace, 8-byte aligned. */
  static void* dataDimSlots(void* workspace, size_t bytes) {
    return static_cast<uint8_t*>(workspace) + ((bytes + 7) & ~size_t(7));
  }

  /** The workspace the kernel needs and, after it, the data dims' slots. */
  static size_t withDataDims(size_t bytes) {
    return Op::kNumDataDims == 0 ? bytes : ((bytes + 7) & ~size_t(7)) + sizeof(int64_t) * Op::kNumDataDims;
  }

  /** What an IPluginV2 says of an op with dims the kernel decides. */
  static constexpr const char* kNoDataDims =
      "has dims the kernel decides (data_dims), which an IPluginV2 cannot declare: use its IPluginV3 (TensorRT 10+), which declares them as size tensors";

 private:
  Attrs attrs_;
  State state_;
  int tactic_ = 0;
  bool configured_ = false;
  Shape configuredShapes_[Op::kMaxInputs];
  int configuredCount_ = 0;
};

/**
 * For ops whose spec has no CUDA kernel: copies the inputs to the host, runs the CPU kernel and
 * copies the outputs back, synchronizing `ctx.stream`. Correct, not fast.
 */
template <class Op>
Status runOnHost(const typename Op::Attrs& attrs, const typename Op::State& state, const RawTensor* inputs, int numIn,
                 const RawTensor* outputs, const CudaContext& ctx) {
  const auto stream = static_cast<cudaStream_t>(ctx.stream);
  std::vector<std::vector<uint8_t>> inHost(static_cast<size_t>(numIn)), outHost(Op::kNumOutputs);
  RawTensor in[Op::kMaxInputs];
  RawTensor out[Op::kNumOutputs + Op::kNumDataDims];
  // Dims the kernel decides: set on the host, copied to their device slots with the outputs.
  int64_t dataDims[Op::kNumDataDims > 0 ? Op::kNumDataDims : 1] = {};
  for (int d = 0; d < Op::kNumDataDims; ++d) {
    dataDims[d] = -1;
    out[Op::kNumOutputs + d] = RawTensor{DType::kInt64, &dataDims[d], Shape{}, true};
  }
  for (int i = 0; i < numIn; ++i) {
    in[i] = inputs[i];
    if (!in[i].present) continue;
    inHost[i].resize(static_cast<size_t>(in[i].shape.numel()) * dtypeSize(in[i].dtype));
    if (!inHost[i].empty() && cudaMemcpyAsync(inHost[i].data(), inputs[i].data, inHost[i].size(), cudaMemcpyDeviceToHost, stream) != cudaSuccess)
      return Status::Error(std::string(Op::kPluginName) + ": copying an input to the host failed");
    in[i].data = inHost[i].data();
  }
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    out[o] = outputs[o];
    if (!out[o].present) continue;
    outHost[o].resize(static_cast<size_t>(out[o].shape.numel()) * dtypeSize(out[o].dtype));
    out[o].data = outHost[o].data();
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess) return Status::Error(std::string(Op::kPluginName) + ": stream synchronization failed");
  std::vector<uint8_t> scratch(ctx.workspaceSize);
  CpuContext cpu;
  cpu.workspace = scratch.empty() ? nullptr : scratch.data();
  cpu.workspaceSize = scratch.size();
  OPFORGE_RETURN_IF_ERROR(Op::runCpu(attrs, state, in, numIn, out, cpu));
  for (int d = 0; d < Op::kNumDataDims; ++d) {
    OPFORGE_RETURN_IF_ERROR(checkDataDim<Op>(d, dataDims[d], dataDim<Op>(out, d).bound));
    if (cudaMemcpyAsync(outputs[Op::kNumOutputs + d].data, &dataDims[d], sizeof(int64_t), cudaMemcpyHostToDevice, stream) != cudaSuccess)
      return Status::Error(std::string(Op::kPluginName) + ": copying a data dim to the device failed");
  }
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    if (!outHost[o].empty() && cudaMemcpyAsync(outputs[o].data, outHost[o].data(), outHost[o].size(), cudaMemcpyHostToDevice, stream) != cudaSuccess)
      return Status::Error(std::string(Op::kPluginName) + ": copying an output to the device failed");
  }
  if (cudaStreamSynchronize(stream) != cudaSuccess) return Status::Error(std::string(Op::kPluginName) + ": stream synchronization failed");
  return Status::Ok();
}

}  // namespace trt
}  // namespace opforge
