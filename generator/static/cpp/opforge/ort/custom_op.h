// opforge ONNX Runtime base: adapts an op core to Ort::CustomOpBase. One OrtCustomOp per dtype
// binding and execution provider; every entry point returns an OrtStatus (CreateKernelV2 /
// KernelComputeV2), so bad attributes, dtypes or shapes are ORT errors, never a crash. The
// generated per-op descriptor (out/ort/<op>/<op>_ort.h) supplies only what the op core's tables
// (names, port dtypes per binding, ranks, attributes) do not: where computed output dims come from.
//
// A variadic last input is an ONNX variadic input (INPUT_OUTPUT_VARIADIC, homogeneous or not, at least
// Op::kMinMembers): a node's inputs are the other inputs, then the members, which is the op core's
// tensor order, so the node's input count is the call's numIn.
//
// Only the ORT C API is called (through the OrtApi the runtime hands RegisterCustomOps), so the
// library does not link libonnxruntime and works with any runtime at least as new as the headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "opforge/core.h"
#include "opforge/op_core.h"
#include "opforge/ort/api.h"
#include "opforge/ort/attributes.h"
#include "opforge/ort/dtype.h"

#if defined(OPFORGE_ORT_WITH_CUDA)
#include <cuda_runtime_api.h>
#endif

namespace opforge {
namespace ort {

// ---- Tensors ----------------------------------------------------------------------

/** Dtype and shape of a tensor value (or type-and-shape info). */
inline OrtStatus* readTypeAndShape(const OrtTensorTypeAndShapeInfo* info, DType* dtype, bool* dtypeKnown, Shape* shape, const char* what) {
  Check ok;
  ONNXTensorElementDataType t = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
  size_t rank = 0;
  if (!ok(api().GetTensorElementType(info, &t)) || !ok(api().GetDimensionsCount(info, &rank))) return ok.status;
  *dtypeKnown = fromOrt(t, dtype);
  if (rank > static_cast<size_t>(kMaxRank)) return error(ORT_INVALID_ARGUMENT, std::string(what) + " has rank " + std::to_string(rank) + ", at most " + std::to_string(kMaxRank) + " is supported");
  shape->rank = static_cast<int32_t>(rank);
  if (rank > 0 && !ok(api().GetDimensions(info, shape->dims, rank))) return ok.status;
  return nullptr;
}

/** Tensor `t` of a node as a RawTensor (Op::inputName(t) names it); absent optional inputs come back with present = false. */
template <class Op>
OrtStatus* readInput(OrtKernelContext* ctx, int t, size_t count, RawTensor* out) {
  const OrtValue* v = nullptr;
  if (static_cast<size_t>(t) < count && !okAndRelease(api().KernelContext_GetInput(ctx, static_cast<size_t>(t), &v))) v = nullptr;
  if (v == nullptr) { out->present = false; out->data = nullptr; return nullptr; }
  OrtTensorTypeAndShapeInfo* info = nullptr;
  Check ok;
  if (!ok(api().GetTensorTypeAndShape(v, &info))) return ok.status;
  bool known = false;
  const std::string what = std::string(Op::kName) + ": " + Op::inputName(t);
  OrtStatus* s = readTypeAndShape(info, &out->dtype, &known, &out->shape, what.c_str());
  api().ReleaseTensorTypeAndShapeInfo(info);
  if (s != nullptr) return s;
  if (!known) return error(ORT_INVALID_ARGUMENT, what + " has an element type opforge does not support");
  void* data = nullptr;
  if (!ok(api().GetTensorMutableData(const_cast<OrtValue*>(v), &data))) return ok.status;
  out->data = data;
  out->present = true;
  return nullptr;
}

/**
 * How many tensors a node hands the op core: kNumInputs (trailing optional inputs the node leaves
 * out are read as absent), or with a variadic input every input of the node. ORT holds a node to
 * the least count (GetVariadicInputMinArity) but not the most, so the core's check comes before any
 * per-tensor array, all Op::kMaxInputs long, is filled.
 */
template <class Op>
Status tensorCount(size_t nodeInputs, int* numIn) {
  if constexpr (Op::kVariadic) {
    constexpr size_t kMaxInt = static_cast<size_t>(std::numeric_limits<int>::max());
    *numIn = static_cast<int>(nodeInputs < kMaxInt ? nodeInputs : kMaxInt);
    return Op::checkCount(*numIn);
  } else {
    *numIn = Op::kNumInputs;
    return Status::Ok();
  }
}

// ---- Kernels ----------------------------------------------------------------------

/**
 * Where a kernel runs: the CPU EP with host scratch memory. Besides the launch, an EP says where
 * the outputs with a dim the kernel decides are written (Scratch: their bound-sized memory and one
 * int64 slot per data dim, which the kernel sets), how the slots' values reach the host and how
 * the leading part of each is copied into ORT's output of its exact dims.
 */
struct CpuEp {
  static constexpr const char* kProvider = "CPUExecutionProvider";
  template <class Op>
  static Status run(OrtKernelContext* /*ctx*/, const typename Op::Attrs& attrs, const typename Op::State& state, const RawTensor* in, int numIn, const RawTensor* out, size_t wsBytes) {
    std::vector<uint8_t> ws(wsBytes);
    CpuContext c;
    c.workspace = ws.empty() ? nullptr : ws.data();
    c.workspaceSize = wsBytes;
    return Op::runCpu(attrs, state, in, numIn, out, c);
  }

