// TensorRT plugin lifecycle driver, without libnvinfer: stubs for the expression builder, host
// and device buffers, and one method per plugin generation. runtime/testing/backends/trt/lifecycle.ts generates
// main() with one block per spec test case; `opforge test --backend trt` builds and runs it.
// Include after the generated out/trt/<op>/<op>_trt.h headers.
#pragma once

#include <cuda_runtime.h>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

inline int failures = 0, checks = 0, skipped = 0;
#define EXPECT(cond, what) do { ++checks; if (!(cond)) { ++failures; std::printf("FAIL %s: %s\n", name, what); } } while (0)

/** A case this TensorRT cannot run (a dtype it lacks, an absent optional input it cannot express). */
inline void skipCase(const char* what, const char* why) {
  ++skipped;
  std::printf("skip %s: %s\n", what, why);
}

// ---- What the plugins log: an ILoggerFinder as TensorRT passes to setLoggerFinder(). ---------
class CaptureLogger final : public nvinfer1::ILogger {
 public:
  std::string text;
  void log(Severity, const char* msg) noexcept override {
    try { text += msg; text += '\n'; } catch (...) {}
  }
};
class CaptureFinder final : public nvinfer1::ILoggerFinder {
 public:
  CaptureLogger logger;
  nvinfer1::ILogger* findLogger() override { return &logger; }
};

/** The TensorRT dtypes `ok` accepts, in enum order. */
template <class Ok> std::vector<nvinfer1::DataType> acceptedTypes(Ok ok) {
  std::vector<nvinfer1::DataType> v;
  for (int32_t t = 0; t < nvinfer1::EnumMax<nvinfer1::DataType>(); ++t) if (ok(static_cast<nvinfer1::DataType>(t))) v.push_back(static_cast<nvinfer1::DataType>(t));
  return v;
}

/**
 * The dtypes this TensorRT cannot carry: creating the op from `fields` logs each refused dtype
 * binding (`logged`, as the plugin words them) and fails exactly when none is left
 * (`creatable`); supportsFormatCombination then offers input 0 exactly the TensorRT types of
 * `accepted` (float64, FP8, INT4 ... never; int64 and bfloat16 only where this TensorRT has them).
 */
template <class Op>
void dtypeRefusal(const char* name, const std::vector<nvinfer1::PluginField>& fields, bool creatable,
                  const std::vector<std::string>& logged, const std::vector<nvinfer1::DataType>& accepted) {
  nvinfer1::PluginFieldCollection fc{static_cast<int32_t>(fields.size()), fields.empty() ? nullptr : fields.data()};
  CaptureFinder finder;
  opforge::trt::loggerFinder().store(&finder);
OPFORGE_TRT_V2_BEGIN
  opforge::trt::CreatorV2<opforge::trt::PluginV2Dynamic<Op>, Op, opforge::trt::V2Name::kOp> creator;
  std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)> p(creator.createPlugin(name, &fc), [](nvinfer1::IPluginV2* x) { if (x) x->destroy(); });
OPFORGE_TRT_V2_END
#if NV_TENSORRT_MAJOR >= 10
  opforge::trt::CreatorV3<Op> creatorV3;
  std::unique_ptr<nvinfer1::IPluginV3> v3(creatorV3.createPlugin(name, &fc, nvinfer1::TensorRTPhase::kBUILD));
  EXPECT((v3 != nullptr) == creatable, creatable ? "V3 created on this TensorRT" : "V3 creation refused: no dtype binding this TensorRT can carry");
#endif
  opforge::trt::loggerFinder().store(nullptr);
  const std::string& log = finder.logger.text;
  if constexpr (Op::kNumDataDims > 0) {
    // An IPluginV2 cannot declare a dim the kernel decides: refused by name, whatever the dtypes.
    EXPECT(p == nullptr && log.find("data_dims") != std::string::npos, ("V2Dynamic refuses an op with dims the kernel decides; log was: " + log).c_str());
    std::printf("%s %s on TensorRT %d: V2 refused (data dims)\n", p == nullptr ? "ok  " : "FAIL", name, NV_TENSORRT_MAJOR);
    return;
  }
  EXPECT((p != nullptr) == creatable, creatable ? "V2Dynamic created on this TensorRT" : "V2Dynamic creation refused: no dtype binding this TensorRT can carry");
  for (const std::string& m : logged) EXPECT(log.find(m) != std::string::npos, ("logs \"" + m + "\"; log was: " + log).c_str());
  if (logged.empty()) EXPECT(log.find("has no tensor type") == std::string::npos, ("logs no refused dtype; log was: " + log).c_str());
  if (!log.empty()) std::printf("     %s logged: %s", name, log.c_str());
  if (!p) {
    std::printf("%s %s dtypes on TensorRT %d: creation refused\n", creatable ? "FAIL" : "ok  ", name, NV_TENSORRT_MAJOR);
    return;
  }
OPFORGE_TRT_V2_BEGIN
  auto* plugin = static_cast<nvinfer1::IPluginV2DynamicExt*>(p.get());
  // The fewest inputs a node has: every input, or the fixed ones and min_count members.
  std::vector<nvinfer1::PluginTensorDesc> d(Op::kMinInputs + Op::kNumOutputs);
  for (auto& x : d) { x.format = nvinfer1::TensorFormat::kLINEAR; x.type = nvinfer1::DataType::kFLOAT; x.scale = 1.f; }
  const auto got = acceptedTypes([&](nvinfer1::DataType t) { d[0].type = t; return plugin->supportsFormatCombination(0, d.data(), Op::kMinInputs, plugin->getNbOutputs()); });
