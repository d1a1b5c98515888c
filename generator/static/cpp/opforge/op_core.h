// opforge op core, the generic part: what every op core header (opforge/ops/<op>.h) would
// otherwise repeat. An op header states its facts as constexpr tables (an OpInfo) and defines
// only what differs per op (attribute checks, shape expressions, the typed kernel calls); type
// inference, dispatch, serialization and the input checks below read those tables. Backends
// (TensorRT, ONNX Runtime, ...) read the same tables through the op's Core.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "opforge/core.h"
#include "opforge/serialize.h"

namespace opforge {

/** Number of DType values; the most type variables an op may have. */
constexpr int kNumDTypes = 9;
constexpr int kMaxTypeVars = 16;

/** Attribute types, as the spec names them. */
enum class AttrType : int32_t { kBool, kInt, kFloat, kString, kInts, kFloats };

/** One attribute: its name, type and whether the spec requires it. */
struct AttrInfo {
  const char* name;
  AttrType type;
  bool required;
};

/** A type variable: the input that binds it (its first required one) and the dtypes it allows, in spec order. */
struct TypeVarInfo {
  const char* name;
  int binder;  // the input whose dtype it takes; -1: the attributes choose it (the op's inferTypes)
  int numDtypes;
  DType dtypes[kNumDTypes];
};

/**
 * An op's facts. Ports are the inputs then the outputs. Tables that would be empty (no type
 * variables, no attributes) hold one unused element: loops are bounded by the counts.
 */
struct OpInfo {
  const char* name;
  const char* domain;
  int32_t version;
  uint32_t hash;  // fnv1a("domain::name"), checked by deserialize()
  int numInputs;
  int numOutputs;
  int numBindings;  // dtype combinations of the type variables (1 without any)
  int numTypeVars;
  int numAttributes;
  const char* const* inputNames;
  const char* const* outputNames;
  const bool* inputOptional;
  const bool* inputShapeOnly;
  const int32_t* inputRank;  // -1: any rank up to kMaxRank, or one of inputRanks
  const uint32_t* inputRanks;  // bit r: rank r allowed, where the spec lists several ranks; 0: see inputRank
  const int* inputLike;      // the input one must be shaped like, or -1
  const int* outputLike;     // the input an output is shaped like, or -1 (its dims are computed)
  const int* portVar;        // type variable of each port, or -1 for a fixed dtype
  const DType* portDtype;    // the fixed dtype of a port (where portVar is -1)
  const TypeVarInfo* typeVars;
  const char* const* bindingNames;  // suffix of each binding ("f32_i64"; "" without type variables)
  const DType* bindingDtypes;       // [binding][port], row-major: every port's dtype under each binding
  const AttrInfo* attributes;
  bool hasCuda;
  bool hasConfigure;
  int minOutputs;  // outputs every node has; those after them have `present:` conditions (presentOutputs)
  int minMembers;  // the last input is variadic with at least this many members; 0: no variadic input
  int numDataDims;  // dims the kernel decides (`data_dims:`); a call's raw outputs end with one int64 slot each
  const char* const* dataDimNames;
  const int8_t* outputDataDims;  // [output][axis], kMaxRank a row: the data dim at that axis, or -1
  // Per port: bit t set where each member may have DType t on its own (a heterogeneous variadic
  // input, `homogeneous: false`, and a variadic output following it); 0 for every other port.
  // nullptr: the op has no such input.
  const uint32_t* portEach = nullptr;
  // Per output: the input tensor (a heterogeneous input's member) whose dtype it has, or -1.
  // nullptr: no output follows one.
  const int* outputFollows = nullptr;
  // Configurations of the CUDA kernel (a Triton kernel's `configs:`) that TensorRT's IPluginV3 may
  // time as tactics 1..numTactics (CudaContext::tactic); 0: one configuration, no tactics.
  int numTactics = 0;
};

// Core's functions call the op's own free functions (validate, runCpu, ...) unqualified from
// here: argument-dependent lookup finds them in the op's namespace, where its Attrs lives. So
// Core can be declared before them and no op header lists its functions twice.
namespace adl {
template <class A> Status validate_(const A& a) { return validate(a); }
template <class A> Status inferTypes_(const A& a, const DType* in, const bool* p, int n, DType* out, int* b) { return inferTypes(a, in, p, n, out, b); }
template <class A, class S> size_t serializedSize_(const A& a, const S& s) { return serializedSize(a, s); }
template <class A, class S> void serialize_(const A& a, const S& s, void* b) { serialize(a, s, b); }
template <class A, class S> Status deserialize_(const void* d, size_t n, A* a, S* s) { return deserialize(d, n, a, s); }
template <class A> Status checkShapes_(const A& a, const Shape* in, const bool* p, int n) { return checkShapes(a, in, p, n); }
template <class A> Status inferShapes_(const A& a, const Shape* in, int n, Shape* out) { return inferShapes(a, in, n, out); }
template <class A> Status presentOutputs_(const A& a, bool* p) { return presentOutputs(a, p); }
template <class A> Status workspaceSize_(const A& a, const Shape* in, const DType* t, int n, size_t* b) { return workspaceSize(a, in, t, n, b); }
template <class A, class S, class C>
Status runCpu_(const A& a, const S& s, const RawTensor* in, int n, const RawTensor* out, const C& c) { return runCpu(a, s, in, n, out, c); }
template <class A, class S, class C>
Status runCuda_(const A& a, const S& s, const RawTensor* in, int n, const RawTensor* out, const C& c) { return runCuda(a, s, in, n, out, c); }
template <class A, class S> Status configure_(const A& a, const Shape* in, S* s) { return configure(a, in, s); }
}  // namespace adl

template <const OpInfo& I> Status inferTypesOf(const DType*, int, const DType*, const bool*, DType*, int*);

/**
 * An op core as a type: what every backend adapter is instantiated with. `struct Core :
 * CoreOf<kInfo, Attrs, State> {};` in an op header; runCuda and configure exist where the op
 * defines them (kHasCuda, kHasConfigure say so for `if constexpr`).
 */
template <const OpInfo& I, class A, class S>
struct CoreOf {
  using Attrs = A;
  using State = S;
  static constexpr const OpInfo& kInfo = I;
  static constexpr const char* kName = I.name;
  static constexpr const char* kDomain = I.domain;
  static constexpr int32_t kVersion = I.version;
  static constexpr int kNumInputs = I.numInputs;
  static constexpr int kNumOutputs = I.numOutputs;
  static constexpr int kNumPorts = I.numInputs + I.numOutputs;
  static constexpr int kNumBindings = I.numBindings;
  static constexpr int kNumAttributes = I.numAttributes;
  static constexpr const char* const* kInputNames = I.inputNames;
  static constexpr const char* const* kOutputNames = I.outputNames;
  static constexpr const bool* kInputOptional = I.inputOptional;
  static constexpr const int32_t* kInputRank = I.inputRank;
  static constexpr const uint32_t* kInputRanks = I.inputRanks;
  static constexpr const int* kOutputLike = I.outputLike;
  static constexpr const int* kPortVar = I.portVar;
  static constexpr const char* const* kBindingNames = I.bindingNames;
  static constexpr const AttrInfo* kAttributes = I.attributes;
  static constexpr bool kHasCuda = I.hasCuda;
  static constexpr int kNumTactics = I.numTactics;
  static constexpr bool kHasConfigure = I.hasConfigure;
  /** Outputs every node has; the rest are present where their `present:` condition holds. */
  static constexpr int kMinOutputs = I.minOutputs;
  /**
   * A variadic last input: a call's tensors are the other inputs, then kMinMembers or more members
   * (at most kMaxMembers); every array of input tensors, shapes, dtypes and flags is in that order,
   * numIn long. Without one, numIn is kNumInputs.
   */
  static constexpr bool kVariadic = I.minMembers > 0;
  static constexpr int kMinMembers = I.minMembers;
  static constexpr int kMinInputs = kVariadic ? I.numInputs - 1 + I.minMembers : I.numInputs;
  static constexpr int kMaxInputs = kVariadic ? I.numInputs - 1 + kMaxMembers : I.numInputs;
  /** The input (port) tensor `t` of a call belongs to: itself, or the variadic input for its members. */
  static constexpr int portOf(int t) { return t < I.numInputs ? t : I.numInputs - 1; }
  /** Tensor `t` as messages name it: `input x`, or `input feats (member 2)`. */
  static std::string inputName(int t) {
    const int p = portOf(t);
    std::string s = std::string("input ") + I.inputNames[p];
    if (kVariadic && p == I.numInputs - 1) s += " (member " + std::to_string(t - p) + ")";
    return s;
  }
  /** Whether a call may have `numIn` input tensors; the error names the op and the counts. */
  static Status checkCount(int numIn) {
    if (numIn >= kMinInputs && numIn <= kMaxInputs) return Status::Ok();
    if (!kVariadic) return Status::Error(std::string(I.name) + ": " + std::to_string(numIn) + " inputs given, expected " + std::to_string(I.numInputs));
    return Status::Error(std::string(I.name) + ": input " + I.inputNames[I.numInputs - 1] + " has " + std::to_string(numIn - I.numInputs + 1) + " members; it takes " + std::to_string(I.minMembers) + " to " + std::to_string(kMaxMembers));
  }