  /** Host memory for one call; the slots start at -1 (not set). */
  class Scratch {
   public:
    Scratch(OrtKernelContext* /*ctx*/, const char* /*op*/, size_t bytes, size_t slotsAt, int slots) : mem_(bytes) {
      for (int d = 0; d < slots; ++d) store(-1, d, slotsAt);
    }
    Status status() const { return Status::Ok(); }
    uint8_t* data() { return mem_.data(); }
    Status readSlots(size_t slotsAt, int64_t* values, int n) const {
      if (n > 0) std::memcpy(values, mem_.data() + slotsAt, sizeof(int64_t) * static_cast<size_t>(n));
      return Status::Ok();
    }
    Status copyOut(void* dst, const void* src, size_t bytes) const {
      if (bytes > 0) std::memcpy(dst, src, bytes);
      return Status::Ok();
    }

   private:
    void store(int64_t v, int d, size_t slotsAt) { std::memcpy(mem_.data() + slotsAt + sizeof(int64_t) * static_cast<size_t>(d), &v, sizeof v); }
    std::vector<uint8_t> mem_;
  };
};

/**
 * The CUDA EP: the kernel is launched on ORT's compute stream; scratch memory comes from the
 * EP's stream-aware allocator (released after the launch, as ORT's own CUDA kernels do).
 */
struct CudaEp {
 private:
  /** Scratch device memory from the EP's allocator on the node's device, freed with this object. */
  class DeviceMemory {
   public:
    DeviceMemory(OrtKernelContext* ctx, const char* op, size_t bytes, const char* what) {
      if (!okAndRelease(api().CreateMemoryInfo("Cuda", OrtArenaAllocator, deviceOf(ctx), OrtMemTypeDefault, &mem_))) {
        status_ = Status::Error(std::string(op) + ": cannot describe CUDA memory");
        return;
      }
      if (!okAndRelease(api().KernelContext_GetAllocator(ctx, mem_, &alloc_)) ||
          !okAndRelease(api().KernelContext_GetScratchBuffer(ctx, mem_, bytes, &data_)) || data_ == nullptr)
        status_ = Status::Error(std::string(op) + ": cannot allocate " + std::to_string(bytes) + " bytes of CUDA " + what);
    }
    DeviceMemory(const DeviceMemory&) = delete;
    DeviceMemory& operator=(const DeviceMemory&) = delete;
    ~DeviceMemory() {
      if (alloc_ != nullptr && data_ != nullptr) okAndRelease(api().AllocatorFree(alloc_, data_));
      if (alloc_ != nullptr) api().ReleaseAllocator(alloc_);
      if (mem_ != nullptr) api().ReleaseMemoryInfo(mem_);
    }
    Status status() const { return status_; }
    uint8_t* data() const { return static_cast<uint8_t*>(data_); }

   private:
    OrtMemoryInfo* mem_ = nullptr;
    OrtAllocator* alloc_ = nullptr;
    void* data_ = nullptr;
    Status status_ = Status::Ok();
  };

  /** The device of the first input (every input of a CUDA-EP node lives on the EP's device). */
  static int deviceOf(OrtKernelContext* ctx) {
    const OrtValue* v = nullptr;
    const OrtMemoryInfo* info = nullptr;
    int id = 0;
    if (okAndRelease(api().KernelContext_GetInput(ctx, 0, &v)) && v != nullptr && okAndRelease(api().GetTensorMemoryInfo(v, &info))) okAndRelease(api().MemoryInfoGetId(info, &id));
    return id;
  }

