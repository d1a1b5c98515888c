// opforge TensorRT adapter: the IPluginV2 generation, for TensorRT 8.x users and for Paddle
// Inference, which looks plugins up by name:
//   PluginV2Dynamic (IPluginV2DynamicExt, MMDeploy's TRTPluginBase interface) and
//   PluginV2Static (IPluginV2Ext, implicit batch: Paddle's static-shape mode),
// with CreatorV2 (IPluginCreator). Deprecated from TensorRT 10; compiled there on purpose,
// with the deprecation warning silenced only around these declarations.
#pragma once

#include <memory>

#include "opforge/serialize.h"
#include "opforge/trt/common.h"

OPFORGE_TRT_V2_BEGIN

namespace opforge {
namespace trt {

/** Which name a V2 creator registers under. */
enum class V2Name {
  kOp,             // the op name (TensorRT 8.x's dynamic-shape plugin, MMDeploy style)
  kPaddleDynamic,  // <op>_paddle_trt_dynamic_plugin
  kPaddleStatic,   // <op>_paddle_trt_plugin
};

template <class Op>
inline const char* v2Name(V2Name n) {
  switch (n) {
    case V2Name::kOp: return Op::kPluginName;
    case V2Name::kPaddleDynamic: return Op::kPaddleDynamicName;
    case V2Name::kPaddleStatic: return Op::kPaddleStaticName;
  }
  return Op::kPluginName;
}

/** Paddle asks for version "1" whatever the op's version; the op's own name uses the spec's version. */
template <class Op>
inline const char* v2Version(V2Name n) {
  return n == V2Name::kOp ? Op::kPluginVersion : "1";
}

/** Fields every V2 plugin shares: its registered name, version and namespace. */
class V2Identity {
 public:
  V2Identity(const char* type, const char* version) : type_(type), version_(version) {}
  const char* type() const { return type_; }
  const char* version() const { return version_; }
  const char* ns() const { return namespace_.c_str(); }
  void setNs(const char* ns) {
    try { namespace_ = ns != nullptr ? ns : ""; } catch (...) {}
  }

 private:
  const char* type_;
  const char* version_;
  std::string namespace_;
};

template <class Op>
class PluginV2Dynamic final : public nvinfer1::IPluginV2DynamicExt {
 public:
  using Core = PluginCore<Op>;

  PluginV2Dynamic(Core core, V2Identity id) : core_(std::move(core)), id_(std::move(id)) {}

  static PluginV2Dynamic* deserialize(const void* data, size_t size, V2Identity id) {
    Core core;
    if (!core.deserialize(data, size)) return nullptr;
    return new PluginV2Dynamic(std::move(core), std::move(id));
  }

  // IPluginV2
  const char* getPluginType() const noexcept override { return id_.type(); }
  const char* getPluginVersion() const noexcept override { return id_.version(); }
  int32_t getNbOutputs() const noexcept override { return core_.numOutputs(); }
  int32_t initialize() noexcept override { return 0; }
  void terminate() noexcept override {}
  size_t getSerializationSize() const noexcept override { return core_.serializedSize(); }
  void serialize(void* buffer) const noexcept override { core_.serialize(buffer); }
  void destroy() noexcept override { delete this; }
  void setPluginNamespace(const char* ns) noexcept override { id_.setNs(ns); }
  const char* getPluginNamespace() const noexcept override { return id_.ns(); }

  // IPluginV2Ext
  nvinfer1::DataType getOutputDataType(int32_t index, const nvinfer1::DataType* inputTypes, int32_t nbInputs) const noexcept override {
    nvinfer1::DataType out[Op::kNumOutputs] = {};
    try {
      if (index >= 0 && index < core_.numOutputs() && core_.outputTypes(inputTypes, nbInputs, out)) return out[index];
    } catch (...) {
    }
    return nbInputs > 0 ? inputTypes[0] : nvinfer1::DataType::kFLOAT;
  }

  // IPluginV2DynamicExt
  nvinfer1::IPluginV2DynamicExt* clone() const noexcept override {
    try {
      return new PluginV2Dynamic(*this);
    } catch (...) {
      return nullptr;
    }
  }

