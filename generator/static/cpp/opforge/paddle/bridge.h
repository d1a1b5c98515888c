// opforge Paddle bridge: the framework-free half of the Paddle custom-op adapter. It runs an op
// core's checks, inference and kernels on plain dims, opforge dtypes and raw buffers; op_base.h
// converts paddle::Tensor / paddle::DataType to and from these. Needs no Paddle header, so it is
// compiled and run in CI on its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "opforge/core.h"

namespace opforge {
namespace paddle_bridge {

/** Schema limit on inputs and outputs: per-call arrays live on the stack. */
constexpr int kMaxTensors = 32;

/** Paddle's placeholder for a dim that is known only at run time (static-graph InferShape). */
constexpr int64_t kUnknownDim = -1;

// The bridge's functions are templates over `Op`: the op core's `Core` type (every backend
// adapter is instantiated with it, so none lists the op's functions again) plus the one thing
// only Paddle asks, which the per-op <op>_paddle.h adds: its table of DimDeps, which
// outputDimKnown reads in a static graph's InferShape.
//   struct PaddleOp : core::Core {
//     static constexpr int kNumDimDeps = ...;
//     static constexpr DimDep kDimDeps[kNumDimDeps] = {...};
//   };

/**
 * An output dim reading an input dim (from the spec's shape expressions): dim `axis` of output
 * `output` reads dim `inputAxis` of input `input` (negative: from the end); `axis` -1: every dim of
 * the output reads the same dim of the input (an output shaped like an input).
 */
struct DimDep {
  int output;
  int axis;
  int input;
  int inputAxis;
};

/**
 * DimDep::axis of a spliced output (dims and slices of inputs' dims): where each dim lands depends
 * on ranks and attributes, so every dim of it counts as unknown while any dim of `input` is.
 */
constexpr int kSpliced = -2;

/** Whether dim `axis` of output `output` is known: every input dim it reads is (non-negative). */
inline bool outputDimKnown(const DimDep* deps, int count, int output, int axis, const Shape* in) {
  for (int k = 0; k < count; ++k) {
    const DimDep& d = deps[k];
    if (d.output != output) continue;
    const Shape& from = in[d.input];
    if (d.axis == kSpliced) {
      for (int j = 0; j < from.rank; ++j) if (from.dims[j] < 0) return false;
      continue;
    }
    if (d.axis < 0 && from.dims[axis] < 0) return false;
    const int a = d.inputAxis < 0 ? from.rank + d.inputAxis : d.inputAxis;  // negative: from the end
    if (d.axis == axis && (a < 0 || a >= from.rank || from.dims[a] < 0)) return false;
  }
  return true;
}

/** Dims as a Shape; negative dims are kept (the caller decides what they mean). */
inline Status toShape(const char* op, const char* what, const std::vector<int64_t>& dims, Shape* s) {
  if (dims.size() > static_cast<size_t>(kMaxRank)) {
    return Status::Error(std::string(op) + ": " + what + " has rank " + std::to_string(dims.size()) + ", at most " + std::to_string(kMaxRank) + " is supported");
  }
  s->rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) s->dims[d] = dims[d];
  return Status::Ok();
}

inline std::vector<int64_t> toDims(const Shape& s) { return std::vector<int64_t>(s.dims, s.dims + s.rank); }

/**
 * A call's tensors in tensor order into `all`: the inputs (null: an absent optional one), then a
 * variadic input's members (Paddle passes them as one std::vector, paddle::Vec). The count is
 * checked against the op's before `all` (Op::kMaxInputs long) is filled.
 */
template <class Op, class T>
Status gather(std::initializer_list<const T*> inputs, const std::vector<T>& members, const T** all, int* numIn) {
  *numIn = static_cast<int>(inputs.size() + members.size());
  OPFORGE_RETURN_IF_ERROR(Op::checkCount(*numIn));
  int t = 0;
  for (const T* x : inputs) all[t++] = x;
  // Only a variadic op has members (checkCount refused any other's): no store past kNumInputs to compile.
  if constexpr (Op::kVariadic) {
    for (const T& m : members) all[t++] = &m;
  }
  return Status::Ok();
}

/** Widens Paddle's 32-bit integer list attribute (`std::vector<int>`) to the op core's int64_t. */
inline std::vector<int64_t> widen(const std::vector<int>& v) { return std::vector<int64_t>(v.begin(), v.end()); }

/**
 * InferShapeFn: output dims from the dims of numIn input tensors (tensor order: a variadic input's
 * members last; inputs[i] null for an absent optional input). Paddle's static-graph pass gives -1
 * for dims known only at run time: those inputs are checked at run time instead, and every output
 * dim that depends on one is -1 too.
 */
template <class Op>
Status inferShapes(const typename Op::Attrs& attrs, const std::vector<int64_t>* const* inputs, std::vector<std::vector<int64_t>>* outputs,
                   int numIn = Op::kNumInputs) {
  OPFORGE_RETURN_IF_ERROR(Op::checkCount(numIn));
  Shape in[Op::kMaxInputs];
  Shape known[Op::kMaxInputs];
  bool present[Op::kMaxInputs] = {};
  bool anyUnknown = false;
  for (int i = 0; i < numIn; ++i) {
    present[i] = inputs[i] != nullptr;
    if (!present[i]) continue;
    OPFORGE_RETURN_IF_ERROR(toShape(Op::kName, Op::inputName(i).c_str(), *inputs[i], &in[i]));
    known[i] = in[i];
    for (int d = 0; d < in[i].rank; ++d) {
      if (in[i].dims[d] < 0) {
        anyUnknown = true;
        known[i].dims[d] = 1;  // any valid extent: dims that depend on it are reported unknown below
      }
    }
  }
  if (!anyUnknown) OPFORGE_RETURN_IF_ERROR(Op::checkShapes(attrs, in, present, numIn));
  Shape out[kMaxTensors];
  OPFORGE_RETURN_IF_ERROR(Op::inferShapes(attrs, known, numIn, out));
  bool wanted[kMaxTensors] = {};
  int numWanted = 0;
  OPFORGE_RETURN_IF_ERROR(Op::outputsPresent(attrs, wanted, &numWanted));
  outputs->assign(static_cast<size_t>(Op::kNumOutputs), std::vector<int64_t>());
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    std::vector<int64_t>& dims = (*outputs)[static_cast<size_t>(o)];
    if (!wanted[o]) {  // left out by the attributes (`present:`): an empty tensor in its place
      dims = {0};
      continue;
    }
    dims = toDims(out[o]);
    // A dim the kernel decides is unknown to the graph (-1, as Paddle's own nonzero declares it).
    for (int d = 0; d < out[o].rank; ++d)
      if (Op::dataDimAt(o, d) >= 0) dims[static_cast<size_t>(d)] = kUnknownDim;
    if (anyUnknown) {
      for (int d = 0; d < out[o].rank; ++d) {
        if (!outputDimKnown(Op::kDimDeps, Op::kNumDimDeps, o, d, in)) dims[static_cast<size_t>(d)] = kUnknownDim;
      }
    }
  }
  return Status::Ok();
}