 public:
  static constexpr const char* kProvider = "CUDAExecutionProvider";
  template <class Op>
  static Status run(OrtKernelContext* ctx, const typename Op::Attrs& attrs, const typename Op::State& state, const RawTensor* in, int numIn, const RawTensor* out, size_t wsBytes) {
    CudaContext c;
    if (!okAndRelease(api().KernelContext_GetGPUComputeStream(ctx, &c.stream))) return Status::Error(std::string(Op::kName) + ": no CUDA compute stream");
    if (wsBytes == 0) return Op::runCuda(attrs, state, in, numIn, out, c);
    DeviceMemory ws(ctx, Op::kName, wsBytes, "workspace");
    if (!ws.status().ok()) return ws.status();
    c.workspace = ws.data();
    c.workspaceSize = wsBytes;
    return Op::runCuda(attrs, state, in, numIn, out, c);
  }

#if defined(OPFORGE_ORT_WITH_CUDA)
  /**
   * Device memory for one call from the EP's allocator; the slots start at -1 (every byte 0xff),
   * set on the stream before the kernel's launch. Reading them back synchronizes the stream, as
   * ORT's own NonZero does to learn its output's size.
   */
  class Scratch {
   public:
    Scratch(OrtKernelContext* ctx, const char* op, size_t bytes, size_t slotsAt, int slots) : op_(op), mem_(ctx, op, bytes, "memory for the outputs of bound size") {
      status_ = mem_.status();
      if (status_.ok() && !okAndRelease(api().KernelContext_GetGPUComputeStream(ctx, &stream_))) status_ = Status::Error(std::string(op) + ": no CUDA compute stream");
      if (status_.ok()) status_ = cuda(cudaMemsetAsync(mem_.data() + slotsAt, 0xff, sizeof(int64_t) * static_cast<size_t>(slots), stream()), "cannot set the data-dim slots");
    }
    Status status() const { return status_; }
    uint8_t* data() { return mem_.data(); }
    Status readSlots(size_t slotsAt, int64_t* values, int n) const {
      if (n == 0) return Status::Ok();
      OPFORGE_RETURN_IF_ERROR(cuda(cudaMemcpyAsync(values, mem_.data() + slotsAt, sizeof(int64_t) * static_cast<size_t>(n), cudaMemcpyDeviceToHost, stream()), "cannot read the data dims the kernel set"));
      return cuda(cudaStreamSynchronize(stream()), "the kernel failed");
    }
    Status copyOut(void* dst, const void* src, size_t bytes) const {
      if (bytes == 0) return Status::Ok();
      return cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream()), "cannot copy an output of exact dims");
    }

   private:
    cudaStream_t stream() const { return static_cast<cudaStream_t>(stream_); }
    Status cuda(cudaError_t e, const char* what) const {
      return e == cudaSuccess ? Status::Ok() : Status::Error(std::string(op_) + ": " + what + ": " + cudaGetErrorString(e));
    }
    const char* op_;
    DeviceMemory mem_;
    void* stream_ = nullptr;
    Status status_ = Status::Ok();
  };
#endif

};

/** Where an output dim comes from, for graph-level shape inference. */
struct DimSource {
  int input;         // >= 0: copies dim `axis` of this input (negative: from the end)
  int axis;
  bool readsInputs;  // input < 0: computed; true when the expression reads input dims (a spliced output's every dim)
};

/** Attributes by name and ONNX type, in the op core's attribute order; an absent optional one keeps the spec default. */
template <class Op, class Reader>
bool readAttrs(Reader& r, typename Op::Attrs* a) {
  bool ok = true;
  int k = 0;
  forEachAttribute<Op>(*a, [&](auto& v, const char* name) { ok = ok && r.read(name, Op::kAttributes[k++].required, &v); });
  return ok;
}

/** One node's kernel: the attributes read and validated at creation, the op core per call. */
template <class Op, class Ep>
struct Kernel {
  typename Op::Attrs attrs;

  OrtStatusPtr ComputeV2(OrtKernelContext* ctx) noexcept {
    try {
      return compute(ctx);
    } catch (const std::exception& e) {
      return error(ORT_RUNTIME_EXCEPTION, std::string(Op::kName) + ": " + e.what());
    }
  }

