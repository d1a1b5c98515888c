// Per op: custom_op_test.cc, the counterpart of Paddle-Inference-Demo's custom_op_test: loads an
// inference model holding the op, feeds one spec test case (its shapes, seeded data), runs the
// predictor (CPU, GPU or the TensorRT subgraph as configured) and checks every output's shape
// against the op core's inferShapes.

import type { OpIR, TestCaseIR } from '../../model/ir.js';
import { coreHeaderPath, cppNamespace, caseInputDtype, caseOutputDtype, paddleOpType } from '../../model/ir-helpers.js';
import { DTYPE_INFO, type DType } from '../../model/type-table.js';
import { cppAttrValue, cppFloat, cppString } from '../lang/literals.js';
import { braced, cppUnit } from '../lang/cpp.js';

/** paddle_infer::Tensor::CopyFromCpu/CopyToCpu element types with a plain C++ type here. */
const HOST_COPYABLE: readonly DType[] = ['float32', 'float64', 'int32', 'int64', 'int8', 'uint8', 'bool'];

/** The first spec test case whose dtypes the example can copy in and out. */
export function exampleCase(op: OpIR): TestCaseIR | undefined {
  return op.tests.find(
    (t) =>
      t.inputs.every((x) => HOST_COPYABLE.includes(caseInputDtype(op, t, x))) &&
      op.outputs.every((x) => HOST_COPYABLE.includes(caseOutputDtype(op, t, x))),
  );
}

const HEAD = ["The model's feeds are the op's present inputs and its fetches the op's outputs, in spec order."];

export function emitExample(op: OpIR): string {
  const t = exampleCase(op);
  const comment = [
    `Runs a Paddle Inference model that holds the custom op ${paddleOpType(op)} (like Paddle-Inference-Demo's`,
    'custom_op_test):  <prog> <model.pdmodel> <model.pdiparams>',
    ...HEAD,
  ];
  if (!t) {
    const why = `${op.name}: no spec test case has only host-copyable dtypes (float32/64, int8/32/64, uint8, bool)`;
    return cppUnit({
      comment,
      includes: { system: ['cstdio'] },
      body: ['int main() {', `  std::puts(${cppString(why)});`, '  return 2;', '}'],
    });
  }
  const present = op.inputs.filter((i) => t.inputs.some((x) => x.name === i.name));
  const feeds = present.map((inp, k) => {
    const ti = t.inputs.find((x) => x.name === inp.name)!;
    const d = DTYPE_INFO[caseInputDtype(op, t, ti)];
    const value = (x: number): string => (d.isFloat ? cppFloat(x) : d.dtype === 'bool' ? String(x !== 0) : String(x));
    // Named by index, not by the spec's name: the lambda's parameters stay free.
    const v = `data${inp.index}`;
    const n = ti.shape.reduce((a, b) => a * b, 1);
    const fill = ti.values
      ? `const Host<${d.cpp}> ${v}${braced(ti.values.map(value))};`
      : `const Host<${d.cpp}> ${v} = seeded<${d.cpp}>(${n}, ${t.seed + inp.index}u, ${ti.range[0]}, ${ti.range[1]});`;
    const i = inp.index;
    return [
      fill,
      `feed(predictor, feeds.at(${k}), ${braced(ti.shape.map(String))}, ${v}, &in[${i}], &present[${i}]);  // ${inp.name}`,
    ];
  });
  const attrs = op.attributes.flatMap((a) => {
    const v = t.attributes[a.name] ?? a.default;
    return v === undefined ? [] : [`  attrs.${a.name} = ${cppAttrValue(a, v)};`];
  });
  const checks = op.outputs.map((o) => {
    const d = DTYPE_INFO[caseOutputDtype(op, t, o)];
    return `fetch<${d.cpp}>(predictor, fetches.at(${o.index}), outShapes[${o.index}], ${cppString(o.name)})`;
  });
  const used = (name: string, uses: boolean): string => (uses ? name : `/*${name}*/`);
  const fed = feeds.length > 0;
  return cppUnit({
    comment: [...comment, `Input data: spec test case ${t.index} (seeded uniform values, or the spec's values).`],
    includes: {
      system: ['string', 'vector'],
      external: ['"paddle_inference_api.h"'],
      project: [coreHeaderPath(op).include, 'opforge/paddle/inference_example.h'],
    },
    body: [
      `namespace core = ::${cppNamespace(op)};`,
      'using opforge::paddle_example::feed;',
      'using opforge::paddle_example::fetch;',
      'using opforge::paddle_example::Host;',
      'using opforge::paddle_example::seeded;',
      '',
      'int main(int argc, char** argv) {',
      '  core::Attrs attrs;',
      attrs,
      `  auto feedInputs = [](paddle_infer::Predictor& ${used('predictor', fed)}, const std::vector<std::string>& ${used('feeds', fed)}, opforge::Shape* ${used('in', fed)}, bool* ${used('present', fed)}) {`,
      feeds.flat().map((l) => `    ${l}`),
      '  };',
      '  auto checkOutputs = [](paddle_infer::Predictor& predictor, const std::vector<std::string>& fetches, const opforge::Shape* outShapes) {',
      '    bool ok = true;',
      checks.map((c) => `    ok = ${c} && ok;`),
      '    return ok;',
      '  };',
      `  return opforge::paddle_example::runExample<core::Core>(argc, argv, ${present.length}, attrs, feedInputs, checkOutputs);`,
      '}',
    ],
  });
}