  /**
   * Dims the kernel decides: a call's raw outputs are the kNumOutputs outputs (allocated at the
   * bounds), then one rank-0 int64 slot per data dim, on the kernel's device, which it sets.
   */
  static constexpr int kNumDataDims = I.numDataDims;
  /** The data dim at `axis` of output `o`, or -1. */
  static constexpr int dataDimAt(int o, int axis) { return I.numDataDims == 0 ? -1 : I.outputDataDims[o * kMaxRank + axis]; }

  /** The input tensor whose dtype output `o` has (a member of a variadic output following a heterogeneous input's), or -1. */
  static constexpr int followsInput(int o) { return I.outputFollows != nullptr ? I.outputFollows[o] : -1; }
  /** Whether each member of `port` has a dtype of its own (a heterogeneous variadic input, or an output following one): portAllows says which. */
  static constexpr bool eachDtype(int port) { return I.portEach != nullptr && I.portEach[port] != 0; }
  /** The dtype of `port` under binding `b` (a heterogeneous input's: its first allowed; see eachDtype). */
  static DType bindingDtype(int b, int port) { return I.bindingDtypes[b * kNumPorts + port]; }
  /** Whether `port` may have dtype `t` (under some binding). */
  static bool portAllows(int port, DType t) {
    if (eachDtype(port)) return (I.portEach[port] >> static_cast<int>(t)) & 1u;
    if (I.portVar[port] < 0) return t == I.portDtype[port];
    const TypeVarInfo& v = I.typeVars[I.portVar[port]];
    for (int k = 0; k < v.numDtypes; ++k) if (v.dtypes[k] == t) return true;
    return false;
  }