 private:
  OrtStatusPtr compute(OrtKernelContext* ctx) const {
    size_t count = 0;
    Check ok;
    if (!ok(api().KernelContext_GetInputCount(ctx, &count))) return ok.status;
    int numIn = 0;
    Status st = tensorCount<Op>(count, &numIn);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    RawTensor in[Op::kMaxInputs];
    Shape shapes[Op::kMaxInputs];
    DType dtypes[Op::kMaxInputs] = {};
    bool present[Op::kMaxInputs] = {};
    for (int t = 0; t < numIn; ++t) {
      if (OrtStatus* s = readInput<Op>(ctx, t, count, &in[t])) return s;
      if (!in[t].present && !Op::kInputOptional[Op::portOf(t)]) return error(ORT_INVALID_ARGUMENT, std::string(Op::kName) + ": " + Op::inputName(t) + " is required");
      shapes[t] = in[t].shape;
      dtypes[t] = in[t].dtype;
      present[t] = in[t].present;
    }
    DType outTypes[Op::kNumOutputs] = {};
    int binding = -1;
    st = Op::inferTypes(attrs, dtypes, present, numIn, outTypes, &binding);
    if (st.ok()) st = Op::checkShapes(attrs, shapes, present, numIn);
    Shape outShapes[Op::kNumOutputs];
    if (st.ok()) st = Op::inferShapes(attrs, shapes, numIn, outShapes);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    // The node lists the outputs its attributes ask for (`present:`), no more, no fewer.
    bool wanted[Op::kNumOutputs] = {};
    int numWanted = 0;
    size_t numOutputs = 0;
    st = Op::outputsPresent(attrs, wanted, &numWanted);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    if (!ok(api().KernelContext_GetOutputCount(ctx, &numOutputs))) return ok.status;
    if (numOutputs != static_cast<size_t>(numWanted))
      return error(ORT_INVALID_ARGUMENT, std::string(Op::kName) + ": the node has " + std::to_string(numOutputs) + " outputs; its attributes ask for " + std::to_string(numWanted));
    // The outputs, then a slot per dim the kernel decides. An output naming one is written to the
    // EP's scratch memory of its bound, and copied to ORT's output of its actual dims after the run.
    RawTensor out[Op::kNumOutputs + Op::kNumDataDims];
    size_t boundedAt[Op::kNumOutputs] = {};
    size_t scratchBytes = 0;
    for (int o = 0; o < Op::kNumOutputs; ++o) {
      if (!wanted[o] || !hasDataDim(o)) continue;
      boundedAt[o] = scratchBytes;
      scratchBytes += alignUp(static_cast<size_t>(outShapes[o].numel()) * dtypeSize(outTypes[o]));
    }
    const size_t slotsAt = scratchBytes;
    std::optional<typename Ep::Scratch> scratch;
    if constexpr (Op::kNumDataDims > 0) {
      scratch.emplace(ctx, Op::kName, slotsAt + sizeof(int64_t) * Op::kNumDataDims, slotsAt, Op::kNumDataDims);
      if (!scratch->status().ok()) return error(ORT_RUNTIME_EXCEPTION, scratch->status().message());
      for (int d = 0; d < Op::kNumDataDims; ++d)
        out[Op::kNumOutputs + d] = RawTensor{DType::kInt64, scratch->data() + slotsAt + sizeof(int64_t) * static_cast<size_t>(d), Shape{}, true};
    }
    for (int o = 0; o < Op::kNumOutputs; ++o) {
      if (!wanted[o]) {
        out[o] = RawTensor{outTypes[o], nullptr, Shape{}, false};
        continue;
      }
      if (hasDataDim(o)) {
        out[o] = RawTensor{outTypes[o], scratch->data() + boundedAt[o], outShapes[o], true};
        continue;
      }
      OrtValue* v = nullptr;
      if (!ok(api().KernelContext_GetOutput(ctx, static_cast<size_t>(o), outShapes[o].dims, static_cast<size_t>(outShapes[o].rank), &v))) return ok.status;
      void* data = nullptr;
      if (!ok(api().GetTensorMutableData(v, &data))) return ok.status;
      // The buffer has the node's declared type: where the attributes choose the dtype it must be
      // theirs, and where it follows a heterogeneous input's member, that member's.
      if (Op::isChosen(Op::kPortVar[Op::kNumInputs + o]) || Op::eachDtype(Op::kNumInputs + o)) {
        OrtTensorTypeAndShapeInfo* info = nullptr;
        if (!ok(api().GetTensorTypeAndShape(v, &info))) return ok.status;
        ONNXTensorElementDataType t = ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;
        const bool read = ok(api().GetTensorElementType(info, &t));
        api().ReleaseTensorTypeAndShapeInfo(info);
        if (!read) return ok.status;
        if (t != toOrt(outTypes[o]))
          return error(ORT_INVALID_ARGUMENT, std::string(Op::kName) + ": output " + Op::kOutputNames[o] + " is declared with element type " + std::to_string(static_cast<int>(t)) +
                                                 (Op::eachDtype(Op::kNumInputs + o) ? "; it follows an input member of " : "; its attributes choose ") + dtypeName(outTypes[o]));
      }
      out[o] = RawTensor{outTypes[o], data, outShapes[o], true};
    }
    size_t wsBytes = 0;
    st = Op::workspaceSize(attrs, shapes, dtypes, numIn, &wsBytes);
    typename Op::State state;
    if constexpr (Op::kHasConfigure) {
      if (st.ok()) st = Op::configure(attrs, shapes, &state);
    }
    if (st.ok()) st = Ep::template run<Op>(ctx, attrs, state, in, numIn, out, wsBytes);
    if (!st.ok()) return error(ORT_RUNTIME_EXCEPTION, st.message());
    if constexpr (Op::kNumDataDims > 0) return exactOutputs(ctx, out, *scratch, slotsAt);
    return nullptr;
  }

