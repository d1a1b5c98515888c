// opforge serialization: the byte layout of an op's attributes and state, as stored in
// TensorRT engines and anywhere else an op instance is persisted. Little-endian.
//
//   header (20 bytes): magic "OPFG" | u16 format | u16 op version | u32 hash("domain::name")
//                      | u32 payload bytes | u32 FNV-1a of payload
//   payload: per field, u8 tag then the value (bool u8, int i64, float f32,
//            string u32 length + bytes, ints u32 count + i64s, floats u32 count + f32s)
//
// Reading is bounds-checked: a truncated, oversized or corrupted buffer is reported, never read past.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "opforge/core.h"

namespace opforge {
namespace serial {

constexpr uint32_t kMagic = 0x4746504fu;  // "OPFG" read as little-endian u32
constexpr uint16_t kFormat = 1;
constexpr size_t kHeaderSize = 20;
constexpr uint32_t kMaxElements = 1u << 20;

enum Tag : uint8_t { kBool = 1, kInt = 2, kFloat = 3, kString = 4, kInts = 5, kFloats = 6 };

inline uint32_t fnv1a(const void* data, size_t n, uint32_t h = 2166136261u) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (size_t i = 0; i < n; ++i) { h ^= p[i]; h *= 16777619u; }
  return h;
}

/** Sizes of fields, for serializedSize(). */
inline size_t sizeOf(bool) { return 1 + 1; }
inline size_t sizeOf(int64_t) { return 1 + 8; }
inline size_t sizeOf(float) { return 1 + 4; }
inline size_t sizeOf(const std::string& s) { return 1 + 4 + s.size(); }
inline size_t sizeOf(const std::vector<int64_t>& v) { return 1 + 4 + 8 * v.size(); }
inline size_t sizeOf(const std::vector<float>& v) { return 1 + 4 + 4 * v.size(); }

/** Writes into a buffer the caller sized with serializedSize(). */
class Writer {
 public:
  explicit Writer(void* buffer) : p_(static_cast<uint8_t*>(buffer)) {}
  void raw(const void* d, size_t n) { if (n) memcpy(p_, d, n); p_ += n; }
  template <typename T> void pod(T v) {
    uint8_t b[sizeof(T)];
    memcpy(b, &v, sizeof(T));
    raw(b, sizeof(T));  // hosts we target are little-endian; checked by static_assert below
  }
  void field(bool v) { pod<uint8_t>(kBool); pod<uint8_t>(v ? 1 : 0); }
  void field(int64_t v) { pod<uint8_t>(kInt); pod(v); }
  void field(float v) { pod<uint8_t>(kFloat); pod(v); }
  void field(const std::string& v) { pod<uint8_t>(kString); pod(static_cast<uint32_t>(v.size())); raw(v.data(), v.size()); }
  void field(const std::vector<int64_t>& v) { pod<uint8_t>(kInts); pod(static_cast<uint32_t>(v.size())); for (int64_t x : v) pod(x); }
  void field(const std::vector<float>& v) { pod<uint8_t>(kFloats); pod(static_cast<uint32_t>(v.size())); for (float x : v) pod(x); }
  uint8_t* position() const { return p_; }

 private:
  uint8_t* p_;
};

/** Bounds-checked reader: every failure sets an error and makes later reads fail too. */
class Reader {
 public:
  Reader(const void* data, size_t size) : p_(static_cast<const uint8_t*>(data)), end_(p_ + size) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  void fail(const std::string& why) { if (error_.empty()) error_ = why; }

