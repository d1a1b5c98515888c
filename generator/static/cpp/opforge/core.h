// opforge shared C++ core: types every generated op core and backend adapter uses.
// Header-only, C++17, no dependencies beyond the standard library; usable from nvcc.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__CUDACC__)
#define OPFORGE_HD __host__ __device__
#else
#define OPFORGE_HD
#endif

namespace opforge {

constexpr int kMaxRank = 8;

/** Element types; the order is part of nothing external (names are used on every boundary). */
enum class DType : int32_t { kFloat32, kFloat16, kBFloat16, kFloat64, kInt8, kUInt8, kInt32, kInt64, kBool };

/** DType t as one bit of a set of dtypes. */
constexpr uint32_t dtypeBit(DType t) { return 1u << static_cast<int>(t); }

inline size_t dtypeSize(DType t) {
  switch (t) {
    case DType::kFloat64: case DType::kInt64: return 8;
    case DType::kFloat32: case DType::kInt32: return 4;
    case DType::kFloat16: case DType::kBFloat16: return 2;
    case DType::kInt8: case DType::kUInt8: case DType::kBool: return 1;
  }
  return 0;
}

inline const char* dtypeName(DType t) {
  switch (t) {
    case DType::kFloat32: return "float32";
    case DType::kFloat16: return "float16";
    case DType::kBFloat16: return "bfloat16";
    case DType::kFloat64: return "float64";
    case DType::kInt8: return "int8";
    case DType::kUInt8: return "uint8";
    case DType::kInt32: return "int32";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
  }
  return "unknown";
}

/** IEEE binary16 storage. Arithmetic happens in float; CUDA code may reinterpret as __half. */
struct float16 {
  uint16_t bits;
};

/** bfloat16 storage (upper half of a float32); CUDA code may reinterpret as __nv_bfloat16. */
struct bfloat16 {
  uint16_t bits;
};

OPFORGE_HD inline uint32_t floatBits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
OPFORGE_HD inline float bitsFloat(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

OPFORGE_HD inline float toFloat(float16 h) {
  const uint32_t sign = static_cast<uint32_t>(h.bits & 0x8000u) << 16;
  uint32_t exp = (h.bits >> 10) & 0x1fu;
  uint32_t mant = h.bits & 0x3ffu;
  if (exp == 0x1f) return bitsFloat(sign | 0x7f800000u | (mant << 13));  // inf / nan
  if (exp == 0) {
    if (mant == 0) return bitsFloat(sign);
    // subnormal: normalize
    int e = -1;
    do { mant <<= 1; ++e; } while ((mant & 0x400u) == 0);
    mant &= 0x3ffu;
    exp = static_cast<uint32_t>(127 - 15 - e);
    return bitsFloat(sign | (exp << 23) | (mant << 13));
  }
  return bitsFloat(sign | ((exp + 112u) << 23) | (mant << 13));
}

/** float -> binary16, round to nearest even (matches numpy and CUDA __float2half_rn). */
OPFORGE_HD inline float16 toFloat16(float f) {
  const uint32_t x = floatBits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) return float16{static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u))};
  if (absx >= 0x477ff000u) return float16{static_cast<uint16_t>(sign | 0x7c00u)};  // overflow -> inf
  if (absx < 0x38800000u) {  // subnormal or zero in half
    if (absx < 0x33000000u) return float16{static_cast<uint16_t>(sign)};
    const uint32_t e = absx >> 23;
    const uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;  // 14 - (e - 112) + 13 ... (e in [102,112])
    uint32_t r = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return float16{static_cast<uint16_t>(sign | r)};
  }
  uint32_t r = ((absx - 0x38000000u) >> 13);
  const uint32_t rem = absx & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return float16{static_cast<uint16_t>(sign | r)};
}

OPFORGE_HD inline float toFloat(bfloat16 b) { return bitsFloat(static_cast<uint32_t>(b.bits) << 16); }

OPFORGE_HD inline bfloat16 toBFloat16(float f) {
  uint32_t x = floatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return bfloat16{static_cast<uint16_t>((x >> 16) | 0x40u)};  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return bfloat16{static_cast<uint16_t>(x >> 16)};
}