/**
 * InferDtypeFn: output dtypes from the dtypes of numIn input tensors (tensor order) and attributes
 * (present[i] false for an absent optional input).
 */
template <class Op>
Status inferDtypes(const typename Op::Attrs& attrs, const DType* inputs, const bool* present, std::vector<DType>* outputs,
                   int numIn = Op::kNumInputs) {
  OPFORGE_RETURN_IF_ERROR(Op::checkCount(numIn));
  DType out[kMaxTensors] = {};
  int binding = -1;
  OPFORGE_RETURN_IF_ERROR(Op::inferTypes(attrs, inputs, present, numIn, out, &binding));
  outputs->assign(out, out + Op::kNumOutputs);
  return Status::Ok();
}

/** Everything a run needs besides the buffers: output dtypes and shapes, scratch size, state. */
template <class State>
struct Plan {
  DType outDtypes[kMaxTensors] = {};
  Shape outShapes[kMaxTensors];
  bool outPresent[kMaxTensors] = {};  // false: left out by the attributes (`present:`), an empty tensor
  size_t workspaceBytes = 0;
  State state;
  /** The input tensors the kernel gets: the inputs, then a variadic input's members. */
  int numIn = 0;
};

/**
 * Validates attributes, checks dtypes and shapes of numIn input tensors (tensor order), infers
 * outputs, sizes scratch, configures state.
 */