  static Status validate(const Attrs& a) { return adl::validate_(a); }
  static size_t serializedSize(const Attrs& a, const State& s) { return adl::serializedSize_(a, s); }
  static void serialize(const Attrs& a, const State& s, void* buffer) { adl::serialize_(a, s, buffer); }
  static Status deserialize(const void* data, size_t size, Attrs* a, State* s) { return adl::deserialize_(data, size, a, s); }
  /** Input dtypes checked, output dtypes inferred (a type variable the attributes choose, from them). */
  static Status inferTypes(const Attrs& a, const DType* in, const bool* present, int numIn, DType* out, int* binding) { return adl::inferTypes_(a, in, present, numIn, out, binding); }
  /** Whether type variable `var` is chosen by the attributes rather than taken from an input. */
  static bool isChosen(int var) { return var >= 0 && I.typeVars[var].binder < 0; }
  /** The input count first: every array a backend hands over is numIn long. */
  static Status checkShapes(const Attrs& a, const Shape* in, const bool* present, int numIn) {
    OPFORGE_RETURN_IF_ERROR(checkCount(numIn));
    return adl::checkShapes_(a, in, present, numIn);
  }
  static Status inferShapes(const Attrs& a, const Shape* in, int numIn, Shape* out) { return adl::inferShapes_(a, in, numIn, out); }
  /** Which outputs a node with these attributes has, and how many (the present ones come first). */
  static Status outputsPresent(const Attrs& a, bool* present, int* count);
  /** Scratch bytes for these input shapes and dtypes (`types[i]` of each present input: sizeof(T)). */
  static Status workspaceSize(const Attrs& a, const Shape* in, const DType* types, int numIn, size_t* bytes) { return adl::workspaceSize_(a, in, types, numIn, bytes); }
  static Status runCpu(const Attrs& a, const State& s, const RawTensor* in, int numIn, const RawTensor* out, const CpuContext& c) { return adl::runCpu_(a, s, in, numIn, out, c); }
  static Status runCuda(const Attrs& a, const State& s, const RawTensor* in, int numIn, const RawTensor* out, const CudaContext& c) { return adl::runCuda_(a, s, in, numIn, out, c); }
  static Status configure(const Attrs& a, const Shape* in, State* s) { return adl::configure_(a, in, s); }
};

// ---- Errors the op headers raise --------------------------------------------------------------

/** `op` + `what` (what starts with ": "). */
inline Status fail(const char* op, const char* what) { return Status::Error(std::string(op) + what); }

/**
 * A value as a message shows it: floats in the fewest digits that read back as the same value
 * (`1e-30`, `0.1`; std::to_string's fixed six decimals shows 1e-30 as 0.000000).
 */
template <class T>
std::string shownValue(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    char buf[32];
    for (int digits = 6; digits <= 17; ++digits) {
      std::snprintf(buf, sizeof buf, "%.*g", digits, static_cast<double>(v));
      if (static_cast<T>(std::strtod(buf, nullptr)) == v) break;
    }
    return buf;
  } else {
    return std::to_string(v);
  }
}