  nvinfer1::DimsExprs getOutputDimensions(int32_t outputIndex, const nvinfer1::DimsExprs* inputs, int32_t nbInputs,
                                          nvinfer1::IExprBuilder& exprBuilder) noexcept override {
    nvinfer1::DimsExprs out{};
    out.nbDims = -1;
    bool present[Op::kMaxInputs] = {};
    if (outputIndex < 0 || outputIndex >= Op::kNumOutputs || !Core::presence(nbInputs, present)) return out;
    try {
      if (!Op::outputDims(core_.attrs(), outputIndex, inputs, present, nbInputs, exprBuilder, &out)) {
        logError(std::string(Op::kPluginName) + ": cannot infer the dims of output " + Op::kOutputNames[outputIndex]);
        out.nbDims = -1;
      }
    } catch (...) {
      out.nbDims = -1;
    }
    return out;
  }

  bool supportsFormatCombination(int32_t pos, const nvinfer1::PluginTensorDesc* inOut, int32_t nbInputs,
                                 int32_t nbOutputs) noexcept override {
    const int32_t n = nbInputs + nbOutputs;
    if (pos < 0 || pos >= n || n > Op::kMaxInputs + Op::kNumOutputs) return false;
    nvinfer1::TensorFormat formats[Op::kMaxInputs + Op::kNumOutputs] = {};
    nvinfer1::DataType types[Op::kMaxInputs + Op::kNumOutputs] = {};
    for (int32_t i = 0; i <= pos; ++i) { formats[i] = inOut[i].format; types[i] = inOut[i].type; }
    return core_.supports(pos, formats, types, nbInputs, nbOutputs);
  }

  void configurePlugin(const nvinfer1::DynamicPluginTensorDesc* in, int32_t nbInputs,
                       const nvinfer1::DynamicPluginTensorDesc* /*out*/, int32_t /*nbOutputs*/) noexcept override {
    if (nbInputs >= 0 && nbInputs <= Op::kMaxInputs) nbInputs_ = nbInputs;
    for (int32_t i = 0; i < nbInputs && i < Op::kMaxInputs; ++i) {
      const int32_t rank = Op::kInputRank[Op::portOf(i)];
      if (rank >= 0 && in[i].desc.dims.nbDims != rank) {
        logError(std::string(Op::kPluginName) + ": " + Op::inputName(i) + " must have rank " + std::to_string(rank));
      }
      const uint32_t ranks = Op::kInputRanks[Op::portOf(i)];
      if (ranks != 0 && !rankAllowed(ranks, in[i].desc.dims.nbDims)) {
        logError(std::string(Op::kPluginName) + ": " + Op::inputName(i) + " must have rank " + rankList(ranks));
      }
    }
  }

  size_t getWorkspaceSize(const nvinfer1::PluginTensorDesc* inputs, int32_t nbInputs, const nvinfer1::PluginTensorDesc* /*outputs*/,
                          int32_t /*nbOutputs*/) const noexcept override {
    if (nbInputs > Op::kMaxInputs || nbInputs < 0) return 0;
    try {
      nvinfer1::Dims dims[Op::kMaxInputs] = {};
      nvinfer1::DataType types[Op::kMaxInputs] = {};
      for (int32_t i = 0; i < nbInputs; ++i) {
        dims[i] = inputs[i].dims;
        types[i] = inputs[i].type;
      }
      return core_.workspace(dims, types, nbInputs);
    } catch (...) {
      return 0;
    }
  }