/** Converts any supported element to float for arithmetic, and back. */
OPFORGE_HD inline float toFloat(float v) { return v; }
OPFORGE_HD inline double toFloat(double v) { return v; }

/** Arithmetic type for an element type: double for double, float for everything else. */
template <typename T> struct ComputeType { using type = float; };
template <> struct ComputeType<double> { using type = double; };
template <typename T> using compute_t = typename ComputeType<T>::type;

/** Converts a computed value back to the element type (round to nearest even for 16-bit floats). */
template <typename T, typename C> OPFORGE_HD inline T fromCompute(C v) { return static_cast<T>(v); }
template <> OPFORGE_HD inline float16 fromCompute<float16, float>(float v) { return toFloat16(v); }
template <> OPFORGE_HD inline bfloat16 fromCompute<bfloat16, float>(float v) { return toBFloat16(v); }
template <typename T> OPFORGE_HD inline compute_t<T> toCompute(T v) { return static_cast<compute_t<T>>(toFloat(v)); }

/** Dims of a tensor (rank <= kMaxRank). */
struct Shape {
  int32_t rank = 0;
  int64_t dims[kMaxRank] = {};

  OPFORGE_HD int64_t operator[](int i) const { return dims[i]; }
  OPFORGE_HD int64_t numel() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  bool operator==(const Shape& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i) if (dims[i] != o.dims[i]) return false;
    return true;
  }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string str() const {
    std::string s = "[";
    for (int i = 0; i < rank; ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
  }
};

/** A typed, contiguous (row-major) tensor the kernel reads or writes. data is null for an absent optional input. */
template <typename T>
struct TensorView {
  T* data = nullptr;
  Shape shape;
  OPFORGE_HD int64_t numel() const { return shape.numel(); }
  OPFORGE_HD bool present() const { return data != nullptr; }
};

/** An untyped tensor as backends hand it over; the op core's dispatch types it. */
struct RawTensor {
  DType dtype = DType::kFloat32;
  void* data = nullptr;
  Shape shape;
  bool present = true;
};

/** Types a raw tensor for a kernel (absent optional inputs get a null data pointer). */
template <typename T>
inline TensorView<T> view(const RawTensor& t) {
  TensorView<T> v;
  v.data = t.present ? static_cast<T*>(t.data) : nullptr;
  v.shape = t.shape;
  return v;
}

/** The most tensors a variadic input takes in one call. */
constexpr int kMaxMembers = 32;

/**
 * A variadic input's members as the kernel sees them: size() views, in order, held by value, so
 * an Io passed to a CUDA kernel carries them (about 2.8 KB for kMaxMembers; CUDA allows 32 KB of
 * kernel parameters from Volta on).
 */
template <typename T>
struct TensorList {
  TensorView<T> items[kMaxMembers];
  int count = 0;
  OPFORGE_HD int size() const { return count; }
  OPFORGE_HD const TensorView<T>& operator[](int i) const { return items[i]; }
  OPFORGE_HD const TensorView<T>* begin() const { return items; }
  OPFORGE_HD const TensorView<T>* end() const { return items + count; }
};

/** A TensorList typed from the raw tensors a backend handed over (the members, n of them). */
template <typename T>
struct Members {
  TensorList<T> of(const RawTensor* raw, int n) const {
    TensorList<T> list;
    for (int i = 0; i < n; ++i) list.items[i] = view<T>(raw[i]);
    list.count = n;
    return list;
  }
};

/** The DType of a C++ element type: `dtypeOf<float>()` is DType::kFloat32 (const ignored). */
template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kFloat32; };
template <> struct DTypeOf<float16> { static constexpr DType value = DType::kFloat16; };
template <> struct DTypeOf<bfloat16> { static constexpr DType value = DType::kBFloat16; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::kFloat64; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kInt8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kUInt8; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kInt32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kInt64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };
template <typename T> OPFORGE_HD constexpr DType dtypeOf() { return DTypeOf<std::remove_const_t<T>>::value; }

/**
 * A member of a heterogeneous variadic input (`homogeneous: false`): its dtype is its own, one of
 * the type variable's. `is<T>()` asks, `as<T>()` gives the typed view (of that dtype only).
 */