OPFORGE_TRT_V2_END
  // Compared as sets: `accepted` comes in opforge's dtype order, `got` in TensorRT's enum order.
  std::vector<nvinfer1::DataType> want = accepted;
  std::sort(want.begin(), want.end());
  const bool same = got == want;
  EXPECT(same, "V2Dynamic supportsFormatCombination offers input 0 exactly the dtypes this TensorRT carries");
  std::printf("%s %s dtypes on TensorRT %d: %zu of %d TensorRT types offered for input 0%s\n", same ? "ok  " : "FAIL", name,
              NV_TENSORRT_MAJOR, got.size(), nvinfer1::EnumMax<nvinfer1::DataType>(), logged.empty() ? "" : ", refused bindings logged");
}

// ---- Stub expression builder: constants only (shapes of a test case are all known). ----------
class ConstImpl final : public nvinfer1::apiv::VDimensionExpr {
 public:
  explicit ConstImpl(int64_t v) : v_(v) {}
  bool isConstant() const override { return true; }
#if NV_TENSORRT_MAJOR >= 10
  int64_t getConstantValue() const override { return v_; }
  bool isSizeTensor() const override { return false; }
#else
  int32_t getConstantValue() const override { return static_cast<int32_t>(v_); }
#endif
 private:
  int64_t v_;
};
class ConstExpr final : public nvinfer1::IDimensionExpr {
 public:
  explicit ConstExpr(int64_t v) : impl_(v) { mImpl = &impl_; }
  ~ConstExpr() noexcept override = default;
 private:
  ConstImpl impl_;
};
#if NV_TENSORRT_MAJOR >= 10
/** A size tensor's dim (declareSizeTensor): not a constant; the checks read isSizeTensor(). */
class SizeImpl final : public nvinfer1::apiv::VDimensionExpr {
 public:
  bool isConstant() const override { return false; }
  int64_t getConstantValue() const override { return -1; }
  bool isSizeTensor() const override { return true; }
};
class SizeExpr final : public nvinfer1::IDimensionExpr {
 public:
  SizeExpr() { mImpl = &impl_; }
  ~SizeExpr() noexcept override = default;
 private:
  SizeImpl impl_;
};
#endif
class BuilderImpl final : public nvinfer1::apiv::VExprBuilder {
 public:
  std::deque<ConstExpr> pool;
  const nvinfer1::IDimensionExpr* make(int64_t v) { pool.emplace_back(v); return &pool.back(); }
#if NV_TENSORRT_MAJOR >= 10
  const nvinfer1::IDimensionExpr* constant(int64_t v) override { return make(v); }
  std::deque<SizeExpr> sizes;
  /** Size tensors declared: output index, and the opt and upper values (constants here). */
  std::vector<std::array<int64_t, 3>> declared;
  const nvinfer1::IDimensionExpr* declareSizeTensor(int32_t o, const nvinfer1::IDimensionExpr& opt, const nvinfer1::IDimensionExpr& upper) override {
    declared.push_back({o, opt.getConstantValue(), upper.getConstantValue()});
    sizes.emplace_back();
    return &sizes.back();
  }
#else
  const nvinfer1::IDimensionExpr* constant(int32_t v) override { return make(v); }
#endif
  const nvinfer1::IDimensionExpr* operation(nvinfer1::DimensionOperation op, const nvinfer1::IDimensionExpr& a, const nvinfer1::IDimensionExpr& b) override {
    const int64_t x = a.getConstantValue(), y = b.getConstantValue();
    switch (op) {
      case nvinfer1::DimensionOperation::kSUM: return make(x + y);
      case nvinfer1::DimensionOperation::kPROD: return make(x * y);
      case nvinfer1::DimensionOperation::kMAX: return make(x > y ? x : y);
      case nvinfer1::DimensionOperation::kMIN: return make(x < y ? x : y);
      case nvinfer1::DimensionOperation::kSUB: return make(x - y);
      case nvinfer1::DimensionOperation::kEQUAL: return make(x == y);
      case nvinfer1::DimensionOperation::kLESS: return make(x < y);
      case nvinfer1::DimensionOperation::kFLOOR_DIV: { if (y == 0) return nullptr; int64_t q = x / y; if ((x % y != 0) && ((x < 0) != (y < 0))) --q; return make(q); }
      case nvinfer1::DimensionOperation::kCEIL_DIV: { if (y == 0) return nullptr; int64_t q = x / y; if ((x % y != 0) && ((x < 0) == (y < 0))) ++q; return make(q); }
    }
    return nullptr;
  }
};
class Builder final : public nvinfer1::IExprBuilder {
 public:
  Builder() { mImpl = &impl_; }
  ~Builder() noexcept override = default;
  const BuilderImpl& impl() const { return impl_; }
 private:
  BuilderImpl impl_;
};