template <class Op>
Status plan(const typename Op::Attrs& attrs, const RawTensor* inputs, Plan<typename Op::State>* p, int numIn = Op::kNumInputs) {
  OPFORGE_RETURN_IF_ERROR(Op::validate(attrs));
  OPFORGE_RETURN_IF_ERROR(Op::checkCount(numIn));
  p->numIn = numIn;
  DType dtypes[Op::kMaxInputs] = {};
  bool present[Op::kMaxInputs] = {};
  Shape shapes[Op::kMaxInputs];
  for (int i = 0; i < numIn; ++i) {
    dtypes[i] = inputs[i].dtype;
    present[i] = inputs[i].present;
    shapes[i] = inputs[i].shape;
  }
  int binding = -1;
  OPFORGE_RETURN_IF_ERROR(Op::inferTypes(attrs, dtypes, present, numIn, p->outDtypes, &binding));
  OPFORGE_RETURN_IF_ERROR(Op::checkShapes(attrs, shapes, present, numIn));
  OPFORGE_RETURN_IF_ERROR(Op::inferShapes(attrs, shapes, numIn, p->outShapes));
  int numWanted = 0;
  OPFORGE_RETURN_IF_ERROR(Op::outputsPresent(attrs, p->outPresent, &numWanted));
  for (int o = 0; o < Op::kNumOutputs; ++o) {
    if (!p->outPresent[o]) p->outShapes[o] = Shape{1, {0}};
  }
  OPFORGE_RETURN_IF_ERROR(Op::workspaceSize(attrs, shapes, dtypes, numIn, &p->workspaceBytes));
  if constexpr (Op::kHasConfigure) OPFORGE_RETURN_IF_ERROR(Op::configure(attrs, shapes, &p->state));
  return Status::Ok();
}

/** Runs the CPU kernel on buffers allocated as `p` says (workspace: p.workspaceBytes bytes or null). */
template <class Op>
Status runCpu(const typename Op::Attrs& attrs, const Plan<typename Op::State>& p, const RawTensor* inputs, const RawTensor* outputs,
              void* workspace) {
  CpuContext ctx;
  ctx.workspace = workspace;
  ctx.workspaceSize = p.workspaceBytes;
  return Op::runCpu(attrs, p.state, inputs, p.numIn, outputs, ctx);
}

/**
 * Runs the CUDA kernel on device buffers, enqueued on `stream` (a cudaStream_t). Instantiated only
 * in builds with PADDLE_WITH_CUDA (op_base.h), so CPU builds need no CUDA kernel objects.
 */
template <class Op>
Status runCuda(const typename Op::Attrs& attrs, const Plan<typename Op::State>& p, const RawTensor* inputs, const RawTensor* outputs,
               void* workspace, void* stream) {
  if constexpr (Op::kHasCuda) {
    CudaContext ctx;
    ctx.stream = stream;
    ctx.workspace = workspace;
    ctx.workspaceSize = p.workspaceBytes;
    return Op::runCuda(attrs, p.state, inputs, p.numIn, outputs, ctx);
  } else {
    (void)attrs; (void)p; (void)inputs; (void)outputs; (void)workspace; (void)stream;
    return Status::Error(std::string(Op::kName) + ": the spec has no CUDA kernel; place the op's inputs on the CPU");
  }
}

}  // namespace paddle_bridge
}  // namespace opforge