/** `op` + `what` + the offending value. */
template <class T>
Status failGot(const char* op, const char* what, T got) { return Status::Error(std::string(op) + what + shownValue(got)); }

/** A value of a check's message: bools as true/false, strings quoted, lists in brackets. */
inline std::string shownField(bool v) { return v ? "true" : "false"; }
inline std::string shownField(const std::string& v) { return "'" + v + "'"; }
template <class T>
std::string shownField(const std::vector<T>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + shownValue(v[i]);
  return s + "]";
}
template <class T>
std::string shownField(T v) { return shownValue(v); }

/** kNoBound: a slice bound the spec leaves out (`x[1:]`, `x[:2]`). */
inline constexpr int64_t kNoBound = INT64_MIN;

/**
 * The dims [start, end) of a shape that a check compares (Python's bounds; kNoBound: missing,
 * negative: from the end); rank -1 when the bounds fall outside its dims.
 */
inline Shape dimsSlice(const Shape& s, int64_t start, int64_t end) {
  Shape out;
  const int64_t r = s.rank;
  const int64_t a = start == kNoBound ? 0 : start < 0 ? r + start : start;
  const int64_t b = end == kNoBound ? r : end < 0 ? r + end : end;
  if (a < 0 || b > r || b < a) {
    out.rank = -1;
    return out;
  }
  out.rank = static_cast<int32_t>(b - a);
  for (int64_t d = a; d < b; ++d) out.dims[d - a] = s.dims[d];
  return out;
}

/** A check's `==` (equal) or `!=` of two slices of dims; false when either lies outside its input's dims. */
inline bool sameDims(const Shape& a, const Shape& b, bool equal) { return a.rank >= 0 && b.rank >= 0 && (a == b) == equal; }

/** A slice of dims as a check's message shows it. */
inline std::string shownField(const Shape& s) { return s.rank < 0 ? "(outside its dims)" : s.str(); }

/** A failed entry of the spec's `checks:`: the op, the check as written, the values it read, the spec's words. */
inline Status checkFailed(const char* op, const char* check, std::initializer_list<std::pair<const char*, std::string>> values,
                          const char* message) {
  std::string s = std::string(op) + ": check '" + check + "' failed (";
  bool first = true;
  for (const auto& v : values) {
    s += std::string(first ? "" : ", ") + v.first + " = " + v.second;
    first = false;
  }
  s += ")";
  if (*message) s += std::string(": ") + message;
  return Status::Error(s);
}

/** A division by zero in a compiled shape expression. */
inline Status divisionByZero(const char* op, const char* where) {
  return Status::Error(std::string(op) + ": division by zero in " + where);
}

/** Whether `v` is one of `values` (an attribute's enum). */
template <class T, class E>
bool oneOf(const T& v, std::initializer_list<E> values) {
  for (const auto& e : values) if (v == e) return true;
  return false;
}

