// opforge PopART opx base: lowers a CoreOp to Poplar by calling the op core's CPU kernel on the
// host (a Poplar host function), the path PopART's own host-op test uses
// (tests/integration/operators_test/hostop_test.cpp). The IPU streams the inputs to the host,
// the kernel runs, the outputs stream back. NEEDS THE POPLAR SDK (poplar/*.hpp and libpoplar):
// not compiled by opforge's tests. After session->prepareDevice(), call
// opforge::popart_ext::connectHostFunctions(*session) so each host function has its callback.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <poplar/Graph.hpp>
#include <poplar/Program.hpp>
#include <poplar/Tensor.hpp>
#include <poplar/VariableMappingMethod.hpp>
#include <popart/popx/devicex.hpp>
#include <popart/popx/opx.hpp>
#include <popart/popx/opxmanager.hpp>
#include <popart/session.hpp>

#include "opforge/popart/op_base.h"

namespace opforge {
namespace popart_ext {

/** What Session::connectHostFunction takes: input pointers and count, output pointers and count. */
using HostCallback = std::function<void(const void* const*, size_t, void* const*, size_t)>;

/** Host functions the opxs created, by handle; connectHostFunctions() hands them to a session. */
class HostFunctions {
 public:
  static HostFunctions& instance() {
    static HostFunctions r;
    return r;
  }
  void add(const std::string& handle, HostCallback fn) {
    std::lock_guard<std::mutex> lock(mu_);
    fns_[handle] = std::move(fn);
  }
  std::map<std::string, HostCallback> all() const {
    std::lock_guard<std::mutex> lock(mu_);
    return fns_;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, HostCallback> fns_;
};

/** Connects every opforge host function grown so far to the session (replica `index`). */
inline void connectHostFunctions(::popart::Session& session, unsigned index = 0) {
  for (const auto& kv : HostFunctions::instance().all()) session.connectHostFunction(kv.first, kv.second, index);
}

template <class Desc>
class HostOpx : public ::popart::popx::Opx {
 public:
  HostOpx(::popart::Op* op, ::popart::popx::Devicex* devicex) : ::popart::popx::Opx(op, devicex) {
    verifyOp<CoreOp<Desc>>(op, Desc::id());
  }

  void grow(poplar::program::Sequence& prog) const final {
    const CoreOp<Desc>& op = getOp<CoreOp<Desc>>();
    // Everything but the data is fixed at compile time: plan the run once.
    const int numIn = op.numIn();
    RawTensor in[Desc::kMaxInputs];
    std::vector<poplar::Tensor> ins;
    std::vector<poplar::Graph::HostFunctionArgument> inArgs;
    std::vector<int> inIndex;
    for (int i = 0; i < numIn; ++i) {
      in[i].present = hasInput(i);
      if (!in[i].present) continue;
      const ::popart::TensorInfo& info = op.inInfo(i);
      fromPopart(info.dataType(), &in[i].dtype);
      in[i].shape = toShape(info.shape());
      const poplar::Tensor& t = getInTensor(i);
      ins.push_back(t);
      inArgs.emplace_back(t.elementType(), t.numElements());
      inIndex.push_back(i);
    }
    RawTensor out[Desc::kNumOutputs];
    std::vector<poplar::Tensor> outs;
    std::vector<poplar::Graph::HostFunctionArgument> outArgs;
    for (int o = 0; o < Desc::kNumOutputs; ++o) {
      out[o].present = hasOutput(o);  // false: left out by the attributes (`present:`)
      if (!out[o].present) continue;
      const ::popart::TensorInfo& info = op.outInfo(o);
      fromPopart(info.dataType(), &out[o].dtype);
      out[o].shape = toShape(info.shape());
      poplar::Tensor t = graph().addVariable(::popart::popx::popType(info), info.shape_szt(), poplar::VariableMappingMethod::LINEAR,
                                             debugContext(std::string("out") + std::to_string(o)));
      outs.push_back(t);
      outArgs.emplace_back(t.elementType(), t.numElements());
      setOutTensor(o, t);
    }
    typename Desc::State state;
    Shape shapes[Desc::kMaxInputs];
    DType dtypes[Desc::kMaxInputs] = {};
    for (int i = 0; i < numIn; ++i) {
      shapes[i] = in[i].shape;
      dtypes[i] = in[i].dtype;
    }
    size_t wsBytes = 0;
    throwIfError(Desc::workspaceSize(op.attrs(), shapes, dtypes, numIn, &wsBytes));
    if constexpr (Desc::kHasConfigure) throwIfError(Desc::configure(op.attrs(), shapes, &state));
    const std::string handle = std::string("opforge.") + Desc::kName + "." + std::to_string(op.id);
    const typename Desc::Attrs attrs = op.attrs();
    std::vector<RawTensor> inTemplate(in, in + numIn), outTemplate(out, out + Desc::kNumOutputs);
    HostFunctions::instance().add(handle, [attrs, state, inTemplate, outTemplate, inIndex, wsBytes, numIn](
                                              const void* const* inPtrs, size_t nIn, void* const* outPtrs, size_t nOut) {
      std::vector<RawTensor> i = inTemplate, o = outTemplate;
      if (nIn != inIndex.size() || nOut > o.size()) throw ::popart::error("{}: host function got {} inputs, {} outputs", Desc::kName, nIn, nOut);
      for (size_t k = 0; k < nIn; ++k) i[static_cast<size_t>(inIndex[k])].data = const_cast<void*>(inPtrs[k]);
      for (size_t k = 0; k < nOut; ++k) o[k].data = outPtrs[k];  // the present outputs come first
      std::vector<unsigned char> ws(wsBytes);
      CpuContext ctx;
      ctx.workspace = ws.empty() ? nullptr : ws.data();
      ctx.workspaceSize = wsBytes;
      throwIfError(Desc::runCpu(attrs, state, i.data(), numIn, o.data(), ctx));
    });
    poplar::HostFunction hf = graph().addHostFunction(handle, inArgs, outArgs);
    prog.add(poplar::program::Call(hf, ins, outs));
  }

 private:
  static Shape toShape(const std::vector<int64_t>& dims) {
    Shape s;
    s.rank = static_cast<int32_t>(dims.size());
    for (size_t d = 0; d < dims.size(); ++d) s.dims[d] = dims[d];
    return s;
  }
};

}  // namespace popart_ext
}  // namespace opforge