  /** Bytes rounded up to 256, so each bound-sized output in the scratch starts aligned for any dtype and vector loads. */
  static size_t alignUp(size_t bytes) { return (bytes + 255) / 256 * 256; }

  static bool hasDataDim(int o) {
    for (int axis = 0; axis < kMaxRank; ++axis)
      if (Op::dataDimAt(o, axis) >= 0) return true;
    return false;
  }

  /** The outputs naming a dim the kernel decides, at their actual dims: copied from the scratch the kernel wrote. */
  static OrtStatusPtr exactOutputs(OrtKernelContext* ctx, const RawTensor* out, const typename Ep::Scratch& scratch, size_t slotsAt) {
    Check ok;
    int64_t dataDims[Op::kNumDataDims > 0 ? Op::kNumDataDims : 1] = {};
    Status st = scratch.readSlots(slotsAt, dataDims, Op::kNumDataDims);
    for (int d = 0; st.ok() && d < Op::kNumDataDims; ++d) st = checkDataDim<Op>(d, dataDims[d], dataDim<Op>(out, d).bound);
    if (!st.ok()) return error(ORT_RUNTIME_EXCEPTION, st.message());
    Shape exact[Op::kNumOutputs];
    for (int o = 0; o < Op::kNumOutputs; ++o) exact[o] = out[o].shape;
    exactShapes<Op>(exact, dataDims);
    for (int o = 0; o < Op::kNumOutputs; ++o) {
      if (!out[o].present || !hasDataDim(o)) continue;
      OrtValue* v = nullptr;
      void* data = nullptr;
      if (!ok(api().KernelContext_GetOutput(ctx, static_cast<size_t>(o), exact[o].dims, static_cast<size_t>(exact[o].rank), &v))) return ok.status;
      if (!ok(api().GetTensorMutableData(v, &data))) return ok.status;
      // The leading part: the kernel writes its actual dims contiguously.
      st = scratch.copyOut(data, out[o].data, static_cast<size_t>(exact[o].numel()) * dtypeSize(out[o].dtype));
      if (!st.ok()) return error(ORT_RUNTIME_EXCEPTION, st.message());
    }
    return nullptr;
  }
};

/**
 * The OrtCustomOp of one op, dtype binding and execution provider. Types come from the op's
 * type variables resolved by the binding, so ORT's kernel matching picks the binding and infers
 * output types; optional inputs are ONNX optional inputs; the op lives in its spec's domain
 * from its spec's version on.
 */
template <class Op, class Ep>
struct CustomOp : Ort::CustomOpBase<CustomOp<Op, Ep>, Kernel<Op, Ep>, true> {
  explicit CustomOp(int binding) : binding_(binding) {
    this->start_ver_ = Op::kVersion;
#if ORT_API_VERSION >= 23
    // Set after the base constructor, which clears it. Not for ops with optional inputs: ORT's
    // shape-inference context (custom_ops.cc) dereferences the type of every node input, and an
    // omitted optional input before a present one has none. Except where an output's dtype is
    // chosen by the attributes (ORT needs this function to type it): the spec model allows one
    // optional input there, which is never omitted before a present one.
    if (!hasOptionalInput() || hasChosenOutput()) this->InferOutputShapeFn = &inferOutputShapes;
#endif
  }