// ---- Types ------------------------------------------------------------------------------------

inline std::string dtypeList(const TypeVarInfo& v) {
  std::string s;
  for (int k = 0; k < v.numDtypes; ++k) s += (k ? ", " : "") + std::string(dtypeName(v.dtypes[k]));
  return s;
}

/**
 * Checks input dtypes against the type constraints and infers output dtypes. Each type variable
 * takes its binder's dtype, or (binder -1) the one the attributes chose (`chosen[k]`); binding is
 * the mixed-radix index of the variables' dtypes (last variable fastest), the order of the op's
 * bindings and kernel overloads.
 */
template <const OpInfo& I>
Status inferTypesOf(const DType* inputs, int numIn, const DType* chosen, const bool* present, DType* outputs, int* binding) {
  static_assert(I.numTypeVars <= kMaxTypeVars, "too many type variables");
  DType vars[kMaxTypeVars] = {};
  int index = 0;
  for (int k = 0; k < I.numTypeVars; ++k) {
    const TypeVarInfo& v = I.typeVars[k];
    vars[k] = v.binder >= 0 ? inputs[v.binder] : chosen[k];
    int ordinal = -1;
    for (int j = 0; j < v.numDtypes; ++j) if (v.dtypes[j] == vars[k]) ordinal = j;
    if (ordinal < 0 && v.binder < 0)
      return Status::Error(std::string(I.name) + ": the attributes choose dtype " + dtypeName(vars[k]) + " for " + v.name + ", which allows " + dtypeList(v));
    if (ordinal < 0)
      return Status::Error(std::string(I.name) + ": input " + I.inputNames[v.binder] + " has dtype " + dtypeName(vars[k]) + "; " + v.name + " allows " + dtypeList(v));
    index = index * v.numDtypes + ordinal;
  }
  const int n = I.minMembers > 0 ? numIn : I.numInputs;  // constant without a variadic input
  for (int t = 0; t < n; ++t) {
    const int i = t < I.numInputs ? t : I.numInputs - 1;  // a variadic input's members: its port
    if (I.inputOptional[i] && !present[t]) continue;
    if (I.portEach != nullptr && I.portEach[i] != 0) {  // a heterogeneous variadic input: each member on its own
      if ((I.portEach[i] >> static_cast<int>(inputs[t])) & 1u) continue;
      std::string allowed;
      for (int d = 0; d < 32; ++d)
        if ((I.portEach[i] >> d) & 1u) allowed += (allowed.empty() ? "" : ", ") + std::string(dtypeName(static_cast<DType>(d)));
      return Status::Error(std::string(I.name) + ": input " + I.inputNames[i] + " (member " + std::to_string(t - i) + ") has dtype " + dtypeName(inputs[t]) + ", expected one of " + allowed);
    }
    const DType want = I.portVar[i] >= 0 ? vars[I.portVar[i]] : I.portDtype[i];
    if (inputs[t] != want) {
      const std::string member = t > i ? " (member " + std::to_string(t - i) + ")" : "";
      return Status::Error(std::string(I.name) + ": input " + I.inputNames[i] + member + " has dtype " + dtypeName(inputs[t]) + ", expected " + dtypeName(want));
    }
  }
  for (int o = 0; o < I.numOutputs; ++o) {
    const int p = I.numInputs + o;
    outputs[o] = I.portVar[p] >= 0 ? vars[I.portVar[p]] : I.portDtype[p];
    // A member of a variadic output that follows a heterogeneous input's: that member's dtype (a
    // member the input lacks is absent: a spec check makes sure of it).
    if (I.outputFollows != nullptr && I.outputFollows[o] >= 0 && I.outputFollows[o] < numIn) outputs[o] = inputs[I.outputFollows[o]];
  }
  *binding = index;
  return Status::Ok();
}

/**
 * The outputs a node with these attributes has: present[o] for each, and their count. A node lists
 * outputs by position (ONNX, TensorRT), so the present ones must come first.
 */