// ---- Host data ------------------------------------------------------------------------------
inline double toDouble(opforge::DType t, const uint8_t* p) {
  switch (t) {
    case opforge::DType::kFloat32: { float v; std::memcpy(&v, p, 4); return v; }
    case opforge::DType::kFloat64: { double v; std::memcpy(&v, p, 8); return v; }
    case opforge::DType::kFloat16: { opforge::float16 v; std::memcpy(&v, p, 2); return opforge::toFloat(v); }
    case opforge::DType::kBFloat16: { opforge::bfloat16 v; std::memcpy(&v, p, 2); return opforge::toFloat(v); }
    case opforge::DType::kInt32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case opforge::DType::kInt64: { int64_t v; std::memcpy(&v, p, 8); return static_cast<double>(v); }
    case opforge::DType::kInt8: return static_cast<int8_t>(*p);
    case opforge::DType::kUInt8: case opforge::DType::kBool: return *p;
  }
  return 0;
}
inline void fromDouble(opforge::DType t, double d, uint8_t* p) {
  switch (t) {
    case opforge::DType::kFloat32: { float v = static_cast<float>(d); std::memcpy(p, &v, 4); break; }
    case opforge::DType::kFloat64: std::memcpy(p, &d, 8); break;
    case opforge::DType::kFloat16: { auto v = opforge::toFloat16(static_cast<float>(d)); std::memcpy(p, &v, 2); break; }
    case opforge::DType::kBFloat16: { auto v = opforge::toBFloat16(static_cast<float>(d)); std::memcpy(p, &v, 2); break; }
    case opforge::DType::kInt32: { int32_t v = static_cast<int32_t>(d); std::memcpy(p, &v, 4); break; }
    case opforge::DType::kInt64: { int64_t v = static_cast<int64_t>(d); std::memcpy(p, &v, 8); break; }
    case opforge::DType::kInt8: *p = static_cast<uint8_t>(static_cast<int8_t>(d)); break;
    case opforge::DType::kUInt8: case opforge::DType::kBool: *p = static_cast<uint8_t>(d); break;
  }
}

struct Buf { opforge::DType dtype; opforge::Shape shape; std::vector<uint8_t> host; };

struct Case {
  const char* name; double rtol, atol;
  int requiredField = -1;
  std::vector<nvinfer1::PluginField> fields;
  std::vector<Buf> ins, outs;
  std::vector<std::vector<uint8_t>> expected;
  /** Dims the kernel decides: the values the CPU kernel set, and each output's elements at its actual dims. */
  std::vector<int64_t> dataValues;
  std::vector<int64_t> exactNumel;
  Case(const char* n, double r, double a) : name(n), rtol(r), atol(a) {}

  static opforge::Shape shape(std::initializer_list<int64_t> d) { opforge::Shape s; for (int64_t x : d) s.dims[s.rank++] = x; return s; }
  void input(opforge::DType t, std::initializer_list<int64_t> d, std::vector<double> values, double lo, double hi, unsigned seed) {
    Buf b{t, shape(d), {}};
    const int64_t n = b.shape.numel();
    b.host.resize(n * opforge::dtypeSize(t));
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    const bool isInt = t != opforge::DType::kFloat32 && t != opforge::DType::kFloat64 && t != opforge::DType::kFloat16 && t != opforge::DType::kBFloat16;
    for (int64_t i = 0; i < n; ++i) {
      double v = values.empty() ? u(rng) : values[i];
      if (isInt && values.empty()) v = std::floor(v);
      fromDouble(t, v, b.host.data() + i * opforge::dtypeSize(t));
    }
    ins.push_back(std::move(b));
  }
  void output(opforge::DType t, std::initializer_list<int64_t> d) { Buf b{t, shape(d), {}}; b.host.resize(b.shape.numel() * opforge::dtypeSize(t)); outs.push_back(std::move(b)); }
  nvinfer1::PluginFieldCollection fc() const { return nvinfer1::PluginFieldCollection{static_cast<int32_t>(fields.size()), fields.empty() ? nullptr : fields.data()}; }

  nvinfer1::Dims dims(const Buf& b) const { nvinfer1::Dims d{}; d.nbDims = b.shape.rank; for (int i = 0; i < b.shape.rank; ++i) d.d[i] = static_cast<opforge::trt::DimValue>(b.shape.dims[i]); return d; }
  nvinfer1::DataType type(const Buf& b) const { nvinfer1::DataType t = nvinfer1::DataType::kFLOAT; opforge::trt::toTrt(b.dtype, &t); return t; }
  nvinfer1::PluginTensorDesc desc(const Buf& b) const { nvinfer1::PluginTensorDesc d{}; d.dims = dims(b); d.type = type(b); d.format = nvinfer1::TensorFormat::kLINEAR; d.scale = 1.f; return d; }
  std::vector<nvinfer1::PluginTensorDesc> descs() const { std::vector<nvinfer1::PluginTensorDesc> v; for (auto& b : ins) v.push_back(desc(b)); for (auto& b : outs) v.push_back(desc(b)); return v; }
  std::vector<nvinfer1::DynamicPluginTensorDesc> dynDescs() const {
    std::vector<nvinfer1::DynamicPluginTensorDesc> v;
    for (auto& d : descs()) { nvinfer1::DynamicPluginTensorDesc x{}; x.desc = d; x.min = d.dims; x.max = d.dims;
#if NV_TENSORRT_MAJOR >= 10
      x.opt = d.dims;
#endif
      v.push_back(x); }
    return v;
  }