  bool raw(void* out, size_t n) {
    if (!ok()) return false;
    if (remaining() < n) { fail("buffer truncated"); return false; }
    if (n) memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  template <typename T> bool pod(T& v) { return raw(&v, sizeof(T)); }

  bool expectTag(Tag t, const char* name) {
    uint8_t got = 0;
    if (!pod(got)) return false;
    if (got != t) { fail(std::string("field '") + name + "' has the wrong type tag"); return false; }
    return true;
  }
  bool field(bool& v, const char* name) {
    uint8_t b = 0;
    if (!expectTag(kBool, name) || !pod(b)) return false;
    if (b > 1) { fail(std::string("field '") + name + "' is not a bool"); return false; }
    v = b != 0;
    return true;
  }
  bool field(int64_t& v, const char* name) { return expectTag(kInt, name) && pod(v); }
  bool field(float& v, const char* name) { return expectTag(kFloat, name) && pod(v); }
  bool field(std::string& v, const char* name) {
    uint32_t n = 0;
    if (!expectTag(kString, name) || !pod(n)) return false;
    if (n > remaining()) { fail(std::string("field '") + name + "' is longer than the buffer"); return false; }
    v.assign(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return true;
  }
  template <typename T>
  bool list(std::vector<T>& v, Tag tag, const char* name) {
    uint32_t n = 0;
    if (!expectTag(tag, name) || !pod(n)) return false;
    if (n > kMaxElements || static_cast<size_t>(n) * sizeof(T) > remaining()) {
      fail(std::string("field '") + name + "' has more elements than the buffer holds");
      return false;
    }
    v.resize(n);
    for (uint32_t i = 0; i < n; ++i) pod(v[i]);
    return ok();
  }
  bool field(std::vector<int64_t>& v, const char* name) { return list(v, kInts, name); }
  bool field(std::vector<float>& v, const char* name) { return list(v, kFloats, name); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  std::string error_;
};

inline void writeHeader(Writer& w, uint16_t opVersion, uint32_t opHash, uint32_t payloadSize, uint32_t payloadHash) {
  w.pod(kMagic);
  w.pod(kFormat);
  w.pod(opVersion);
  w.pod(opHash);
  w.pod(payloadSize);
  w.pod(payloadHash);
}

/** Checks the header against the op and the buffer; on success `payload` covers the payload bytes. */
inline Status readHeader(const void* data, size_t size, uint16_t opVersion, uint32_t opHash, const char* opName, Reader& payload) {
  if (data == nullptr) return Status::Error(std::string(opName) + ": null serialization buffer");
  if (size < kHeaderSize) return Status::Error(std::string(opName) + ": serialized data is " + std::to_string(size) + " bytes, shorter than the header");
  Reader r(data, size);
  uint32_t magic = 0, hash = 0, payloadSize = 0, payloadHash = 0;
  uint16_t format = 0, version = 0;
  r.pod(magic); r.pod(format); r.pod(version); r.pod(hash); r.pod(payloadSize); r.pod(payloadHash);
  if (magic != kMagic) return Status::Error(std::string(opName) + ": not opforge serialized data (bad magic)");
  if (format != kFormat) return Status::Error(std::string(opName) + ": unsupported serialization format " + std::to_string(format));
  if (hash != opHash) return Status::Error(std::string(opName) + ": serialized data belongs to a different op");
  if (version != opVersion) return Status::Error(std::string(opName) + ": serialized by op version " + std::to_string(version) + ", this is version " + std::to_string(opVersion));
  if (payloadSize != size - kHeaderSize) return Status::Error(std::string(opName) + ": payload size " + std::to_string(payloadSize) + " does not match the buffer (" + std::to_string(size - kHeaderSize) + " bytes)");
  const uint8_t* body = static_cast<const uint8_t*>(data) + kHeaderSize;
  if (fnv1a(body, payloadSize) != payloadHash) return Status::Error(std::string(opName) + ": serialized data is corrupted (checksum mismatch)");
  payload = Reader(body, payloadSize);
  return Status::Ok();
}

static_assert(sizeof(float) == 4 && sizeof(int64_t) == 8, "opforge serialization assumes 32-bit float and 64-bit int64_t");
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "opforge serialization assumes a little-endian host"
#endif

}  // namespace serial
}  // namespace opforge
