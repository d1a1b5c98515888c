// Per op: custom_op_test.cc, the counterpart of Paddle-Inference-Demo's custom_op_test: loads an
// inference model holding the op, feeds one spec test case (its shapes, seeded data), runs the
// predictor (CPU, GPU or the TensorRT subgraph as configured) and checks every output's shape
// against the op core's inferShapes.

import type { OpIR, TestCaseIR } from '../../ir.js';
import { coreHeaderPath, cppNamespace, dtypeUnder, paddleOpType } from '../../ir-helpers.js';
import { DTYPE_INFO, type DType } from '../../type-table.js';
import { cppAttrValue } from '../core.js';
import { lines } from '../emitter.js';
import { cppFloat } from '../literals.js';

/** paddle_infer::Tensor::CopyFromCpu/CopyToCpu element types with a plain C++ type here. */
const HOST_COPYABLE: readonly DType[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool'];

/** The first spec test case whose dtypes the example can copy in and out. */
export function exampleCase(op: OpIR): TestCaseIR | undefined {
  return op.tests.find((t) => [...op.inputs, ...op.outputs].every((x) => HOST_COPYABLE.includes(dtypeUnder(x.type, t.binding))));
}

export function emitExample(op: OpIR): string {
  const t = exampleCase(op);
  const head = [
    `// Runs a Paddle Inference model that holds the custom op ${paddleOpType(op)} (like Paddle-Inference-Demo's`,
    '// custom_op_test):  <prog> <model.pdmodel> <model.pdiparams>',
    '// The model\'s feeds are the op\'s present inputs and its fetches the op\'s outputs, in spec order.',
  ];
  if (!t) {
    return lines(...head, '#include <cstdio>', '', 'int main() {',
      `  std::puts("${op.name}: no spec test case has only host-copyable dtypes (float32/64, int8/32/64, uint8, bool)");`, '  return 2;', '}');
  }
  const present = op.inputs.filter((i) => t.inputs.some((x) => x.name === i.name));
  const feeds = present.map((inp, k) => {
    const ti = t.inputs.find((x) => x.name === inp.name)!;
    const d = DTYPE_INFO[dtypeUnder(inp.type, t.binding)];
    // Named by index, not by the spec's name: main's locals (config, predictor, ok, ...) stay free.
    const v = `data${inp.index}`;
    const fill = ti.values
      ? `  const Host<${d.cpp}> ${v}{${ti.values.map((x) => (d.isFloat ? cppFloat(x) : d.dtype === 'bool' ? String(x !== 0) : String(x))).join(', ')}};`
      : `  const Host<${d.cpp}> ${v} = seeded<${d.cpp}>(${ti.shape.reduce((a, b) => a * b, 1)}, ${t.seed + inp.index}u, ${ti.range[0]}, ${ti.range[1]});`;
    return lines(
      fill,
      `  feed(*predictor, feeds.at(${k}), {${ti.shape.join(', ')}}, ${v});  // ${inp.name}`,
      `  in[${inp.index}].rank = ${ti.shape.length};`,
      ti.shape.map((s, a) => `  in[${inp.index}].dims[${a}] = ${s};`).join('\n') || null,
      `  present[${inp.index}] = true;`,
    );
  });
  const attrs = op.attributes.map((a) => {
    const v = t.attributes[a.name] ?? a.default;
    return v === undefined ? null : `  attrs.${a.name} = ${cppAttrValue(a, v)};`;
  });
  const checks = op.outputs.map((o) => {
    const d = DTYPE_INFO[dtypeUnder(o.type, t.binding)];
    return `  ok = fetch<${d.cpp}>(*predictor, fetches.at(${o.index}), outShapes[${o.index}], "${o.name}") && ok;`;
  });
  return lines(
    ...head,
    `// Input data: spec test case ${t.index} (seeded uniform values, or the spec's values).`,
    '#include <algorithm>',
    '#include <cstddef>',
    '#include <cstdint>',
    '#include <initializer_list>',
    '#include <iostream>',
    '#include <memory>',
    '#include <random>',
    '#include <string>',
    '#include <vector>',
    '',
    '#include "paddle_inference_api.h"',
    '',
    `#include "${coreHeaderPath(op).include}"`,
    '',
    'namespace {',
    '',
    `namespace core = ::${cppNamespace(op)};`,
    '',
    '/** Host data of one tensor (not std::vector: std::vector<bool> has no data() to copy from or to). */',
    'template <typename T>',
    'struct Host {',
    '  explicit Host(size_t n) : size(n), values(new T[n]()) {}',
    '  Host(std::initializer_list<T> v) : Host(v.size()) { std::copy(v.begin(), v.end(), values.get()); }',
    '  size_t size;',
    '  std::unique_ptr<T[]> values;',
    '};',
    '',
    'template <typename T>',
    'Host<T> seeded(size_t n, uint32_t seed, double lo, double hi) {',
    '  std::mt19937 gen(seed);',
    '  std::uniform_real_distribution<double> dist(lo, hi);',
    '  Host<T> v(n);',
    '  for (size_t i = 0; i < n; ++i) v.values[i] = static_cast<T>(dist(gen));',
    '  return v;',
    '}',
    '',
    'template <typename T>',
    'void feed(paddle_infer::Predictor& p, const std::string& name, const std::vector<int>& shape, const Host<T>& data) {',
    '  auto t = p.GetInputHandle(name);',
    '  t->Reshape(shape);',
    '  t->CopyFromCpu(data.values.get());',
    '}',
    '',
    'template <typename T>',
    'bool fetch(paddle_infer::Predictor& p, const std::string& name, const opforge::Shape& expected, const char* output) {',
    '  auto t = p.GetOutputHandle(name);',
    '  const std::vector<int> shape = t->shape();',
    '  bool same = static_cast<int>(shape.size()) == expected.rank;',
    '  for (size_t d = 0; same && d < shape.size(); ++d) same = shape[d] == expected.dims[d];',
    '  Host<T> data(static_cast<size_t>(expected.numel()));',
    '  if (same) t->CopyToCpu(data.values.get());',
    '  std::cout << output << ": shape [";',
    '  for (size_t d = 0; d < shape.size(); ++d) std::cout << (d ? ", " : "") << shape[d];',
    '  std::cout << "] " << (same ? "as the op core infers" : "DIFFERS from the op core\'s " + expected.str());',
    '  for (size_t i = 0; same && i < data.size && i < 8; ++i) std::cout << (i ? ", " : "; first values: ") << +data.values[i];',
    '  std::cout << "\\n";',
    '  return same;',
    '}',
    '',
    '}  // namespace',
    '',
    'int main(int argc, char** argv) {',
    '  if (argc != 3) {',
    '    std::cerr << "usage: " << argv[0] << " <model.pdmodel> <model.pdiparams>\\n";',
    '    return 2;',
    '  }',
    '  paddle_infer::Config config;',
    '  config.SetModel(argv[1], argv[2]);',
    '#if defined(OPFORGE_PADDLE_WITH_GPU)',
    '  config.EnableUseGpu(100, 0);',
    '#if defined(OPFORGE_PADDLE_USE_TENSORRT)',
    '  // min_subgraph_size 1: the op alone becomes a TensorRT engine, run by opforge\'s Paddle-named plugin.',
    '  config.EnableTensorRtEngine(1 << 30, 1, 1, paddle_infer::PrecisionType::kFloat32, false, false);',
    '#endif',
    '#endif',
    '  auto predictor = paddle_infer::CreatePredictor(config);',
    '  const std::vector<std::string> feeds = predictor->GetInputNames();',
    '  const std::vector<std::string> fetches = predictor->GetOutputNames();',
    `  if (feeds.size() != ${present.length} || fetches.size() != core::kNumOutputs) {`,
    `    std::cerr << "expected a model with ${present.length} feeds and " << core::kNumOutputs << " fetches\\n";`,
    '    return 2;',
    '  }',
    '  opforge::Shape in[core::kNumInputs];',
    '  bool present[core::kNumInputs] = {};',
    feeds,
    '  if (!predictor->Run()) {',
    '    std::cerr << "Run failed\\n";',
    '    return 1;',
    '  }',
    '  core::Attrs attrs;',
    attrs,
    '  opforge::Shape outShapes[core::kNumOutputs];',
    '  opforge::Status s = core::checkShapes(attrs, in, present);',
    '  if (s.ok()) s = core::inferShapes(attrs, in, outShapes);',
    '  if (!s.ok()) {',
    '    std::cerr << s.message() << "\\n";',
    '    return 1;',
    '  }',
    '  bool ok = true;',
    checks,
    '  return ok ? 0 : 1;',
    '}',
  );
}