  /** The CPU kernel's outputs through the op core: the reference every plugin is compared with. */
  template <class Op> void reference() {
    typename Op::Attrs attrs;
    const nvinfer1::PluginFieldCollection f = fc();
    EXPECT(opforge::trt::PluginCore<Op>::fromFields(&f, name, &attrs), "attributes from fields");
    typename Op::State state;
    std::vector<opforge::RawTensor> in, out;
    for (auto& b : ins) in.push_back({b.dtype, b.host.data(), b.shape, true});
    while (in.size() < static_cast<size_t>(Op::kNumInputs)) in.push_back({opforge::DType::kFloat32, nullptr, opforge::Shape{}, false});  // left-out optional inputs
    const int numIn = static_cast<int>(in.size());  // every input, or the fixed ones and the members
    for (auto& b : outs) out.push_back({b.dtype, b.host.data(), b.shape, true});
    while (out.size() < static_cast<size_t>(Op::kNumOutputs)) out.push_back({opforge::DType::kFloat32, nullptr, opforge::Shape{}, false});  // left out by the attributes
    dataValues.assign(Op::kNumDataDims, -1);
    for (int d = 0; d < Op::kNumDataDims; ++d) out.push_back({opforge::DType::kInt64, &dataValues[d], opforge::Shape{}, true});
    // State (configure) and scratch space from the input shapes, as the plugins do.
    opforge::Shape shapes[Op::kMaxInputs];
    opforge::DType dtypes[Op::kMaxInputs] = {};
    for (int i = 0; i < numIn; ++i) {
      shapes[i] = in[i].shape;
      dtypes[i] = in[i].dtype;
    }
    if constexpr (Op::kHasConfigure) EXPECT(Op::configure(attrs, shapes, &state).ok(), "configure");
    size_t wsBytes = 0;
    EXPECT(Op::workspaceSize(attrs, shapes, dtypes, numIn, &wsBytes).ok(), "workspaceSize");
    std::vector<uint8_t> ws(wsBytes);
    opforge::CpuContext ctx;
    ctx.workspace = ws.empty() ? nullptr : ws.data();
    ctx.workspaceSize = wsBytes;
    const opforge::Status s = Op::runCpu(attrs, state, in.data(), numIn, out.data(), ctx);
    EXPECT(s.ok(), ("runCpu: " + s.message()).c_str());
    for (auto& b : outs) expected.push_back(b.host);
    opforge::Shape exact[Op::kNumOutputs];
    for (int o = 0; o < Op::kNumOutputs; ++o) exact[o] = out[o].shape;
    for (int d = 0; d < Op::kNumDataDims; ++d) EXPECT(opforge::checkDataDim<Op>(d, dataValues[d], opforge::dataDim<Op>(out.data(), d).bound).ok(), "the CPU kernel sets each data dim within its bound");
    if constexpr (Op::kNumDataDims > 0) opforge::exactShapes<Op>(exact, dataValues.data());
    for (size_t o = 0; o < outs.size(); ++o) exactNumel.push_back(exact[o].numel());
  }

  /**
   * IPluginV3's outputs: the spec's, then one int32 size tensor (0-D) per data dim, expected to
   * hold the CPU kernel's value. Undone by dropSizeTensors() (the V2 plugins have none).
   */
  template <class Op> void addSizeTensors() {
    for (int d = 0; d < Op::kNumDataDims; ++d) {
      Buf b{opforge::DType::kInt32, opforge::Shape{}, std::vector<uint8_t>(4)};
      const int32_t v = static_cast<int32_t>(dataValues[d]);
      std::vector<uint8_t> want(4);
      std::memcpy(want.data(), &v, 4);
      outs.push_back(std::move(b));
      expected.push_back(want);
      exactNumel.push_back(1);
    }
  }
  template <class Op> void dropSizeTensors() {
    for (int d = 0; d < Op::kNumDataDims; ++d) { outs.pop_back(); expected.pop_back(); exactNumel.pop_back(); }
  }

