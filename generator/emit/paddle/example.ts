// Per op: custom_op_test.cc, the counterpart of Paddle-Inference-Demo's custom_op_test: loads an
// inference model holding the op, feeds one spec test case (its shapes, seeded data), runs the
// predictor (CPU, GPU or the TensorRT subgraph as configured) and checks every output's shape
// against the op core's inferShapes.

import type { OpIR, TestCaseIR } from '../../model/ir.js';
import { coreHeaderPath, cppNamespace, dtypeUnder, paddleOpType } from '../../model/ir-helpers.js';
import { DTYPE_INFO, type DType } from '../../model/type-table.js';
import { cppAttrValue, cppFloat } from '../lang/literals.js';
import { lines } from '../emitter.js';

/** paddle_infer::Tensor::CopyFromCpu/CopyToCpu element types with a plain C++ type here. */
const HOST_COPYABLE: readonly DType[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool'];

/** The first spec test case whose dtypes the example can copy in and out. */
export function exampleCase(op: OpIR): TestCaseIR | undefined {
  return op.tests.find((t) =>
    [...op.inputs, ...op.outputs].every((x) => HOST_COPYABLE.includes(dtypeUnder(x.type, t.binding))),
  );
}

export function emitExample(op: OpIR): string {
  const t = exampleCase(op);
  const head = [
    `// Runs a Paddle Inference model that holds the custom op ${paddleOpType(op)} (like Paddle-Inference-Demo's`,
    '// custom_op_test):  <prog> <model.pdmodel> <model.pdiparams>',
    "// The model's feeds are the op's present inputs and its fetches the op's outputs, in spec order.",
  ];
  if (!t) {
    return lines(
      ...head,
      '#include <cstdio>',
      '',
      'int main() {',
      `  std::puts("${op.name}: no spec test case has only host-copyable dtypes (float32/64, int8/32/64, uint8, bool)");`,
      '  return 2;',
      '}',
    );
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
    '#include <iostream>',
    '#include <string>',
    '#include <vector>',
    '',
    '#include "paddle_inference_api.h"',
    '',
    `#include "${coreHeaderPath(op).include}"`,
    '#include "opforge/paddle/inference_example.h"',
    '',
    `namespace core = ::${cppNamespace(op)};`,
    'using opforge::paddle_example::feed;',
    'using opforge::paddle_example::fetch;',
    'using opforge::paddle_example::Host;',
    'using opforge::paddle_example::seeded;',
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
    "  // min_subgraph_size 1: the op alone becomes a TensorRT engine, run by opforge's Paddle-named plugin.",
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