  int32_t enqueue(const nvinfer1::PluginTensorDesc* inputDesc, const nvinfer1::PluginTensorDesc* outputDesc,
                  const void* const* inputs, void* const* outputs, void* workspace, cudaStream_t stream) noexcept override {
    try {
      nvinfer1::Dims inDims[Op::kMaxInputs] = {}, outDims[Op::kNumOutputs] = {};
      nvinfer1::DataType inTypes[Op::kMaxInputs] = {}, outTypes[Op::kNumOutputs] = {};
      for (int32_t i = 0; i < nbInputs_; ++i) { inDims[i] = inputDesc[i].dims; inTypes[i] = inputDesc[i].type; }
      const int32_t nbOutputs = core_.numOutputs();
      for (int32_t o = 0; o < nbOutputs; ++o) { outDims[o] = outputDesc[o].dims; outTypes[o] = outputDesc[o].type; }
      return core_.enqueue(inDims, inTypes, nbInputs_, outDims, outTypes, nbOutputs, inputs, outputs, workspace, stream);
    } catch (...) {
      logError(std::string(Op::kPluginName) + ": enqueue failed");
      return 1;
    }
  }

  Core& core() { return core_; }

 private:
  PluginV2Dynamic(const PluginV2Dynamic&) = default;

  Core core_;
  V2Identity id_;
  int32_t nbInputs_ = Op::kNumInputs;
};

/**
 * Implicit-batch plugin (Paddle's static-shape mode). TensorRT passes dims without the batch
 * dim; the plugin prepends it, so the spec's shapes describe whole tensors as everywhere else.
 * Output dims are inferred with batch 1 and checked against the real batch at enqueue.
 * The configured dims and dtypes are serialized after the op core's bytes, because TensorRT
 * does not configure a deserialized IPluginV2Ext again.
 */
template <class Op>
class PluginV2Static final : public nvinfer1::IPluginV2Ext {
 public:
  using Core = PluginCore<Op>;

  PluginV2Static(Core core, V2Identity id) : core_(std::move(core)), id_(std::move(id)) {}

  static PluginV2Static* deserialize(const void* data, size_t size, V2Identity id) {
    serial::Reader r(data, size);
    uint32_t coreSize = 0;
    if (!r.pod(coreSize) || coreSize > r.remaining()) { logError(std::string(Op::kPluginName) + ": truncated serialized data"); return nullptr; }
    const auto* bytes = static_cast<const uint8_t*>(data) + sizeof(uint32_t);
    Core core;
    if (!core.deserialize(bytes, coreSize)) return nullptr;
    std::vector<uint8_t> skip(coreSize);
    r.raw(skip.data(), coreSize);
    auto p = std::unique_ptr<PluginV2Static>(new PluginV2Static(std::move(core), std::move(id)));
    int32_t nbIn = 0;
    r.pod(nbIn);
    if (!r.ok() || nbIn < 0 || nbIn > Op::kMaxInputs) { logError(std::string(Op::kPluginName) + ": corrupted static plugin config"); return nullptr; }
    p->nbInputs_ = nbIn;
    for (int32_t i = 0; i < nbIn; ++i) readDesc(r, &p->inDims_[i], &p->inTypes_[i]);
    for (int32_t o = 0; o < Op::kNumOutputs; ++o) readDesc(r, &p->outDims_[o], &p->outTypes_[o]);
    if (!r.ok() || r.remaining() != 0) { logError(std::string(Op::kPluginName) + ": corrupted static plugin config"); return nullptr; }
    for (int32_t i = 0; i < nbIn; ++i) {
      DType t;
      if (p->inDims_[i].nbDims < 0 || p->inDims_[i].nbDims >= kMaxRank || !fromTrt(p->inTypes_[i], &t)) { logError(std::string(Op::kPluginName) + ": corrupted static plugin config"); return nullptr; }
    }
    for (int32_t o = 0; o < Op::kNumOutputs; ++o) {
      DType t;
      if (p->outDims_[o].nbDims < 0 || p->outDims_[o].nbDims >= kMaxRank || !fromTrt(p->outTypes_[o], &t)) { logError(std::string(Op::kPluginName) + ": corrupted static plugin config"); return nullptr; }
    }
    return p.release();
  }

  // IPluginV2
  const char* getPluginType() const noexcept override { return id_.type(); }
  const char* getPluginVersion() const noexcept override { return id_.version(); }
  int32_t getNbOutputs() const noexcept override { return core_.numOutputs(); }