  /** Device buffers, enqueue through fn, compare with the reference. */
  template <class Fn> void enqueueAndCompare(const char* which, Fn fn, size_t workspace) {
    if (std::getenv("OPFORGE_TRT_SKIP_ENQUEUE") != nullptr) { std::printf("skip %s %s: enqueue (no GPU)\n", name, which); return; }
    std::vector<void*> din, dout;
    for (auto& b : ins) { void* p = nullptr; cudaMalloc(&p, b.host.size() + 1); cudaMemcpy(p, b.host.data(), b.host.size(), cudaMemcpyHostToDevice); din.push_back(p); }
    for (auto& b : outs) { void* p = nullptr; cudaMalloc(&p, b.host.size() + 1); cudaMemset(p, 0xff, b.host.size()); dout.push_back(p); }
    void* ws = nullptr;
    if (workspace) cudaMalloc(&ws, workspace);
    cudaStream_t stream; cudaStreamCreate(&stream);
    const int32_t rc = fn(const_cast<const void* const*>(din.data()), dout.data(), ws, stream);
    const cudaError_t e = cudaStreamSynchronize(stream);
    char what[160];
    std::snprintf(what, sizeof what, "%s enqueue returned %d (%s)", which, rc, cudaGetErrorString(e));
    EXPECT(rc == 0 && e == cudaSuccess, what);
    double worst = 0; int64_t bad = 0, total = 0;
    for (size_t o = 0; o < outs.size(); ++o) {
      std::vector<uint8_t> g(outs[o].host.size());
      cudaMemcpy(g.data(), dout[o], g.size(), cudaMemcpyDeviceToHost);
      const size_t es = opforge::dtypeSize(outs[o].dtype);
      for (int64_t i = 0; i < (o < exactNumel.size() ? exactNumel[o] : outs[o].shape.numel()); ++i) {
        const double want = toDouble(outs[o].dtype, expected[o].data() + i * es), got = toDouble(outs[o].dtype, g.data() + i * es);
        ++total;
        if (std::isinf(want) && want == got) continue;
        const double err = std::fabs(got - want);
        worst = std::max(worst, err);
        if (!(err <= atol + rtol * std::fabs(want))) ++bad;
      }
    }
    std::snprintf(what, sizeof what, "%s: %lld of %lld values outside tolerance (max err %.3g)", which, static_cast<long long>(bad), static_cast<long long>(total), worst);
    EXPECT(bad == 0, what);
    std::printf("%s %s %s: %lld values, max |plugin - cpu| = %.3g\n", bad || rc ? "FAIL" : "ok  ", name, which, static_cast<long long>(total), worst);
    for (void* p : din) cudaFree(p);
    for (void* p : dout) cudaFree(p);
    if (ws) cudaFree(ws);
    cudaStreamDestroy(stream);
  }

  /** Negative creation: a missing required field and a field of the wrong type both give nullptr. */
  template <class Create> void rejectsBadFields(Create create) {
    if (requiredField >= 0) {
      std::vector<nvinfer1::PluginField> f;
      for (size_t i = 0; i < fields.size(); ++i) if (static_cast<int>(i) != requiredField) f.push_back(fields[i]);
      nvinfer1::PluginFieldCollection c{static_cast<int32_t>(f.size()), f.empty() ? nullptr : f.data()};
      EXPECT(!create(&c), "missing required field rejected");
    }
    if (!fields.empty()) {
      std::vector<nvinfer1::PluginField> f = fields;
      static const double wrong[] = {1.0};
      f[0].data = wrong; f[0].type = nvinfer1::PluginFieldType::kFLOAT64; f[0].length = 1;
      if (fields[0].type == nvinfer1::PluginFieldType::kFLOAT32) f[0].type = nvinfer1::PluginFieldType::kCHAR;
      nvinfer1::PluginFieldCollection c{static_cast<int32_t>(f.size()), f.data()};
      EXPECT(!create(&c), "wrong field type rejected");
    }
  }

  std::vector<nvinfer1::DataType> inTypes() const { std::vector<nvinfer1::DataType> v; for (auto& b : ins) v.push_back(type(b)); return v; }
#if NV_TENSORRT_MAJOR >= 10
  /** IPluginV3: the TensorRT 10/11 lifecycle, build phase then runtime phase. */
  template <class Op> void runV3() {
    addSizeTensors<Op>();
    runV3Lifecycle<Op>();
    dropSizeTensors<Op>();
  }