template <const OpInfo& I, class A, class S>
Status CoreOf<I, A, S>::outputsPresent(const A& a, bool* present, int* count) {
  for (int o = 0; o < I.numOutputs; ++o) present[o] = true;
  *count = I.numOutputs;
  if constexpr (I.minOutputs == I.numOutputs) {  // no `present:` (the else: nvcc warns of code it cannot reach)
    (void)a;
    return Status::Ok();
  } else {
    OPFORGE_RETURN_IF_ERROR(adl::presentOutputs_(a, present));
    int n = 0;
    for (int o = 0; o < I.numOutputs; ++o) {
      if (!present[o]) continue;
      if (o != n) return Status::Error(std::string(I.name) + ": output " + I.outputNames[o] + " is present but output " + I.outputNames[n] + " before it is absent; a node lists its outputs by position");
      ++n;
    }
    *count = n;
    return Status::Ok();
  }
}

/**
 * What a kernel call needs checked before its tensors are typed: required inputs present, input
 * dtypes allowed, output dtypes the inferred ones, exactly the outputs the attributes ask for.
 * Sets the binding (the overload to call).
 */
template <class Core>
Status bindingOf(const typename Core::Attrs& attrs, const RawTensor* inputs, int numIn, const RawTensor* outputs, int* binding) {
  OPFORGE_RETURN_IF_ERROR(Core::checkCount(numIn));
  DType inDtypes[Core::kMaxInputs] = {};
  bool present[Core::kMaxInputs] = {};
  // A constant bound where the count is fixed (checkCount made sure): the compiler sees the
  // caller's array is never overrun (-Warray-bounds under -O3).
  const int n = Core::kVariadic ? numIn : Core::kNumInputs;
  for (int i = 0; i < n; ++i) {
    inDtypes[i] = inputs[i].dtype;
    present[i] = inputs[i].present;
    if (!present[i] && !Core::kInputOptional[Core::portOf(i)]) return Status::Error(std::string(Core::kName) + ": " + Core::inputName(i) + " is required");
  }
  DType outDtypes[Core::kNumOutputs] = {};
  *binding = -1;
  OPFORGE_RETURN_IF_ERROR(Core::inferTypes(attrs, inDtypes, present, numIn, outDtypes, binding));
  bool wanted[Core::kNumOutputs] = {};
  int count = 0;
  OPFORGE_RETURN_IF_ERROR(Core::outputsPresent(attrs, wanted, &count));
  for (int o = 0; o < Core::kNumOutputs; ++o) {
    if (outputs[o].present != wanted[o]) return Status::Error(std::string(Core::kName) + ": output " + Core::kOutputNames[o] + (wanted[o] ? " is missing; the attributes ask for it" : " is given; the attributes leave it out"));
    if (!wanted[o]) continue;
    if (outputs[o].dtype != outDtypes[o]) return Status::Error(std::string(Core::kName) + ": output " + Core::kOutputNames[o] + " has dtype " + dtypeName(outputs[o].dtype) + ", expected " + dtypeName(outDtypes[o]));
  }
  return Status::Ok();
}

/** The error for a binding no overload takes (cannot happen after bindingOf). */
template <class Core>
Status noKernel() { return Status::Error(std::string(Core::kName) + ": no kernel for these dtypes"); }

// ---- Shapes -----------------------------------------------------------------------------------

/** Whether a rank is among those of a mask (bit r: rank r). */
inline bool rankAllowed(uint32_t mask, int32_t rank) { return rank >= 0 && rank <= kMaxRank && ((mask >> rank) & 1u) != 0; }

/** The ranks of a mask as messages give them: "4 or 5". */
inline std::string rankList(uint32_t mask) {
  std::string s;
  int last = -1;
  for (int r = 0; r <= kMaxRank; ++r) if ((mask >> r) & 1u) last = r;
  for (int r = 0; r <= kMaxRank; ++r) {
    if (!((mask >> r) & 1u)) continue;
    if (!s.empty()) s += r == last ? " or " : ", ";
    s += std::to_string(r);
  }
  return s;
}

/**
 * Checks inputs [from, to) in order: rank (the spec's, or at most kMaxRank), no negative dim, and
 * the shape of the input they must be shaped like. Absent optional inputs are skipped.
 */