  nvinfer1::Dims getOutputDimensions(int32_t index, const nvinfer1::Dims* inputs, int32_t nbInputDims) noexcept override {
    nvinfer1::Dims out{};
    out.nbDims = -1;
    Shape shapes[Op::kMaxInputs];
    bool present[Op::kMaxInputs] = {};
    if (index < 0 || index >= Op::kNumOutputs || !batched(inputs, nbInputDims, 1, shapes, present)) return out;
    try {
      Shape outShapes[Op::kNumOutputs];
      const int numIn = Core::tensorCount(nbInputDims);
      Status s = Op::checkShapes(core_.attrs(), shapes, present, numIn);
      if (s.ok()) s = Op::inferShapes(core_.attrs(), shapes, numIn, outShapes);
      if (!s.ok()) { logError(s.message()); return out; }
      const Shape& o = outShapes[index];
      if (o.rank < 1) { logError(std::string(Op::kPluginName) + ": output " + Op::kOutputNames[index] + " has no batch dim"); return out; }
      out.nbDims = o.rank - 1;
      for (int32_t d = 1; d < o.rank; ++d) out.d[d - 1] = static_cast<DimValue>(o.dims[d]);
    } catch (...) {
      out.nbDims = -1;
    }
    return out;
  }

  bool supportsFormat(nvinfer1::DataType type, nvinfer1::PluginFormat format) const noexcept override {
    DType t;
    if (format != nvinfer1::TensorFormat::kLINEAR || !fromTrt(type, &t)) return false;
    for (int port = 0; port < Op::kNumInputs + Op::kNumOutputs; ++port) if (Op::portAllows(port, t)) return true;
    return false;
  }

  int32_t initialize() noexcept override { return 0; }
  void terminate() noexcept override {}

  size_t getWorkspaceSize(int32_t maxBatchSize) const noexcept override {
    try {
      nvinfer1::Dims dims[Op::kMaxInputs] = {};
      for (int32_t i = 0; i < nbInputs_; ++i) if (!prepend(inDims_[i], maxBatchSize, &dims[i])) return 0;
      return core_.workspace(dims, inTypes_, nbInputs_);
    } catch (...) {
      return 0;
    }
  }

  int32_t enqueue(int32_t batchSize, const void* const* inputs, void* const* outputs, void* workspace,
                  cudaStream_t stream) noexcept override {
    try {
      nvinfer1::Dims inDims[Op::kMaxInputs] = {}, outDims[Op::kNumOutputs] = {};
      for (int32_t i = 0; i < nbInputs_; ++i) if (!prepend(inDims_[i], batchSize, &inDims[i])) return 1;
      const int32_t nbOutputs = core_.numOutputs();
      for (int32_t o = 0; o < nbOutputs; ++o) if (!prepend(outDims_[o], batchSize, &outDims[o])) return 1;
      return core_.enqueue(inDims, inTypes_, nbInputs_, outDims, outTypes_, nbOutputs, inputs, outputs, workspace, stream);
    } catch (...) {
      logError(std::string(Op::kPluginName) + ": enqueue failed");
      return 1;
    }
  }

  size_t getSerializationSize() const noexcept override {
    const size_t desc = sizeof(int32_t) * 2 + sizeof(int64_t) * static_cast<size_t>(kMaxRank);
    return sizeof(uint32_t) + core_.serializedSize() + sizeof(int32_t) + desc * static_cast<size_t>(nbInputs_ + Op::kNumOutputs);
  }

  void serialize(void* buffer) const noexcept override {
    const size_t coreSize = core_.serializedSize();
    serial::Writer w(buffer);
    w.pod(static_cast<uint32_t>(coreSize));
    core_.serialize(w.position());
    serial::Writer rest(w.position() + coreSize);
    rest.pod(nbInputs_);
    for (int32_t i = 0; i < nbInputs_; ++i) writeDesc(rest, inDims_[i], inTypes_[i]);
    for (int32_t o = 0; o < Op::kNumOutputs; ++o) writeDesc(rest, outDims_[o], outTypes_[o]);
  }

  void destroy() noexcept override { delete this; }
  void setPluginNamespace(const char* ns) noexcept override { id_.setNs(ns); }
  const char* getPluginNamespace() const noexcept override { return id_.ns(); }

