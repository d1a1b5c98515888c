// opforge PopART custom-op base: a popart::Op whose setup() runs the op core's dtype and shape
// inference (the spec's expression trees, compiled once in the op core), and the attribute
// serialisation PopART's outlining and IR dumps use. Needs only PopART's headers (and
// poprithms', which op.hpp includes); the opx that lowers it to Poplar is in opx_base.h.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <popart/attributes.hpp>
#include <popart/error.hpp>
#include <popart/op.hpp>
#include <popart/opmanager.hpp>
#include <popart/opserialiser.hpp>
#include <popart/tensorinfo.hpp>

#include "opforge/core.h"
#include "opforge/popart/dtype.h"

namespace opforge {
namespace popart_ext {

inline void throwIfError(const Status& s) {
  if (!s.ok()) throw ::popart::error("{}", s.message());
}

/**
 * One op core as a popart::Op. Desc (generated per op) names the core's Attrs/State and functions,
 * and supplies id(), readAttrs() and appendAttributes().
 */
template <class Desc>
class CoreOp : public ::popart::Op {
 public:
  using Attrs = typename Desc::Attrs;

  CoreOp(const ::popart::OperatorIdentifier& opIdentifier, const Attrs& attrs, const ::popart::Op::Settings& opSettings)
      : ::popart::Op(opIdentifier, opSettings), attrs_(attrs) {}

  std::unique_ptr<::popart::Op> clone() const final { return std::make_unique<CoreOp>(*this); }

  /** Output infos from the op core: dtype constraints, shape checks, shape expressions. */
  /** The node's input tensors: every input, or the fixed ones and a variadic input's members. */
  int numIn() const { return Desc::kVariadic ? input->maxIndex() + 1 : Desc::kNumInputs; }

  void setup() final {
    if constexpr (Desc::kNumDataDims > 0) {
      // PopART sizes every tensor when it builds the graph: no output of a size the kernel decides.
      throw ::popart::error("{}: has dims the kernel decides (data_dims), which PopART cannot express: its graphs have static shapes", Desc::kName);
    }
    DType inTypes[Desc::kMaxInputs] = {};
    bool present[Desc::kMaxInputs] = {};
    Shape inShapes[Desc::kMaxInputs];
    const int n = numIn();
    throwIfError(Desc::checkCount(n));
    for (int i = 0; i < n; ++i) {
      present[i] = hasInput(i);
      if (!present[i]) continue;
      const ::popart::TensorInfo& info = inInfo(i);
      if (!fromPopart(info.dataType(), &inTypes[i])) {
        throw ::popart::error("{}: {} has dtype {}, which opforge does not support", Desc::kName, Desc::inputName(i), info.data_type());
      }
      const std::vector<int64_t>& dims = info.shape();
      if (dims.size() > static_cast<size_t>(kMaxRank)) throw ::popart::error("{}: {} has rank {} > {}", Desc::kName, Desc::inputName(i), dims.size(), kMaxRank);
      inShapes[i].rank = static_cast<int32_t>(dims.size());
      for (size_t d = 0; d < dims.size(); ++d) inShapes[i].dims[d] = dims[d];
    }
    DType outTypes[Desc::kNumOutputs] = {};
    int binding = -1;
    throwIfError(Desc::inferTypes(attrs_, inTypes, present, n, outTypes, &binding));
    // A dtype the IPU has no type for is refused here, by name, rather than mis-lowered.
    for (int i = 0; i < n; ++i) {
      if (present[i] && poplarType(inTypes[i]) == nullptr) {
        throw ::popart::error("{}: {} has dtype {}, which PopART cannot lower to the IPU (no Poplar type)", Desc::kName, Desc::inputName(i), dtypeName(inTypes[i]));
      }
    }
    // The node has the outputs its attributes ask for (`present:`), which come first.
    bool wanted[Desc::kNumOutputs] = {};
    int numWanted = 0;
    throwIfError(Desc::outputsPresent(attrs_, wanted, &numWanted));
    if (output->n() != numWanted) throw ::popart::error("{}: the node has {} outputs; its attributes ask for {}", Desc::kName, output->n(), numWanted);
    for (int o = 0; o < numWanted; ++o) {
      if (poplarType(outTypes[o]) == nullptr) {
        throw ::popart::error("{}: output {} would have dtype {}, which PopART cannot lower to the IPU (no Poplar type)", Desc::kName, Desc::kOutputNames[o], dtypeName(outTypes[o]));
      }
    }
    throwIfError(Desc::checkShapes(attrs_, inShapes, present, n));
    Shape outShapes[Desc::kNumOutputs];
    throwIfError(Desc::inferShapes(attrs_, inShapes, n, outShapes));
    for (int o = 0; o < numWanted; ++o) {
      outInfo(o) = ::popart::TensorInfo(toPopart(outTypes[o]), std::vector<int64_t>(outShapes[o].dims, outShapes[o].dims + outShapes[o].rank));
    }
  }

  void appendAttributes(::popart::OpSerialiserBase& os) const override {
    ::popart::Op::appendAttributes(os);
    Desc::appendAttributes(attrs_, os);
  }

  void appendOutlineAttributes(::popart::OpSerialiserBase& os) const override {
    ::popart::Op::appendOutlineAttributes(os);
    Desc::appendAttributes(attrs_, os);
  }

  float getSubgraphValue() const final { return getLowSubgraphValue(); }

  /** The kernel runs on the host (opx_base.h): keep it out of PopART's pruning. */
  bool hasSideEffect() const override { return true; }

  const Attrs& attrs() const { return attrs_; }

 private:
  Attrs attrs_;
};

/** Reads one attribute into `value` when the node has it (otherwise the spec's default stays). */
template <class T, class V>
bool readAttr(const ::popart::Attributes& attrs, const char* name, V* value) {
  if (!attrs.hasAttribute(name)) return false;
  *value = static_cast<V>(attrs.getAttribute<T>(name));
  return true;
}

/** Registers Desc's op with PopART: its OperatorIdentifier, and a factory that reads and validates the attributes. */
template <class Desc>
::popart::OpCreator<CoreOp<Desc>> makeCreator() {
  return ::popart::OpCreator<CoreOp<Desc>>(
      ::popart::OpDefinitions({{Desc::id(), Desc::definition()}}),
      [](const ::popart::OpCreatorInfo& info) -> std::unique_ptr<::popart::Op> {
        typename Desc::Attrs attrs;
        throwIfError(Desc::readAttrs(info.attributes, &attrs));
        throwIfError(Desc::validate(attrs));
        return std::make_unique<CoreOp<Desc>>(info.opid, attrs, info.settings);
      },
      true);
}

}  // namespace popart_ext
}  // namespace opforge
