// opforge TensorRT adapter: IPluginV3 (IPluginV3OneCore / IPluginV3OneBuild / IPluginV3OneRuntime)
// and IPluginCreatorV3One, the plugin interface of TensorRT 10 and 11. Compiled out before 10.
#pragma once

#include "opforge/trt/common.h"

#if NV_TENSORRT_MAJOR >= 10

namespace opforge {
namespace trt {

template <class Op>
class PluginV3 final : public nvinfer1::IPluginV3,
                       public nvinfer1::IPluginV3OneCore,
                       public nvinfer1::IPluginV3OneBuild,
                       public nvinfer1::IPluginV3OneRuntime {
 public:
  using Core = PluginCore<Op>;

  explicit PluginV3(Core core) : core_(std::move(core)) {}

  // IPluginV3
  nvinfer1::IPluginCapability* getCapabilityInterface(nvinfer1::PluginCapabilityType type) noexcept override {
    switch (type) {
      case nvinfer1::PluginCapabilityType::kBUILD: return static_cast<nvinfer1::IPluginV3OneBuild*>(this);
      case nvinfer1::PluginCapabilityType::kRUNTIME: return static_cast<nvinfer1::IPluginV3OneRuntime*>(this);
      case nvinfer1::PluginCapabilityType::kCORE: return static_cast<nvinfer1::IPluginV3OneCore*>(this);
    }
    return nullptr;
  }
  nvinfer1::IPluginV3* clone() noexcept override {
    try {
      auto* p = new PluginV3(core_);
      p->namespace_ = namespace_;
      return p;
    } catch (...) {
      logError(std::string(Op::kPluginName) + ": clone failed");
      return nullptr;
    }
  }

  // IPluginV3OneCore
  const char* getPluginName() const noexcept override { return Op::kPluginName; }
  const char* getPluginVersion() const noexcept override { return Op::kPluginVersion; }
  const char* getPluginNamespace() const noexcept override { return namespace_.c_str(); }
  void setPluginNamespace(const char* ns) noexcept {
    try { namespace_ = ns != nullptr ? ns : ""; } catch (...) {}
  }

  // IPluginV3OneBuild
  // A Triton kernel's configurations (`configs:`) are tactics 1..n, which TensorRT times (0 is its default: the first).
  int32_t getNbTactics() noexcept override { return Op::kNumTactics; }
  int32_t getValidTactics(int32_t* tactics, int32_t nbTactics) noexcept override {
    if (nbTactics != Op::kNumTactics || (nbTactics > 0 && tactics == nullptr)) return -1;
    for (int32_t t = 0; t < nbTactics; ++t) tactics[t] = t + 1;
    return 0;
  }

  /** The outputs the attributes ask for, then one size tensor per dim the kernel decides. */
  int32_t getNbOutputs() const noexcept override { return core_.numOutputs() + Op::kNumDataDims; }

  int32_t getOutputDataTypes(nvinfer1::DataType* outputTypes, int32_t nbOutputs, const nvinfer1::DataType* inputTypes,
                             int32_t nbInputs) const noexcept override {
    if (nbOutputs != getNbOutputs()) return -1;
    // Size tensors are int32: TensorRT 10.0 to 10.14 take no other (the value is at most its bound).
    for (int32_t d = 0; d < Op::kNumDataDims; ++d) outputTypes[core_.numOutputs() + d] = nvinfer1::DataType::kINT32;
    try { return core_.outputTypes(inputTypes, nbInputs, outputTypes) ? 0 : -1; } catch (...) { return -1; }
  }

  int32_t getOutputShapes(const nvinfer1::DimsExprs* inputs, int32_t nbInputs, const nvinfer1::DimsExprs* /*shapeInputs*/,
                          int32_t /*nbShapeInputs*/, nvinfer1::DimsExprs* outputs, int32_t nbOutputs,
                          nvinfer1::IExprBuilder& exprBuilder) noexcept override {
    if (nbOutputs != getNbOutputs()) return -1;
    bool present[Op::kMaxInputs] = {};
    if (!Core::presence(nbInputs, present)) return -1;
    const int32_t n = core_.numOutputs();
    try {
      for (int32_t o = 0; o < n; ++o) {
        if (!Op::outputDims(core_.attrs(), o, inputs, present, nbInputs, exprBuilder, &outputs[o])) {
          logError(std::string(Op::kPluginName) + ": cannot infer the dims of output " + Op::kOutputNames[o]);
          return -1;
        }
      }
      // A dim the kernel decides: a size tensor (0-D, output n + d), its bound the upper limit and
      // half of it the value TensorRT tunes for, as TensorRT's NonZero sample does.
      const nvinfer1::IDimensionExpr* sizes[Op::kNumDataDims > 0 ? Op::kNumDataDims : 1] = {};
      for (int32_t o = 0; o < n; ++o)
        for (int32_t axis = 0; axis < outputs[o].nbDims; ++axis) {
          const int d = Op::dataDimAt(o, axis);
          if (d < 0) continue;
          if (sizes[d] == nullptr) {
            const nvinfer1::IDimensionExpr* upper = outputs[o].d[axis];
            const nvinfer1::IDimensionExpr* opt = exprBuilder.operation(nvinfer1::DimensionOperation::kFLOOR_DIV, *upper, *exprBuilder.constant(2));
            sizes[d] = opt == nullptr ? nullptr : exprBuilder.declareSizeTensor(n + d, *opt, *upper);
            if (sizes[d] == nullptr) { logError(std::string(Op::kPluginName) + ": cannot declare size tensor " + Op::kInfo.dataDimNames[d]); return -1; }
          }
          outputs[o].d[axis] = sizes[d];
        }
      for (int32_t d = 0; d < Op::kNumDataDims; ++d) outputs[n + d].nbDims = 0;
    } catch (...) {
      return -1;
    }
    return 0;
  }

  bool supportsFormatCombination(int32_t pos, const nvinfer1::DynamicPluginTensorDesc* inOut, int32_t nbInputs,
                                 int32_t nbOutputs) noexcept override {
    const int32_t n = nbInputs + nbOutputs;
    if (pos < 0 || pos >= n || n > Op::kMaxInputs + Op::kNumOutputs + Op::kNumDataDims || nbOutputs != getNbOutputs()) return false;
    const int32_t sized = nbInputs + core_.numOutputs();  // the size tensors' first position
    if (pos >= sized) return inOut[pos].desc.format == nvinfer1::TensorFormat::kLINEAR && inOut[pos].desc.type == nvinfer1::DataType::kINT32;
    nvinfer1::TensorFormat formats[Op::kMaxInputs + Op::kNumOutputs] = {};
    nvinfer1::DataType types[Op::kMaxInputs + Op::kNumOutputs] = {};
    for (int32_t i = 0; i <= pos; ++i) { formats[i] = inOut[i].desc.format; types[i] = inOut[i].desc.type; }
    return core_.supports(pos, formats, types, nbInputs, core_.numOutputs());
  }

  int32_t configurePlugin(const nvinfer1::DynamicPluginTensorDesc* in, int32_t nbInputs,
                          const nvinfer1::DynamicPluginTensorDesc* /*out*/, int32_t nbOutputs) noexcept override {
    bool present[Op::kMaxInputs] = {};
    if (nbOutputs != getNbOutputs() || !Core::presence(nbInputs, present)) return -1;
    nbInputs_ = nbInputs;
    for (int32_t i = 0; i < nbInputs; ++i) {
      const int32_t rank = Op::kInputRank[Op::portOf(i)];
      if (rank >= 0 && in[i].desc.dims.nbDims != rank) {
        logError(std::string(Op::kPluginName) + ": " + Op::inputName(i) + " must have rank " + std::to_string(rank));
        return -1;
      }
      const uint32_t ranks = Op::kInputRanks[Op::portOf(i)];
      if (ranks != 0 && !rankAllowed(ranks, in[i].desc.dims.nbDims)) {
        logError(std::string(Op::kPluginName) + ": " + Op::inputName(i) + " must have rank " + rankList(ranks));
        return -1;
      }
    }
    return 0;
  }

  size_t getWorkspaceSize(const nvinfer1::DynamicPluginTensorDesc* inputs, int32_t nbInputs,
                          const nvinfer1::DynamicPluginTensorDesc* /*outputs*/, int32_t /*nbOutputs*/) const noexcept override {
    if (nbInputs > Op::kMaxInputs || nbInputs < 0) return 0;
    try {
      nvinfer1::Dims dims[Op::kMaxInputs] = {};
      nvinfer1::DataType types[Op::kMaxInputs] = {};
      for (int32_t i = 0; i < nbInputs; ++i) {
        dims[i] = inputs[i].max;
        types[i] = inputs[i].desc.type;
      }
      return core_.workspace(dims, types, nbInputs);
    } catch (...) {
      return 0;
    }
  }

  // IPluginV3OneRuntime
  int32_t setTactic(int32_t tactic) noexcept override {
    if (tactic < 0 || tactic > Op::kNumTactics) return -1;
    core_.setTactic(tactic);
    return 0;
  }

  int32_t onShapeChange(const nvinfer1::PluginTensorDesc* in, int32_t nbInputs, const nvinfer1::PluginTensorDesc* /*out*/,
                        int32_t nbOutputs) noexcept override {
    if (nbOutputs != getNbOutputs() || nbInputs > Op::kMaxInputs || nbInputs < 0) return -1;
    nbInputs_ = nbInputs;
    try {
      nvinfer1::Dims dims[Op::kMaxInputs] = {};
      for (int32_t i = 0; i < nbInputs; ++i) dims[i] = in[i].dims;
      Shape shapes[Op::kMaxInputs];
      bool present[Op::kMaxInputs] = {};
      if (!Core::inputShapes(dims, nbInputs, shapes, present)) return -1;
      return core_.prepare(shapes, present, Core::tensorCount(nbInputs)) ? 0 : -1;
    } catch (...) {
      return -1;
    }
  }

  int32_t enqueue(const nvinfer1::PluginTensorDesc* inputDesc, const nvinfer1::PluginTensorDesc* outputDesc,
                  const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override {
    try {
      nvinfer1::Dims inDims[Op::kMaxInputs] = {}, outDims[Op::kNumOutputs] = {};
      nvinfer1::DataType inTypes[Op::kMaxInputs] = {}, outTypes[Op::kNumOutputs] = {};
      const int32_t nbInputs = nbInputs_;
      for (int32_t i = 0; i < nbInputs; ++i) { inDims[i] = inputDesc[i].dims; inTypes[i] = inputDesc[i].type; }
      const int32_t nbOutputs = core_.numOutputs();
      for (int32_t o = 0; o < nbOutputs; ++o) { outDims[o] = outputDesc[o].dims; outTypes[o] = outputDesc[o].type; }
      // The size tensors follow the outputs.
      return core_.enqueue(inDims, inTypes, nbInputs, outDims, outTypes, nbOutputs, inputs, outputs, workspace, stream, outputs + nbOutputs);
    } catch (...) {
      logError(std::string(Op::kPluginName) + ": enqueue failed");
      return 1;
    }
  }

  nvinfer1::IPluginV3* attachToContext(nvinfer1::IPluginResourceContext* /*context*/) noexcept override { return clone(); }

  const nvinfer1::PluginFieldCollection* getFieldsToSerialize() noexcept override {
    try {
      serialized_ = core_.serialized();
      fields_.clear();
      fields_.emplace_back(kSerializedField, serialized_.data(), nvinfer1::PluginFieldType::kINT8, static_cast<int32_t>(serialized_.size()));
      fieldCollection_.nbFields = static_cast<int32_t>(fields_.size());
      fieldCollection_.fields = fields_.data();
      return &fieldCollection_;
    } catch (...) {
      return nullptr;
    }
  }

  /** Number of inputs TensorRT connects (fewer than the spec's when trailing optionals are absent). */
  void setNbInputs(int32_t n) { nbInputs_ = n; }
  Core& core() { return core_; }

 private:
  Core core_;
  std::string namespace_;
  int32_t nbInputs_ = Op::kNumInputs;
  std::vector<uint8_t> serialized_;
  std::vector<nvinfer1::PluginField> fields_;
  nvinfer1::PluginFieldCollection fieldCollection_{};
};

/**
 * Creates PluginV3 from attribute fields (build phase: what onnx-tensorrt, Python or C++ users
 * pass) or from getFieldsToSerialize()'s single serialized field (runtime phase).
 */
template <class Op>
class CreatorV3 final : public nvinfer1::IPluginCreatorV3One {
 public:
  nvinfer1::IPluginV3* createPlugin(const char* name, const nvinfer1::PluginFieldCollection* fc,
                                    nvinfer1::TensorRTPhase /*phase*/) noexcept override {
    try {
      PluginCore<Op> core;
      const nvinfer1::PluginField* blob = serializedField(fc);
      if (blob != nullptr) {
        if (blob->type != nvinfer1::PluginFieldType::kINT8 || blob->length < 0 || (blob->length > 0 && blob->data == nullptr)) {
          logError(std::string(Op::kPluginName) + ": malformed serialized field");
          return nullptr;
        }
        if (!core.deserialize(blob->data, static_cast<size_t>(blob->length))) return nullptr;
      } else {
        typename Op::Attrs attrs;
        if (!PluginCore<Op>::fromFields(fc, Op::kPluginName, &attrs) || !PluginCore<Op>::checkDtypes()) return nullptr;
        core = PluginCore<Op>(std::move(attrs));
      }
      auto* p = new PluginV3<Op>(std::move(core));
      p->setPluginNamespace(namespace_.c_str());
      (void)name;
      return p;
    } catch (...) {
      logError(std::string(Op::kPluginName) + ": createPlugin failed");
      return nullptr;
    }
  }

  const nvinfer1::PluginFieldCollection* getFieldNames() noexcept override { return PluginCore<Op>::fieldNames(); }
  const char* getPluginName() const noexcept override { return Op::kPluginName; }
  const char* getPluginVersion() const noexcept override { return Op::kPluginVersion; }
  const char* getPluginNamespace() const noexcept override { return namespace_.c_str(); }
  void setPluginNamespace(const char* ns) noexcept {
    try { namespace_ = ns != nullptr ? ns : ""; } catch (...) {}
  }

 private:
  static const nvinfer1::PluginField* serializedField(const nvinfer1::PluginFieldCollection* fc) {
    if (fc == nullptr || fc->fields == nullptr) return nullptr;
    for (int32_t i = 0; i < fc->nbFields; ++i) {
      if (fc->fields[i].name != nullptr && std::strcmp(fc->fields[i].name, kSerializedField) == 0) return &fc->fields[i];
    }
    return nullptr;
  }

  std::string namespace_;
};

}  // namespace trt
}  // namespace opforge

#endif  // NV_TENSORRT_MAJOR >= 10