  // IPluginV2Ext
  nvinfer1::DataType getOutputDataType(int32_t index, const nvinfer1::DataType* inputTypes, int32_t nbInputs) const noexcept override {
    nvinfer1::DataType out[Op::kNumOutputs] = {};
    try {
      if (index >= 0 && index < core_.numOutputs() && core_.outputTypes(inputTypes, nbInputs, out)) return out[index];
    } catch (...) {
    }
    return nbInputs > 0 ? inputTypes[0] : nvinfer1::DataType::kFLOAT;
  }

#if NV_TENSORRT_MAJOR < 11
  // Removed in TensorRT 11 (and deprecated in 10): no output is broadcast across the batch.
  bool isOutputBroadcastAcrossBatch(int32_t /*outputIndex*/, const bool* /*inputIsBroadcasted*/, int32_t /*nbInputs*/) const noexcept override {
    return false;
  }
  bool canBroadcastInputAcrossBatch(int32_t /*inputIndex*/) const noexcept override { return false; }
#endif

  void configurePlugin(const nvinfer1::Dims* inputDims, int32_t nbInputs, const nvinfer1::Dims* outputDims, int32_t nbOutputs,
                       const nvinfer1::DataType* inputTypes, const nvinfer1::DataType* outputTypes, const bool* /*inputIsBroadcast*/,
                       const bool* /*outputIsBroadcast*/, nvinfer1::PluginFormat /*floatFormat*/, int32_t /*maxBatchSize*/) noexcept override {
    if (nbInputs < 0 || nbInputs > Op::kMaxInputs || nbOutputs != core_.numOutputs()) {
      logError(std::string(Op::kPluginName) + ": configured with the wrong number of tensors");
      return;
    }
    // Keep only a configuration deserialize() would accept back (per-sample dims, 0..kMaxRank-1).
    for (int32_t i = 0; i < nbInputs + nbOutputs; ++i) {
      const nvinfer1::Dims& d = i < nbInputs ? inputDims[i] : outputDims[i - nbInputs];
      if (d.nbDims < 0 || d.nbDims >= kMaxRank) {
        logError(std::string(Op::kPluginName) + ": configured with per-sample dims of rank " + std::to_string(d.nbDims) + " (implicit batch needs 0.." + std::to_string(kMaxRank - 1) + ")");
        return;
      }
    }
    nbInputs_ = nbInputs;
    for (int32_t i = 0; i < nbInputs; ++i) { inDims_[i] = inputDims[i]; inTypes_[i] = inputTypes[i]; }
    for (int32_t o = 0; o < nbOutputs; ++o) { outDims_[o] = outputDims[o]; outTypes_[o] = outputTypes[o]; }
  }

  nvinfer1::IPluginV2Ext* clone() const noexcept override {
    try {
      return new PluginV2Static(*this);
    } catch (...) {
      return nullptr;
    }
  }

  Core& core() { return core_; }

 private:
  PluginV2Static(const PluginV2Static&) = default;

  static bool prepend(const nvinfer1::Dims& d, int64_t batch, nvinfer1::Dims* out) {
    if (d.nbDims < 0 || d.nbDims + 1 > nvinfer1::Dims::MAX_DIMS || d.nbDims + 1 > kMaxRank) return false;
    out->nbDims = d.nbDims + 1;
    out->d[0] = static_cast<DimValue>(batch);
    for (int32_t i = 0; i < d.nbDims; ++i) out->d[i + 1] = d.d[i];
    return true;
  }

  static bool batched(const nvinfer1::Dims* dims, int32_t nbInputs, int64_t batch, Shape* shapes, bool* present) {
    if (!Core::presence(nbInputs, present)) return false;
    for (int32_t i = 0; i < nbInputs; ++i) {
      nvinfer1::Dims b;
      if (!prepend(dims[i], batch, &b) || !toShape(b, &shapes[i])) return false;
    }
    return true;
  }