template <class Core>
Status checkInputShapes(int from, int to, const Shape* inputs, const bool* present) {
  const OpInfo& I = Core::kInfo;
  for (int t = from; t < to; ++t) {
    const int i = Core::portOf(t);  // a variadic input's members: each checked as the input
    if (I.inputOptional[i] && !present[t]) continue;
    const Shape& s = inputs[t];
    const std::string name = std::string(I.name) + ": " + Core::inputName(t);
    if (I.inputRank[i] >= 0 && s.rank != I.inputRank[i]) return Status::Error(name + " must have rank " + std::to_string(I.inputRank[i]) + ", got " + std::to_string(s.rank));
    if (I.inputRanks[i] != 0 && !rankAllowed(I.inputRanks[i], s.rank)) return Status::Error(name + " must have rank " + rankList(I.inputRanks[i]) + ", got " + std::to_string(s.rank));
    if (I.inputRank[i] < 0 && (s.rank < 0 || s.rank > kMaxRank)) return Status::Error(name + " has rank " + std::to_string(s.rank) + ", at most " + std::to_string(kMaxRank) + " is supported");
    for (int d = 0; d < s.rank; ++d) if (s.dims[d] < 0) return Status::Error(name + " has a negative dim");
    const int like = I.inputLike[i];
    if (like >= 0 && s != inputs[like]) return Status::Error(name + " must have the shape of " + I.inputNames[like] + " " + inputs[like].str() + ", got " + s.str());
  }
  return Status::Ok();
}

// ---- Dims the kernel decides ------------------------------------------------------------------

/**
 * Data dim `d` as the kernel gets it: its slot (raw output kNumOutputs + d) and its bound, the dim
 * the first present output naming it was allocated at.
 */
template <class Core>
DataDim dataDim(const RawTensor* out, int d) {
  DataDim v;
  v.value = static_cast<int64_t*>(out[Core::kNumOutputs + d].data);
  for (int o = 0; o < Core::kNumOutputs; ++o) {
    if (!out[o].present) continue;
    for (int axis = 0; axis < out[o].shape.rank; ++axis)
      if (Core::dataDimAt(o, axis) == d) {
        v.bound = out[o].shape.dims[axis];
        return v;
      }
  }
  return v;
}

/** The value a kernel set for data dim `d`, read back: the error names the op, the dim and its bound. */
template <class Core>
Status checkDataDim(int d, int64_t value, int64_t bound) {
  if (value >= 0 && value <= bound) return Status::Ok();
  return Status::Error(std::string(Core::kName) + ": the kernel set " + Core::kInfo.dataDimNames[d] + " to " + std::to_string(value) + ", outside 0.." + std::to_string(bound) + " (its bound)");
}

/** Outputs' actual shapes: each data dim's axis set to its value (outputs allocated at the bounds). */
template <class Core>
void exactShapes(Shape* out, const int64_t* values) {
  for (int o = 0; o < Core::kNumOutputs; ++o)
    for (int axis = 0; axis < out[o].rank; ++axis)
      if (Core::dataDimAt(o, axis) >= 0) out[o].dims[axis] = values[Core::dataDimAt(o, axis)];
}

/** An output whose dims were computed must have none negative. */
template <class Core>
Status checkOutputDims(const Shape* outputs, int o) {
  for (int d = 0; d < outputs[o].rank; ++d)
    if (outputs[o].dims[d] < 0) return Status::Error(std::string(Core::kName) + ": output " + Core::kOutputNames[o] + " would have negative dim " + std::to_string(d) + " (" + std::to_string(outputs[o].dims[d]) + ")");
  return Status::Ok();
}

/** A computed output shape (dims evaluated left to right); none may be negative. */
template <class Core>
Status computedOutput(Shape* outputs, int o, std::initializer_list<int64_t> dims) {
  Shape& s = outputs[o];
  s.rank = static_cast<int32_t>(dims.size());
  int d = 0;
  for (const int64_t v : dims) s.dims[d++] = v;
  return checkOutputDims<Core>(outputs, o);
}

/** One entry of a spliced output shape: a dim, or the dims [start, end) of an input (`source`: the spec's text). */
struct ShapePart {
  const Shape* from;  // nullptr: a dim
  int64_t value;      // the dim, or the slice's start
  int64_t end;
  const char* source;
};
inline ShapePart dimPart(int64_t v) { return {nullptr, v, 0, ""}; }
inline ShapePart slicePart(const Shape& s, int64_t start, int64_t end, const char* source) { return {&s, start, end, source}; }