struct AnyTensorView {
  DType dtype = DType::kFloat32;
  const void* data = nullptr;
  Shape shape;
  OPFORGE_HD int64_t numel() const { return shape.numel(); }
  template <typename T> OPFORGE_HD bool is() const { return dtype == dtypeOf<T>(); }
  template <typename T> OPFORGE_HD TensorView<const T> as() const {
    TensorView<const T> v;
    v.data = static_cast<const T*>(data);
    v.shape = shape;
    return v;
  }
};

/** A heterogeneous variadic input's members, each with its own dtype; held by value as TensorList. */
struct AnyTensorList {
  AnyTensorView items[kMaxMembers];
  int count = 0;
  OPFORGE_HD int size() const { return count; }
  OPFORGE_HD const AnyTensorView& operator[](int i) const { return items[i]; }
  OPFORGE_HD const AnyTensorView* begin() const { return items; }
  OPFORGE_HD const AnyTensorView* end() const { return items + count; }
};

/** An AnyTensorList of the raw tensors a backend handed over (the members, n of them). */
inline AnyTensorList anyMembers(const RawTensor* raw, int n) {
  AnyTensorList list;
  for (int i = 0; i < n; ++i) {
    list.items[i].dtype = raw[i].dtype;
    list.items[i].data = raw[i].data;
    list.items[i].shape = raw[i].shape;
  }
  list.count = n;
  return list;
}

/**
 * A member of a variadic output that follows a heterogeneous input (its dtype is that input
 * member's): `is<T>()` asks, `as<T>()` gives the writable typed view.
 */
struct AnyOutputView {
  DType dtype = DType::kFloat32;
  void* data = nullptr;
  Shape shape;
  OPFORGE_HD int64_t numel() const { return shape.numel(); }
  template <typename T> OPFORGE_HD bool is() const { return dtype == dtypeOf<T>(); }
  template <typename T> OPFORGE_HD TensorView<T> as() const {
    TensorView<T> v;
    v.data = static_cast<T*>(data);
    v.shape = shape;
    return v;
  }
};

/** Such an output's present members, each with its own dtype; held by value as TensorList. */
struct AnyOutputList {
  AnyOutputView items[kMaxMembers];
  int count = 0;
  OPFORGE_HD int size() const { return count; }
  OPFORGE_HD const AnyOutputView& operator[](int i) const { return items[i]; }
  OPFORGE_HD const AnyOutputView* begin() const { return items; }
  OPFORGE_HD const AnyOutputView* end() const { return items + count; }
};

/** An AnyOutputList of the present ones of a variadic output's `max` raw outputs (they lead). */
inline AnyOutputList presentAnyMembers(const RawTensor* raw, int max) {
  AnyOutputList list;
  while (list.count < max && raw[list.count].present) {
    AnyOutputView& v = list.items[list.count];
    v.dtype = raw[list.count].dtype;
    v.data = raw[list.count].data;
    v.shape = raw[list.count].shape;
    ++list.count;
  }
  return list;
}

/** A variadic output's members: the present ones of its `max` raw outputs (they lead). */
template <typename T>
TensorList<T> presentMembers(const RawTensor* raw, int max) {
  TensorList<T> list;
  while (list.count < max && raw[list.count].present) {
    list.items[list.count] = view<T>(raw[list.count]);
    ++list.count;
  }
  return list;
}

/**
 * A dim the kernel decides (the spec's `data_dims:`): the kernel stores its actual value, at most
 * `bound`, in `*value`, which lies on the kernel's device (a CUDA kernel writes it from device
 * code, or copies it there on the stream). The outputs naming it were allocated at the bound; the
 * kernel writes them contiguously in their actual dims.
 */
struct DataDim {
  int64_t* value = nullptr;
  int64_t bound = 0;
  OPFORGE_HD void set(int64_t n) const { *value = n; }
};

/** Result of a call: ok, or an error message. Host-only. */
class Status {
 public:
  static Status Ok() { return Status(); }
  static Status Error(std::string message) { return Status(std::move(message)); }
  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  Status() = default;
  explicit Status(std::string m) : failed_(true), message_(std::move(m)) {}
  bool failed_ = false;
  std::string message_;
};