  const char* GetName() const { return Op::kName; }
  const char* GetExecutionProviderType() const { return Ep::kProvider; }
  size_t GetInputTypeCount() const { return Op::kNumInputs; }
  size_t GetOutputTypeCount() const { return Op::kNumOutputs; }
  // A heterogeneous variadic input's members have dtypes of their own: undefined here (ORT then
  // allows every tensor type), and the core's inferTypes holds each to the spec's list.
  ONNXTensorElementDataType GetInputType(size_t i) const {
    const int port = static_cast<int>(i);
    return Op::eachDtype(port) ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED : toOrt(Op::bindingDtype(binding_, port));
  }
  // An output whose dtype the attributes choose is undefined here: the kernel is matched by its
  // inputs, and type inference (inferOutputShapes) or the model gives the output's type.
  ONNXTensorElementDataType GetOutputType(size_t o) const {
    const int port = Op::kNumInputs + static_cast<int>(o);
    return Op::isChosen(Op::kPortVar[port]) || Op::eachDtype(port) ? ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED : toOrt(Op::bindingDtype(binding_, port));
  }
  OrtCustomOpInputOutputCharacteristic GetInputCharacteristic(size_t i) const {
    constexpr size_t kInputs = static_cast<size_t>(Op::kNumInputs);
    if (Op::kVariadic && i + 1 == kInputs) return INPUT_OUTPUT_VARIADIC;
    // (ORT asks only below GetInputTypeCount; the unsigned bound keeps g++ 13's -Warray-bounds from seeing an index outside the table)
    return i < kInputs && Op::kInputOptional[i] ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
  }
  // Asked only of a variadic input (OrtCustomOp version >= 14; the headers' floor is 17). A
  // homogeneous one's members share one dtype, so ORT's type check of the node holds every member
  // to the first's; a heterogeneous one's (`homogeneous: false`) each have their own.
  int GetVariadicInputMinArity() const { return Op::kMinMembers; }
  bool GetVariadicInputHomogeneity() const { return !Op::eachDtype(Op::kNumInputs - 1); }
  // Outputs with `present:` (after the first kMinOutputs) are optional ONNX outputs.
  OrtCustomOpInputOutputCharacteristic GetOutputCharacteristic(size_t o) const {
    return static_cast<int>(o) >= Op::kMinOutputs ? INPUT_OUTPUT_OPTIONAL : INPUT_OUTPUT_REQUIRED;
  }

  static bool hasOptionalInput() {
    for (int i = 0; i < Op::kNumInputs; ++i) if (Op::kInputOptional[i]) return true;
    return false;
  }

  static bool hasChosenOutput() {
    // (or typed by an input member: ORT needs the shape-inference function to type it too)
    for (int o = 0; o < Op::kNumOutputs; ++o) if (Op::isChosen(Op::kPortVar[Op::kNumInputs + o]) || Op::eachDtype(Op::kNumInputs + o)) return true;
    return false;
  }

  OrtStatusPtr CreateKernelV2(const OrtApi& /*api*/, const OrtKernelInfo* info, void** kernel) const noexcept {
    try {
      std::unique_ptr<Kernel<Op, Ep>> k(new Kernel<Op, Ep>());
      KernelInfoSource source(info);
      AttrReader<KernelInfoSource> reader(source, Op::kName);
      Status st = readAttrs<Op>(reader, &k->attrs) ? Op::validate(k->attrs) : Status::Error(reader.error());
      if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
      *kernel = k.release();  // ORT deletes it through KernelDestroy
      return nullptr;
    } catch (const std::exception& e) {
      return error(ORT_RUNTIME_EXCEPTION, std::string(Op::kName) + ": " + e.what());
    }
  }