  template <class Op> void runV3Lifecycle() {
    opforge::trt::CreatorV3<Op> creator;
    const nvinfer1::PluginFieldCollection* names = creator.getFieldNames();
    EXPECT(names != nullptr && names->nbFields == Op::kNumAttributes, "V3 getFieldNames");
    rejectsBadFields([&](const nvinfer1::PluginFieldCollection* c) { std::unique_ptr<nvinfer1::IPluginV3> p(creator.createPlugin(name, c, nvinfer1::TensorRTPhase::kBUILD)); return p != nullptr; });
    nvinfer1::PluginFieldCollection c = fc();
    std::unique_ptr<nvinfer1::IPluginV3> built(creator.createPlugin(name, &c, nvinfer1::TensorRTPhase::kBUILD));
    EXPECT(built != nullptr, "V3 createPlugin(kBUILD)");
    if (!built) return;
    auto* core = static_cast<nvinfer1::IPluginV3OneCore*>(built->getCapabilityInterface(nvinfer1::PluginCapabilityType::kCORE));
    auto* build = static_cast<nvinfer1::IPluginV3OneBuild*>(built->getCapabilityInterface(nvinfer1::PluginCapabilityType::kBUILD));
    EXPECT(core && std::strcmp(core->getPluginName(), Op::kPluginName) == 0, "V3 plugin name");
    EXPECT(build->getNbOutputs() == static_cast<int32_t>(outs.size()), "V3 getNbOutputs");
    const auto it = inTypes();
    std::vector<nvinfer1::DataType> ot(outs.size());
    EXPECT(build->getOutputDataTypes(ot.data(), static_cast<int32_t>(ot.size()), it.data(), static_cast<int32_t>(it.size())) == 0, "V3 getOutputDataTypes");
    for (size_t o = 0; o < outs.size(); ++o) EXPECT(ot[o] == type(outs[o]), "V3 output dtype");
    Builder b;
    std::vector<nvinfer1::DimsExprs> in(ins.size()), out(outs.size());
    std::deque<ConstExpr> consts;
    for (size_t i = 0; i < ins.size(); ++i) { in[i].nbDims = ins[i].shape.rank; for (int d = 0; d < ins[i].shape.rank; ++d) { consts.emplace_back(ins[i].shape.dims[d]); in[i].d[d] = &consts.back(); } }
    EXPECT(build->getOutputShapes(in.data(), static_cast<int32_t>(in.size()), nullptr, 0, out.data(), static_cast<int32_t>(out.size()), b) == 0, "V3 getOutputShapes");
    for (size_t o = 0; o < outs.size(); ++o) {
      bool same = out[o].nbDims == outs[o].shape.rank;
      for (int d = 0; same && d < out[o].nbDims; ++d) {
        // A dim the kernel decides is a size tensor, declared with its bound as the upper limit.
        if (o < static_cast<size_t>(Op::kNumOutputs) && Op::dataDimAt(static_cast<int>(o), d) >= 0) same = out[o].d[d] && out[o].d[d]->isSizeTensor();
        else same = out[o].d[d] && out[o].d[d]->isConstant() && out[o].d[d]->getConstantValue() == outs[o].shape.dims[d];
      }
      EXPECT(same, "V3 output dims match the spec");
    }
    const int32_t specOutputs = static_cast<int32_t>(outs.size()) - Op::kNumDataDims;
    EXPECT(b.impl().declared.size() == static_cast<size_t>(Op::kNumDataDims), "V3 declares one size tensor per data dim");
    for (const auto& x : b.impl().declared) {
      const int d = static_cast<int>(x[0]) - specOutputs;
      bool bounded = false;
      for (int32_t o = 0; o < specOutputs; ++o)
        for (int a = 0; a < outs[o].shape.rank; ++a)
          if (Op::dataDimAt(o, a) == d && outs[o].shape.dims[a] == x[2]) bounded = true;
      EXPECT(d >= 0 && d < Op::kNumDataDims && bounded && x[1] == x[2] / 2, "V3 size tensor: output index, bound as upper, half of it as opt");
    }
    auto dyn = dynDescs();
    const int32_t nIn = static_cast<int32_t>(ins.size()), nOut = static_cast<int32_t>(outs.size());
    for (int32_t pos = 0; pos < nIn + nOut; ++pos) EXPECT(build->supportsFormatCombination(pos, dyn.data(), nIn, nOut), "V3 supportsFormatCombination accepts the case's dtypes");
    {
      auto probe = dyn;
      const int32_t last = nIn + nOut - 1;
      const auto got = acceptedTypes([&](nvinfer1::DataType t) { probe[last].desc.type = t; return build->supportsFormatCombination(last, probe.data(), nIn, nOut); });
      EXPECT(got.size() == 1 && got[0] == dyn[last].desc.type, "V3 supportsFormatCombination: the last output takes exactly the case's dtype");
    }
    EXPECT(build->configurePlugin(dyn.data(), nIn, dyn.data() + nIn, nOut) == 0, "V3 configurePlugin");
    const size_t ws = build->getWorkspaceSize(dyn.data(), nIn, dyn.data() + nIn, nOut);
    // Serialize through getFieldsToSerialize, re-create in the runtime phase.
    auto* rt = static_cast<nvinfer1::IPluginV3OneRuntime*>(built->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    const nvinfer1::PluginFieldCollection* ser = rt->getFieldsToSerialize();
    EXPECT(ser != nullptr && ser->nbFields == 1, "V3 getFieldsToSerialize");
    if (!ser) return;
    std::vector<uint8_t> bytes(static_cast<const uint8_t*>(ser->fields[0].data), static_cast<const uint8_t*>(ser->fields[0].data) + ser->fields[0].length);
    nvinfer1::PluginField sf(ser->fields[0].name, bytes.data(), ser->fields[0].type, ser->fields[0].length);
    nvinfer1::PluginFieldCollection sc{1, &sf};
    std::unique_ptr<nvinfer1::IPluginV3> runtime(creator.createPlugin(name, &sc, nvinfer1::TensorRTPhase::kRUNTIME));
    EXPECT(runtime != nullptr, "V3 createPlugin(kRUNTIME) from serialized fields");
    std::vector<uint8_t> bad = bytes;
    bad[bad.size() - 1] ^= 0x5a;
    nvinfer1::PluginField bf(ser->fields[0].name, bad.data(), ser->fields[0].type, ser->fields[0].length);
    nvinfer1::PluginFieldCollection bc{1, &bf};
    std::unique_ptr<nvinfer1::IPluginV3> corrupted(creator.createPlugin(name, &bc, nvinfer1::TensorRTPhase::kRUNTIME));
    EXPECT(corrupted == nullptr, "V3 corrupted serialized field rejected");
    nvinfer1::PluginField tf(ser->fields[0].name, bytes.data(), ser->fields[0].type, ser->fields[0].length - 1);
    nvinfer1::PluginFieldCollection tc{1, &tf};
    std::unique_ptr<nvinfer1::IPluginV3> truncated(creator.createPlugin(name, &tc, nvinfer1::TensorRTPhase::kRUNTIME));
    EXPECT(truncated == nullptr, "V3 truncated serialized field rejected");
    if (!runtime) return;
    std::unique_ptr<nvinfer1::IPluginV3> cloned(runtime->clone());
    EXPECT(cloned != nullptr, "V3 clone");
    auto* crt = static_cast<nvinfer1::IPluginV3OneRuntime*>(cloned->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    std::unique_ptr<nvinfer1::IPluginV3> attached(crt->attachToContext(nullptr));
    EXPECT(attached != nullptr, "V3 attachToContext");
    auto* art = static_cast<nvinfer1::IPluginV3OneRuntime*>(attached->getCapabilityInterface(nvinfer1::PluginCapabilityType::kRUNTIME));
    auto d = descs();
    EXPECT(art->onShapeChange(d.data(), nIn, d.data() + nIn, nOut) == 0, "V3 onShapeChange");
    enqueueAndCompare("IPluginV3", [&](const void* const* i, void* const* o, void* w, cudaStream_t s) { return art->enqueue(d.data(), d.data() + nIn, i, o, w, s); }, ws);
    // Every tactic it advertises (a Triton kernel's configurations), as TensorRT's timing runs them.
    const int32_t nbTactics = build->getNbTactics();
    std::vector<int32_t> tactics(static_cast<size_t>(nbTactics > 0 ? nbTactics : 0));
    EXPECT(nbTactics == 0 || build->getValidTactics(tactics.data(), nbTactics) == 0, "V3 getValidTactics");
    for (int32_t t : tactics) {
      EXPECT(t != 0 && art->setTactic(t) == 0, "V3 setTactic");
      enqueueAndCompare(("IPluginV3 tactic " + std::to_string(t)).c_str(), [&](const void* const* i, void* const* o, void* w, cudaStream_t s) { return art->enqueue(d.data(), d.data() + nIn, i, o, w, s); }, ws);
    }
  }
#endif

  /** IPluginV2DynamicExt: the TensorRT 8.x lifecycle (create, build queries, serialize, deserialize, clone, enqueue). */
  template <class Op> void runV2Dynamic() {
OPFORGE_TRT_V2_BEGIN
    opforge::trt::CreatorV2<opforge::trt::PluginV2Dynamic<Op>, Op, opforge::trt::V2Name::kOp> creator;
    using Ptr = std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)>;
    auto destroy = [](nvinfer1::IPluginV2* p) { if (p) p->destroy(); };
    rejectsBadFields([&](const nvinfer1::PluginFieldCollection* c) { Ptr p(creator.createPlugin(name, c), destroy); return p != nullptr; });
    nvinfer1::PluginFieldCollection c = fc();
    Ptr built(creator.createPlugin(name, &c), destroy);
    if constexpr (Op::kNumDataDims > 0) {
      EXPECT(built == nullptr, "V2Dynamic refuses an op with dims the kernel decides");
      return;
    }
    EXPECT(built != nullptr, "V2Dynamic createPlugin");
    if (!built) return;
    auto* p = static_cast<nvinfer1::IPluginV2DynamicExt*>(built.get());
    const auto it = inTypes();
    const int32_t nIn = static_cast<int32_t>(ins.size()), nOut = static_cast<int32_t>(outs.size());
    for (int32_t o = 0; o < nOut; ++o) EXPECT(p->getOutputDataType(o, it.data(), nIn) == type(outs[o]), "V2Dynamic output dtype");
    Builder b;
    std::vector<nvinfer1::DimsExprs> in(ins.size());
    std::deque<ConstExpr> consts;
    for (size_t i = 0; i < ins.size(); ++i) { in[i].nbDims = ins[i].shape.rank; for (int d = 0; d < ins[i].shape.rank; ++d) { consts.emplace_back(ins[i].shape.dims[d]); in[i].d[d] = &consts.back(); } }
    for (int32_t o = 0; o < nOut; ++o) {
      nvinfer1::DimsExprs e = p->getOutputDimensions(o, in.data(), nIn, b);
      bool same = e.nbDims == outs[o].shape.rank;
      for (int d = 0; same && d < e.nbDims; ++d) same = e.d[d] && e.d[d]->getConstantValue() == outs[o].shape.dims[d];
      EXPECT(same, "V2Dynamic output dims match the spec");
    }
    auto d = descs();
    for (int32_t pos = 0; pos < nIn + nOut; ++pos) EXPECT(p->supportsFormatCombination(pos, d.data(), nIn, nOut), "V2Dynamic supportsFormatCombination");
    {
      auto probe = d;
      const int32_t last = nIn + nOut - 1;
      const auto got = acceptedTypes([&](nvinfer1::DataType t) { probe[last].type = t; return p->supportsFormatCombination(last, probe.data(), nIn, nOut); });
      EXPECT(got.size() == 1 && got[0] == d[last].type, "V2Dynamic supportsFormatCombination: the last output takes exactly the case's dtype");
    }
    auto dyn = dynDescs();
    p->configurePlugin(dyn.data(), nIn, dyn.data() + nIn, nOut);
    const size_t ws = p->getWorkspaceSize(d.data(), nIn, d.data() + nIn, nOut);
    std::vector<uint8_t> bytes(p->getSerializationSize());
    p->serialize(bytes.data());
    Ptr restored(creator.deserializePlugin(name, bytes.data(), bytes.size()), destroy);
    EXPECT(restored != nullptr, "V2Dynamic deserializePlugin");
    EXPECT(Ptr(creator.deserializePlugin(name, bytes.data(), bytes.size() - 1), destroy) == nullptr, "V2Dynamic truncated buffer rejected");
    std::vector<uint8_t> bad = bytes;
    bad.back() ^= 0x5a;
    EXPECT(Ptr(creator.deserializePlugin(name, bad.data(), bad.size()), destroy) == nullptr, "V2Dynamic corrupted buffer rejected");
    if (!restored) return;
    Ptr cloned(static_cast<nvinfer1::IPluginV2DynamicExt*>(restored.get())->clone(), destroy);
    EXPECT(cloned != nullptr && std::strcmp(cloned->getPluginType(), Op::kPluginName) == 0, "V2Dynamic clone");
    auto* q = static_cast<nvinfer1::IPluginV2DynamicExt*>(cloned.get());
    q->configurePlugin(dyn.data(), nIn, dyn.data() + nIn, nOut);
    EXPECT(q->initialize() == 0, "V2Dynamic initialize");
    enqueueAndCompare("IPluginV2DynamicExt", [&](const void* const* i, void* const* o, void* w, cudaStream_t s) { return q->enqueue(d.data(), d.data() + nIn, i, o, w, s); }, ws);
    q->terminate();
OPFORGE_TRT_V2_END
  }

  /** Paddle's static IPluginV2Ext: create, configure (per-sample dims), serialize, deserialize, clone, output dims. */
  template <class Op> void runV2Static() {
OPFORGE_TRT_V2_BEGIN
    opforge::trt::CreatorV2<opforge::trt::PluginV2Static<Op>, Op, opforge::trt::V2Name::kPaddleStatic> creator;
    using Ptr = std::unique_ptr<nvinfer1::IPluginV2, void (*)(nvinfer1::IPluginV2*)>;
    auto destroy = [](nvinfer1::IPluginV2* p) { if (p) p->destroy(); };
    nvinfer1::PluginFieldCollection c = fc();
    Ptr built(creator.createPlugin(name, &c), destroy);
    if constexpr (Op::kNumDataDims > 0) {
      EXPECT(built == nullptr, "V2Static refuses an op with dims the kernel decides");
      return;
    }
    EXPECT(built != nullptr && std::strcmp(built->getPluginType(), Op::kPaddleStaticName) == 0, "V2Static createPlugin");
    if (!built) return;
    auto* p = static_cast<nvinfer1::IPluginV2Ext*>(built.get());
    // Implicit batch: TensorRT passes dims without the batch dim.
    std::vector<nvinfer1::Dims> inDims, outDims;
    for (auto& b : ins) { nvinfer1::Dims x = dims(b); for (int i = 1; i < x.nbDims; ++i) x.d[i - 1] = x.d[i]; --x.nbDims; inDims.push_back(x); }
    for (auto& b : outs) { nvinfer1::Dims x = dims(b); for (int i = 1; i < x.nbDims; ++i) x.d[i - 1] = x.d[i]; --x.nbDims; outDims.push_back(x); }
    const int32_t nIn = static_cast<int32_t>(ins.size()), nOut = static_cast<int32_t>(outs.size());
    const auto it = inTypes();
    std::vector<nvinfer1::DataType> ot;
    for (auto& b : outs) ot.push_back(type(b));
    p->configurePlugin(inDims.data(), nIn, outDims.data(), nOut, it.data(), ot.data(), nullptr, nullptr, nvinfer1::TensorFormat::kLINEAR, 1);
    std::vector<uint8_t> bytes(p->getSerializationSize());
    p->serialize(bytes.data());
    Ptr restored(creator.deserializePlugin(name, bytes.data(), bytes.size()), destroy);
    EXPECT(restored != nullptr, "V2Static deserializePlugin");
    EXPECT(Ptr(creator.deserializePlugin(name, bytes.data(), bytes.size() - 1), destroy) == nullptr, "V2Static truncated buffer rejected");
    if (!restored) return;
    Ptr cloned(static_cast<nvinfer1::IPluginV2Ext*>(restored.get())->clone(), destroy);
    EXPECT(cloned != nullptr, "V2Static clone");
    // The batch-1 output dims agree with the spec when every tensor's dim 0 is the batch (1 here),
    // e.g. an NCHW op; an op with a batch-less input (a per-channel bias) does not fit implicit batch.
    bool batched = true;
    for (auto& b : ins) batched = batched && b.shape.rank >= 1 && b.shape.dims[0] == 1;
    for (auto& b : outs) batched = batched && b.shape.rank >= 1 && b.shape.dims[0] == 1;
    if (batched) {
      nvinfer1::Dims e = cloned->getOutputDimensions(0, inDims.data(), nIn);
      bool same = e.nbDims == outDims[0].nbDims;
      for (int d = 0; same && d < e.nbDims; ++d) same = e.d[d] == outDims[0].d[d];
      EXPECT(same, "V2Static per-sample output dims");
      auto* q = static_cast<nvinfer1::IPluginV2Ext*>(cloned.get());
      enqueueAndCompare("IPluginV2Ext (batch 1)", [&](const void* const* i, void* const* o, void* w, cudaStream_t s) { return q->enqueue(1, i, o, w, s); }, q->getWorkspaceSize(1));
    }
OPFORGE_TRT_V2_END
  }
};
