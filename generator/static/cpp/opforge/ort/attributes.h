// opforge ONNX Runtime base, attributes: one reader over the two places ORT hands them (kernel
// creation, graph shape inference), with the op core's kinds and the messages every backend uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "opforge/core.h"
#include "opforge/ort/api.h"

namespace opforge {
namespace ort {

// ---- Attributes -------------------------------------------------------------------
// ONNX attribute kinds opforge attribute types map to (type-table.ts, ATTR_INFO[*].onnx).
enum class AttrKind { kMissing, kInt, kFloat, kString, kInts, kFloats, kEmptyList, kOther };

inline const char* attrKindName(AttrKind k) {
  switch (k) {
    case AttrKind::kMissing: return "missing";
    case AttrKind::kInt: return "INT";
    case AttrKind::kFloat: return "FLOAT";
    case AttrKind::kString: return "STRING";
    case AttrKind::kInts: return "INTS";
    case AttrKind::kFloats: return "FLOATS";
    case AttrKind::kEmptyList: return "empty list";
    case AttrKind::kOther: return "another type";
  }
  return "unknown";
}

/**
 * Attributes of one node, read by name and checked by type. Source supplies kind(name) and the
 * raw getters (kernel creation: OrtKernelInfo; graph shape inference: OrtShapeInferContext).
 * The first problem is kept as an error message naming the op and the attribute.
 */
template <class Source>
class AttrReader {
 public:
  AttrReader(const Source& source, const char* op) : source_(source), op_(op) {}

  bool read(const char* name, bool required, bool* out) {
    int64_t v = 0;
    if (!present(name, required, AttrKind::kInt)) return error_.empty();
    if (!source_.getInt(name, &v)) return fail(name, "could not be read");
    if (v != 0 && v != 1) return fail(name, "is a bool and must be 0 or 1, got " + std::to_string(v));
    *out = v != 0;
    return true;
  }
  bool read(const char* name, bool required, int64_t* out) {
    if (!present(name, required, AttrKind::kInt)) return error_.empty();
    return source_.getInt(name, out) || fail(name, "could not be read");
  }
  bool read(const char* name, bool required, float* out) {
    if (!present(name, required, AttrKind::kFloat)) return error_.empty();
    return source_.getFloat(name, out) || fail(name, "could not be read");
  }
  bool read(const char* name, bool required, std::string* out) {
    if (!present(name, required, AttrKind::kString)) return error_.empty();
    return source_.getString(name, out) || fail(name, "could not be read");
  }
  bool read(const char* name, bool required, std::vector<int64_t>* out) {
    if (!present(name, required, AttrKind::kInts)) return error_.empty();
    return source_.getInts(name, out) || fail(name, "could not be read");
  }
  bool read(const char* name, bool required, std::vector<float>* out) {
    if (!present(name, required, AttrKind::kFloats)) return error_.empty();
    return source_.getFloats(name, out) || fail(name, "could not be read");
  }

  /** Empty when every attribute was read. */
  const std::string& error() const { return error_; }

 private:
  /** True when the attribute is there with the expected kind; false (error set if required or mistyped) otherwise. */
  bool present(const char* name, bool required, AttrKind want) {
    if (!error_.empty()) return false;
    const AttrKind k = source_.kind(name);
    if (k == want || (k == AttrKind::kEmptyList && (want == AttrKind::kInts || want == AttrKind::kFloats))) return true;
    if (k == AttrKind::kMissing) {
      if (required) fail(name, "is required");
      return false;  // optional: the spec default stays
    }
    fail(name, std::string("must be an ONNX ") + attrKindName(want) + " attribute, got " + attrKindName(k));
    return false;
  }
  bool fail(const char* name, const std::string& what) {
    if (error_.empty()) error_ = std::string(op_) + ": attribute " + name + " " + what;
    return false;
  }

  const Source& source_;
  const char* op_;
  std::string error_;
};

/** Attributes at kernel creation. The kind is found by probing the typed getters (the C API has no type query here). */
class KernelInfoSource {
 public:
  explicit KernelInfoSource(const OrtKernelInfo* info) : info_(info) {}