#define OPFORGE_RETURN_IF_ERROR(expr)            \
  do {                                           \
    ::opforge::Status opforge_status_ = (expr);  \
    if (!opforge_status_.ok()) return opforge_status_; \
  } while (0)

/** What a CPU kernel gets besides its tensors. */
struct CpuContext {
  void* workspace = nullptr;
  size_t workspaceSize = 0;
};

/** What a CUDA kernel gets: the stream to launch on (a cudaStream_t) and scratch device memory. */
struct CudaContext {
  void* stream = nullptr;
  void* workspace = nullptr;
  size_t workspaceSize = 0;
  // The kernel configuration to run: 0 the default; k > 0 configuration k - 1 of a Triton kernel's
  // `configs:` (TensorRT's tactic, which IPluginV3 sets after timing them all).
  int tactic = 0;
};

// Dim arithmetic for compiled shape expressions; division by zero clears `ok` instead of trapping.
/** Element `i` of a list attribute a check makes sure is long enough where it is read (0 past its end). */
template <class T>
int64_t elementOr0(const std::vector<T>& v, size_t i) { return i < v.size() ? static_cast<int64_t>(v[i]) : 0; }

inline int64_t floorDiv(int64_t a, int64_t b, bool& ok) {
  if (b == 0) { ok = false; return 0; }
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
inline int64_t ceilDiv(int64_t a, int64_t b, bool& ok) {
  if (b == 0) { ok = false; return 0; }
  return -floorDiv(-a, b, ok);
}
inline int64_t floorMod(int64_t a, int64_t b, bool& ok) {
  if (b == 0) { ok = false; return 0; }
  const int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

/**
 * floor(s * f) exactly, f as the float32 it is: f = m * 2^e with |m| < 2^24, so s * m is exact
 * in 128 bits and the power of two a shift (TensorRT's dim expressions compute the same value
 * from m and e). `ok` is cleared for a non-finite f or a result outside int64.
 */
inline int64_t floorScaled(int64_t s, float f, bool& ok) {
  if (!std::isfinite(f)) { ok = false; return 0; }
  if (f == 0.0f || s == 0) return 0;
  int e = 0;
  const int64_t m = static_cast<int64_t>(std::ldexp(std::frexp(f, &e), 24));
  e -= 24;
#if defined(__SIZEOF_INT128__)
  __extension__ typedef __int128 Wide;
  const Wide p = static_cast<Wide>(s) * m;
  const Wide lo = static_cast<Wide>(INT64_MIN), hi = static_cast<Wide>(INT64_MAX);
  if (e >= 0) {
    if (e >= 63 || p > (hi >> e) || p < (lo >> e)) { ok = false; return 0; }
    return static_cast<int64_t>(p * (static_cast<Wide>(1) << e));
  }
  if (-e >= 126) return p < 0 ? -1 : 0;
  const Wide d = static_cast<Wide>(1) << -e;
  Wide q = p / d;
  if (p % d != 0 && p < 0) --q;
  return static_cast<int64_t>(q);
#else
  // Without 128-bit integers: long double, exact while |s * m| < 2^64 on x87 (2^53 elsewhere).
  const long double x = std::floor(static_cast<long double>(s) * std::ldexp(static_cast<long double>(m), e));
  if (!(x >= -9223372036854775808.0L && x < 9223372036854775808.0L)) { ok = false; return 0; }
  return static_cast<int64_t>(x);
#endif
}

/** ceil(s * f) = -floor(-s * f), exactly. */
inline int64_t ceilScaled(int64_t s, float f, bool& ok) {
  if (s == INT64_MIN) { ok = false; return 0; }
  const int64_t r = floorScaled(-s, f, ok);
  if (r == INT64_MIN) { ok = false; return 0; }
  return -r;
}

inline int64_t maxDim(int64_t a, int64_t b) { return a > b ? a : b; }
inline int64_t minDim(int64_t a, int64_t b) { return a < b ? a : b; }

}  // namespace opforge