  static void writeDesc(serial::Writer& w, const nvinfer1::Dims& d, nvinfer1::DataType t) {
    w.pod(static_cast<int32_t>(d.nbDims));
    w.pod(static_cast<int32_t>(t));
    for (int32_t i = 0; i < kMaxRank; ++i) w.pod(static_cast<int64_t>(i < d.nbDims ? d.d[i] : 0));
  }

  static void readDesc(serial::Reader& r, nvinfer1::Dims* d, nvinfer1::DataType* t) {
    int32_t nb = 0, type = 0;
    r.pod(nb);
    r.pod(type);
    d->nbDims = nb;
    *t = static_cast<nvinfer1::DataType>(type);
    for (int32_t i = 0; i < kMaxRank; ++i) {
      int64_t v = 0;
      r.pod(v);
      if (i < nvinfer1::Dims::MAX_DIMS) d->d[i] = static_cast<DimValue>(v);
    }
  }

  Core core_;
  V2Identity id_;
  int32_t nbInputs_ = 0;
  nvinfer1::Dims inDims_[Op::kMaxInputs] = {};
  nvinfer1::DataType inTypes_[Op::kMaxInputs] = {};
  nvinfer1::Dims outDims_[Op::kNumOutputs] = {};
  nvinfer1::DataType outTypes_[Op::kNumOutputs] = {};
};

/** IPluginCreator for either V2 plugin, under one of the op's V2 names. */
template <class Plugin, class Op, V2Name N>
class CreatorV2 final : public nvinfer1::IPluginCreator {
 public:
  const char* getPluginName() const noexcept override { return v2Name<Op>(N); }
  const char* getPluginVersion() const noexcept override { return v2Version<Op>(N); }
  const nvinfer1::PluginFieldCollection* getFieldNames() noexcept override { return PluginCore<Op>::fieldNames(); }

  nvinfer1::IPluginV2* createPlugin(const char* /*name*/, const nvinfer1::PluginFieldCollection* fc) noexcept override {
    try {
      if constexpr (Op::kNumDataDims > 0) {
        logError(std::string(v2Name<Op>(N)) + ": " + PluginCore<Op>::kNoDataDims);
        return nullptr;
      }
      typename Op::Attrs attrs;
      if (!PluginCore<Op>::fromFields(fc, v2Name<Op>(N), &attrs) || !PluginCore<Op>::checkDtypes()) return nullptr;
      auto* p = new Plugin(PluginCore<Op>(std::move(attrs)), identity());
      return p;
    } catch (...) {
      logError(std::string(v2Name<Op>(N)) + ": createPlugin failed");
      return nullptr;
    }
  }

  nvinfer1::IPluginV2* deserializePlugin(const char* /*name*/, const void* serialData, size_t serialLength) noexcept override {
    try {
      if constexpr (Op::kNumDataDims > 0) {
        logError(std::string(v2Name<Op>(N)) + ": " + PluginCore<Op>::kNoDataDims);
        return nullptr;
      }
      return Plugin::deserialize(serialData, serialLength, identity());
    } catch (...) {
      logError(std::string(v2Name<Op>(N)) + ": deserializePlugin failed");
      return nullptr;
    }
  }

  void setPluginNamespace(const char* ns) noexcept override {
    try { namespace_ = ns != nullptr ? ns : ""; } catch (...) {}
  }
  const char* getPluginNamespace() const noexcept override { return namespace_.c_str(); }

 private:
  V2Identity identity() const {
    V2Identity id(v2Name<Op>(N), v2Version<Op>(N));
    id.setNs(namespace_.c_str());
    return id;
  }

  std::string namespace_;
};

/** An op's V2 creators: under its own name (TensorRT 8.x) and under Paddle's two plugin names. */
template <class Op> using OpCreatorV2 = CreatorV2<PluginV2Dynamic<Op>, Op, V2Name::kOp>;
template <class Op> using PaddleDynamicCreator = CreatorV2<PluginV2Dynamic<Op>, Op, V2Name::kPaddleDynamic>;
template <class Op> using PaddleStaticCreator = CreatorV2<PluginV2Static<Op>, Op, V2Name::kPaddleStatic>;

}  // namespace trt
}  // namespace opforge

OPFORGE_TRT_V2_END