 private:
#if ORT_API_VERSION >= 23
  /**
   * Graph-level output shapes from the spec's expressions. With every input dim known, the op
   * core computes them (and bad shapes or attributes fail the model load). With symbolic dims,
   * outputs shaped like an input or copying input dims keep the symbols; an output with a dim
   * computed from symbolic dims is left unshaped. Inputs of rank 0 count as unknown (ORT reports
   * a missing shape as rank 0) unless the spec declares rank 0.
   */
  static OrtStatusPtr inferOutputShapes(const OrtCustomOp* /*self*/, OrtShapeInferContext* ctx) noexcept {
    try {
      return inferShapesImpl(ctx);
    } catch (const std::exception& e) {
      return error(ORT_RUNTIME_EXCEPTION, std::string(Op::kName) + ": " + e.what());
    }
  }

  struct InputInfo {
    Shape shape;
    bool known = false;  // rank known
    bool symbolic[kMaxRank] = {};
    std::string symbols[kMaxRank];
  };

  static OrtStatusPtr inferShapesImpl(OrtShapeInferContext* ctx) {
    size_t count = 0;
    Check ok;
    if (!ok(api().ShapeInferContext_GetInputCount(ctx, &count))) return ok.status;
    int numIn = 0;
    Status st = tensorCount<Op>(count, &numIn);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    InputInfo ins[Op::kMaxInputs];
    bool allConcrete = true;
    bool present[Op::kMaxInputs] = {};
    Shape shapes[Op::kMaxInputs];
    DType dtypes[Op::kMaxInputs] = {};
    for (int t = 0; t < numIn; ++t) {
      present[t] = static_cast<size_t>(t) < count;
      if (!present[t]) continue;
      OrtTensorTypeAndShapeInfo* info = nullptr;  // owned by the context: not released here
      if (!okAndRelease(api().ShapeInferContext_GetInputTypeShape(ctx, static_cast<size_t>(t), &info)) || info == nullptr) return nullptr;
      bool dtKnown = false;
      OrtStatus* s = readTypeAndShape(info, &dtypes[t], &dtKnown, &ins[t].shape, "input");
      if (!dtKnown) return nullptr;  // not an opforge dtype: kernel matching reports it
      const char* syms[kMaxRank] = {};
      if (s == nullptr && ins[t].shape.rank > 0) s = api().GetSymbolicDimensions(info, syms, static_cast<size_t>(ins[t].shape.rank));
      if (s != nullptr) { api().ReleaseStatus(s); return nullptr; }  // leave shapes to run time
      InputInfo& in = ins[t];
      in.known = in.shape.rank > 0 || Op::kInputRank[Op::portOf(t)] == 0;
      for (int d = 0; d < in.shape.rank; ++d) {
        in.symbolic[d] = in.shape.dims[d] < 0;
        if (syms[d] != nullptr && syms[d][0] != '\0') { in.symbolic[d] = true; in.symbols[d] = syms[d]; }
        if (in.symbolic[d]) { allConcrete = false; in.shape.dims[d] = 1; }  // placeholder for the core
      }
      if (!in.known) allConcrete = false;
      shapes[t] = in.shape;
    }
    typename Op::Attrs attrs;
    ShapeInferSource source(ctx);
    AttrReader<ShapeInferSource> reader(source, Op::kName);
    if (!readAttrs<Op>(reader, &attrs)) return error(ORT_INVALID_ARGUMENT, reader.error());
    st = Op::validate(attrs);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    // ORT takes the element type along with the shape: the op core's type inference gives it.
    DType outTypes[Op::kNumOutputs] = {};
    int binding = -1;
    st = Op::inferTypes(attrs, dtypes, present, numIn, outTypes, &binding);
    if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    if (allConcrete) {
      st = Op::checkShapes(attrs, shapes, present, numIn);
      if (!st.ok()) return error(ORT_INVALID_ARGUMENT, st.message());
    }
    Shape outs[Op::kNumOutputs];
    if (!Op::inferShapes(attrs, shapes, numIn, outs).ok()) return nullptr;
    bool wanted[Op::kNumOutputs] = {};
    int numWanted = 0;
    if (!Op::outputsPresent(attrs, wanted, &numWanted).ok()) return nullptr;  // the kernel reports it
    for (int o = 0; o < numWanted; ++o) {
      int64_t dims[kMaxRank] = {};
      const char* names[kMaxRank] = {};
      bool settable = true;
      for (int d = 0; d < outs[o].rank && settable; ++d) {
        dims[d] = outs[o].dims[d];
        names[d] = "";
        if (Op::dataDimAt(o, d) >= 0) { dims[d] = -1; continue; }  // the kernel decides it: unknown until it runs
        if (allConcrete) continue;
        const int like = Op::kOutputLike[o];
        const DimSource src = like >= 0 ? DimSource{like, d, true} : Op::kOutputDims[o][d];
        if (src.input >= 0) {
          const InputInfo& in = ins[src.input];
          const int ax = src.axis < 0 ? src.axis + in.shape.rank : src.axis;  // negative: from the end
          if (!in.known || ax < 0 || ax >= in.shape.rank) settable = false;
          else if (in.symbolic[ax] && in.symbols[ax].empty()) settable = false;  // unknown, unnamed
          else if (in.symbolic[ax]) { dims[d] = -1; names[d] = in.symbols[ax].c_str(); }
        } else if (src.readsInputs) {
          settable = false;
        }
      }
      if (!settable || (Op::kOutputLike[o] >= 0 && !ins[Op::kOutputLike[o]].known)) continue;
      OrtTensorTypeAndShapeInfo* info = nullptr;
      if (!ok(api().CreateTensorTypeAndShapeInfo(&info))) return ok.status;
      const bool set = ok(api().SetTensorElementType(info, toOrt(outTypes[o]))) &&
                       ok(api().SetDimensions(info, dims, static_cast<size_t>(outs[o].rank))) &&
                       ok(api().SetSymbolicDimensions(info, names, static_cast<size_t>(outs[o].rank))) &&
                       ok(api().ShapeInferContext_SetOutputTypeShape(ctx, static_cast<size_t>(o), info));
      api().ReleaseTensorTypeAndShapeInfo(info);
      if (!set) return ok.status;
    }
    return nullptr;
  }
#endif