  AttrKind kind(const char* name) const {
    int64_t i = 0;
    float f = 0;
    size_t n = 0;
    if (okAndRelease(api().KernelInfoGetAttribute_int64(info_, name, &i))) return AttrKind::kInt;
    if (okAndRelease(api().KernelInfoGetAttribute_float(info_, name, &f))) return AttrKind::kFloat;
    if (okAndRelease(api().KernelInfoGetAttribute_string(info_, name, nullptr, &n))) return AttrKind::kString;
#if ORT_API_VERSION >= 25
    if (okAndRelease(api().KernelInfoGetAttributeArray_string(info_, name, nullptr, nullptr, &n)) && n > 0) return AttrKind::kOther;  // STRINGS
#endif
    // The list getters do not check the list's type (an INTS getter reads a FLOATS attribute as
    // empty): the non-empty one tells; two empty reads are an empty list of either type.
    size_t ni = 0, nf = 0;
    const bool ints = okAndRelease(api().KernelInfoGetAttributeArray_int64(info_, name, nullptr, &ni));
    const bool floats = okAndRelease(api().KernelInfoGetAttributeArray_float(info_, name, nullptr, &nf));
    if (ints && ni > 0) return AttrKind::kInts;
    if (floats && nf > 0) return AttrKind::kFloats;
    if (ints || floats) return AttrKind::kEmptyList;
    return AttrKind::kMissing;  // or a graph/tensor attribute, which no opforge attribute type maps to
  }
  bool getInt(const char* name, int64_t* out) const { return okAndRelease(api().KernelInfoGetAttribute_int64(info_, name, out)); }
  bool getFloat(const char* name, float* out) const { return okAndRelease(api().KernelInfoGetAttribute_float(info_, name, out)); }
  bool getString(const char* name, std::string* out) const {
    size_t n = 0;
    if (!okAndRelease(api().KernelInfoGetAttribute_string(info_, name, nullptr, &n))) return false;
    std::vector<char> buf(n + 1, '\0');
    if (!okAndRelease(api().KernelInfoGetAttribute_string(info_, name, buf.data(), &n))) return false;
    out->assign(buf.data());
    return true;
  }
  bool getInts(const char* name, std::vector<int64_t>* out) const { return getArray(name, out, api().KernelInfoGetAttributeArray_int64); }
  bool getFloats(const char* name, std::vector<float>* out) const { return getArray(name, out, api().KernelInfoGetAttributeArray_float); }

 private:
  template <class T, class Fn>
  bool getArray(const char* name, std::vector<T>* out, Fn fn) const {
    size_t n = 0;
    if (!okAndRelease(fn(info_, name, nullptr, &n))) return false;
    out->assign(n, T{});
    return n == 0 || okAndRelease(fn(info_, name, out->data(), &n));
  }
  const OrtKernelInfo* info_;
};

#if ORT_API_VERSION >= 23
/** Attributes during graph shape inference (OpAttr_GetType needs ONNX Runtime 1.23). */
class ShapeInferSource {
 public:
  explicit ShapeInferSource(const OrtShapeInferContext* ctx) : ctx_(ctx) {}

  AttrKind kind(const char* name) const {
    const OrtOpAttr* a = find(name);
    if (a == nullptr) return AttrKind::kMissing;
    OrtOpAttrType t = ORT_OP_ATTR_UNDEFINED;
    if (!okAndRelease(api().OpAttr_GetType(a, &t))) return AttrKind::kOther;
    switch (t) {
      case ORT_OP_ATTR_INT: return AttrKind::kInt;
      case ORT_OP_ATTR_FLOAT: return AttrKind::kFloat;
      case ORT_OP_ATTR_STRING: return AttrKind::kString;
      case ORT_OP_ATTR_INTS: return AttrKind::kInts;
      case ORT_OP_ATTR_FLOATS: return AttrKind::kFloats;
      default: return AttrKind::kOther;
    }
  }
  bool getInt(const char* name, int64_t* out) const { return readScalar(name, ORT_OP_ATTR_INT, out); }
  bool getFloat(const char* name, float* out) const { return readScalar(name, ORT_OP_ATTR_FLOAT, out); }
  bool getString(const char* name, std::string* out) const {
    std::vector<char> buf;
    if (!readBytes(name, ORT_OP_ATTR_STRING, &buf)) return false;
    buf.push_back('\0');
    out->assign(buf.data());
    return true;
  }
  bool getInts(const char* name, std::vector<int64_t>* out) const { return readArray(name, ORT_OP_ATTR_INTS, out); }
  bool getFloats(const char* name, std::vector<float>* out) const { return readArray(name, ORT_OP_ATTR_FLOATS, out); }

 private:
  const OrtOpAttr* find(const char* name) const {
    const OrtOpAttr* a = nullptr;
    return okAndRelease(api().ShapeInferContext_GetAttribute(ctx_, name, &a)) ? a : nullptr;
  }
  template <class T>
  bool readScalar(const char* name, OrtOpAttrType t, T* out) const {
    const OrtOpAttr* a = find(name);
    size_t n = 0;
    return a != nullptr && okAndRelease(api().ReadOpAttr(a, t, out, sizeof(T), &n));
  }
  bool readBytes(const char* name, OrtOpAttrType t, std::vector<char>* out) const {
    const OrtOpAttr* a = find(name);
    if (a == nullptr) return false;
    size_t n = 0;
    okAndRelease(api().ReadOpAttr(a, t, nullptr, 0, &n));  // size query: fails, reports the bytes needed
    out->assign(n, '\0');
    return n == 0 || okAndRelease(api().ReadOpAttr(a, t, out->data(), n, &n));
  }
  template <class T>
  bool readArray(const char* name, OrtOpAttrType t, std::vector<T>* out) const {
    std::vector<char> bytes;
    if (!readBytes(name, t, &bytes)) return false;
    out->assign(bytes.size() / sizeof(T), T{});
    if (!out->empty()) memcpy(out->data(), bytes.data(), out->size() * sizeof(T));
    return true;
  }
  const OrtShapeInferContext* ctx_;
};
#endif

}  // namespace ort
}  // namespace opforge