/**
 * An output of dims and slices of inputs' dims. A slice takes Python's bounds (missing: the start
 * or the end; negative: from the end); one outside its input's dims is an error, never clamped.
 */
template <class Core>
Status splicedOutput(Shape* outputs, int o, std::initializer_list<ShapePart> parts) {
  Shape& s = outputs[o];
  const std::string name = std::string(Core::kName) + ": output " + Core::kOutputNames[o];
  int32_t n = 0;
  for (const ShapePart& p : parts) {
    if (!p.from) {
      if (n == kMaxRank) return Status::Error(name + " would have more than " + std::to_string(kMaxRank) + " dims");
      s.dims[n++] = p.value;
      continue;
    }
    const int64_t r = p.from->rank;
    const int64_t a = p.value == kNoBound ? 0 : p.value < 0 ? r + p.value : p.value;
    const int64_t b = p.end == kNoBound ? r : p.end < 0 ? r + p.end : p.end;
    if (a < 0 || b > r || b < a) return Status::Error(name + ": slice " + p.source + " is outside the " + std::to_string(r) + " dims of its input");
    if (n + (b - a) > kMaxRank) return Status::Error(name + " would have more than " + std::to_string(kMaxRank) + " dims");
    for (int64_t d = a; d < b; ++d) s.dims[n++] = p.from->dims[d];
  }
  s.rank = n;
  return checkOutputDims<Core>(outputs, o);
}

/** The workspace size in bytes; negative is an error. */
inline Status workspaceBytes(const char* op, int64_t n, size_t* bytes) {
  if (n < 0) return Status::Error(std::string(op) + ": negative workspace size " + std::to_string(n));
  *bytes = static_cast<size_t>(n);
  return Status::Ok();
}

// ---- Serialization: the header, then every field visitFields() visits (attributes, then state) ----

template <class Core>
size_t serializedSizeOf(const typename Core::Attrs& attrs, const typename Core::State& state) {
  size_t n = serial::kHeaderSize;
  visitFields(attrs, state, [&](const auto& v, const char*) { n += serial::sizeOf(v); });
  return n;
}

/** Writes exactly serializedSize() bytes to buffer. */
template <class Core>
void serializeTo(const typename Core::Attrs& attrs, const typename Core::State& state, void* buffer) {
  uint8_t* body = static_cast<uint8_t*>(buffer) + serial::kHeaderSize;
  serial::Writer w(body);
  visitFields(attrs, state, [&](const auto& v, const char*) { w.field(v); });
  const auto size = static_cast<uint32_t>(w.position() - body);
  serial::Writer header(buffer);
  serial::writeHeader(header, static_cast<uint16_t>(Core::kVersion), Core::kInfo.hash, size, serial::fnv1a(body, size));
}

/** Reads what serializeTo() wrote; a truncated, oversized or corrupted buffer is an error, never an overread. */
template <class Core>
Status deserializeFrom(const void* data, size_t size, typename Core::Attrs* attrs, typename Core::State* state) {
  serial::Reader r(nullptr, 0);
  OPFORGE_RETURN_IF_ERROR(serial::readHeader(data, size, static_cast<uint16_t>(Core::kVersion), Core::kInfo.hash, Core::kName, r));
  typename Core::Attrs a;
  typename Core::State s;
  visitFields(a, s, [&](auto& v, const char* name) { r.field(v, name); });
  if (!r.ok()) return Status::Error(std::string(Core::kName) + ": " + r.error());
  if (r.remaining() != 0) return Status::Error(std::string(Core::kName) + ": " + std::to_string(r.remaining()) + " unexpected bytes after the last field");
  OPFORGE_RETURN_IF_ERROR(Core::validate(a));
  *attrs = std::move(a);
  *state = std::move(s);
  return Status::Ok();
}

/** Calls f(field, name) for each attribute of `attrs` (the first kNumAttributes fields visitFields() visits). */
template <class Core, class F>
void forEachAttribute(typename Core::Attrs& attrs, F&& f) {
  typename Core::State unused;
  int k = 0;
  visitFields(attrs, unused, [&](auto& v, const char* name) {
    if (k++ < Core::kNumAttributes) f(v, name);
  });
}

}  // namespace opforge