  int binding_;
};

// ---- Registration -----------------------------------------------------------------

/** Every OrtCustomOp of the library, grouped into one OrtCustomOpDomain per spec domain. */
class Registry {
 public:
  void add(const char* domain, const OrtCustomOp* op) { ops_[domain].push_back(op); }

  /** Creates the domains once; later sessions reuse them (a domain may serve many sessions). */
  OrtStatus* build() {
    for (auto& entry : ops_) {
      OrtCustomOpDomain* d = nullptr;
      Check ok;
      if (!ok(api().CreateCustomOpDomain(entry.first.c_str(), &d))) return ok.status;
      domains_.push_back(d);  // kept for the life of the process: sessions hold them by pointer
      for (const OrtCustomOp* op : entry.second) {
        if (!ok(api().CustomOpDomain_Add(d, op))) return ok.status;
      }
    }
    return nullptr;
  }

  OrtStatus* addTo(OrtSessionOptions* options) const {
    for (OrtCustomOpDomain* d : domains_) {
      if (OrtStatus* s = api().AddCustomOpDomain(options, d)) return s;
    }
    return nullptr;
  }

 private:
  std::map<std::string, std::vector<const OrtCustomOp*>> ops_;
  std::vector<OrtCustomOpDomain*> domains_;
};

/**
 * The body of RegisterCustomOps: takes the runtime's API at the headers' version (a runtime older
 * than the headers is a clear error), registers every op's kernels once, and adds the domains to
 * the session options.
 */
inline OrtStatus* registerCustomOps(OrtSessionOptions* options, const OrtApiBase* base, void (*addAll)(Registry&)) noexcept {
  const OrtApi* a = base->GetApi(ORT_API_VERSION);
  if (a == nullptr) {
    const OrtApi* v1 = base->GetApi(1);
    const std::string msg = std::string("opforge: this custom-op library was built with ONNX Runtime API version ") +
                            std::to_string(ORT_API_VERSION) + " headers; the loading runtime is " + base->GetVersionString();
    return v1 != nullptr ? v1->CreateStatus(ORT_FAIL, msg.c_str()) : nullptr;
  }
  try {
    static std::mutex mu;
    std::lock_guard<std::mutex> lock(mu);
    if (apiSlot() == nullptr) {
      apiSlot() = a;
      Ort::InitApi(a);
    }
    static Registry* registry = nullptr;
    if (registry == nullptr) {
      auto* r = new Registry();  // never freed: sessions keep pointers to its domains
      addAll(*r);
      if (OrtStatus* s = r->build()) return s;
      registry = r;
    }
    return registry->addTo(options);
  } catch (const std::exception& e) {
    return a->CreateStatus(ORT_FAIL, (std::string("opforge: ") + e.what()).c_str());
  }
}

}  // namespace ort
}  // namespace opforge
