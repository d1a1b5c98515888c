// Paddle backend. Always: out/paddle matches the emitter (golden; the opforge_paddle package has
// a module per op); PD_BUILD_OP carries the spec's
// inputs (optional ones as paddle::Optional), outputs and attributes in Paddle's type strings; and
// the framework-free half of every op's adapter (its <op>_paddle.h over bridge.h: attribute
// conversion, InferShapeFn and InferDtypeFn logic, the run path) is compiled with -Werror and RUN
// on every spec test case, against the references in test/helpers/references.ts and shapes from
// the IR's expression trees. Every op of the spec-space corpus and of test/fixtures/user-ops: its
// framework-free half (bridge templates instantiated) and its custom_op_test.cc (Paddle Inference's
// API declared by test/fixtures/paddle-infer-stub) compile with -Werror. With PADDLE_INCLUDE_DIR
// (a Paddle include root, see docs/paddle-popart.md): scripts/check-paddle.sh compiles every
// generated unit against it.

import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../generator/emit/core/index.js';
import { paddleEmitter, paddlePaths } from '../generator/emit/paddle/index.js';
import { cppFloat } from '../generator/emit/lang/literals.js';
import { evalExpr, visitExpr } from '../generator/model/expr.js';
import type { AttrValue, AttributeIR, OpIR, ProjectIR, TestCaseIR } from '../generator/model/ir.js';
import { dtypeUnder, evalOutputShape, exprAttrValues, paddleOpType } from '../generator/model/ir-helpers.js';
import { loadProject } from '../generator/model/project.js';
import { ATTR_INFO, DTYPE_INFO } from '../generator/model/type-table.js';
import { caseInputs, close, emitFixture } from './helpers/adapters.js';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { numberToHalf } from './helpers/half.js';
import { fixtures, opsDir, outDir, root } from './helpers/paths.js';
import { reference } from './helpers/references.js';
import { FIXED_SEEDS, writeCorpus } from './specspace/corpus.js';

const project = loadProject({ opsDir });
const files = paddleEmitter.emit(project);
const buildDir = path.join(root, 'build', 'paddle-test');
const fixtureOut = path.join(buildDir, 'fixture-out');
const fixture = emitFixture(fixtureOut, paddleEmitter);
const fixtureFiles = paddleEmitter.emit(fixture);
const paddleInclude = process.env.PADDLE_INCLUDE_DIR;

test('out/paddle is exactly what the emitter generates (golden)', () => {
  for (const f of files) {
    const p = path.join(outDir, f.path);
    assert.ok(existsSync(p), `missing ${f.path}: run opforge gen`);
    assert.is(readFileSync(p, 'utf8'), f.content, `${f.path} is stale: run opforge gen`);
  }
  // The Python side is the opforge_paddle package (one module per op), not the old single file.
  assert.not.ok(existsSync(path.join(outDir, 'paddle', 'opforge_paddle.py')));
  for (const op of project.ops)
    assert.ok(
      files.some((f) => f.path === `paddle/opforge_paddle/ops/${op.ident.snake}.py`),
      op.name,
    );
});

test("PD_BUILD_GRAD_OP from the spec's backward: the tensors the gradient ops read, one gradient per covered input, the forward attrs", () => {
  const byName = (n: string) => project.ops.find((o) => o.name === n)!;
  const cc = (n: string) => files.find((f) => f.path === paddlePaths(byName(n)).op)!.content;
  // CustomRelu: CustomReluGrad(grad_y = grad(y), x = x), alpha from the forward.
  assert.match(
    cc('CustomRelu'),
    'PD_BUILD_GRAD_OP(custom_relu)\n    .Inputs({"x", paddle::Grad("y")})\n    .Outputs({paddle::Grad("x")})\n    .Attrs({"alpha: float"})\n    .SetKernelFn(PD_KERNEL(custom_relu_paddle_unit::Backward))\n    .SetInferShapeFn(PD_INFER_SHAPE(custom_relu_paddle_unit::GradInferShape))\n    .SetInferDtypeFn(PD_INFER_DTYPE(custom_relu_paddle_unit::GradInferDtype));',
  );
  assert.match(cc('CustomRelu'), 'custom_relu_grad::makeAttrs(alpha), {&y_grad, &x});');
  // MyAdd: one gradient op giving both inputs' gradients, in input order.
  assert.match(cc('MyAdd'), '.Outputs({paddle::Grad("a"), paddle::Grad("b")})');
  // MyAddGrad reads only grad(c), but the grad op takes a and b too: its InferShapeFn gives each
  // input gradient its input's dims (PIR builds a training graph from it).
  assert.match(cc('MyAdd'), '.Inputs({"a", "b", paddle::Grad("c")})');
  assert.match(
    cc('MyAdd'),
    'Backward(const paddle::Tensor& /*a*/, const paddle::Tensor& /*b*/, const paddle::Tensor& c_grad)',
  );
  assert.match(cc('MyAdd'), 'return bridge::gradShapes({&a, &b});');
  assert.match(cc('MyAdd'), 'grads[0] = g0[0];  // da\n    grads[1] = g0[1];  // db');
  // Ops without a backward whose inputs would take a gradient (the gradient ops): a grad op that
  // raises the op's own error; declared non-differentiable (KNNQuery): none.
  assert.not.match(cc('KNNQuery'), 'PD_BUILD_GRAD_OP');
  for (const n of ['MyAddGrad', 'DynamicTRTResizeGrad']) {
    assert.match(cc(n), 'PD_BUILD_GRAD_OP(', n);
    assert.match(cc(n), `constexpr const char* kNoBackward = "${n}: a gradient was requested through`, n);
    assert.match(cc(n), '  bridge::fail(kNoBackward);', n);
  }
});

test('PD_BUILD_OP per op: snake_case type, spec inputs/outputs, Attrs in Paddle type strings, the three functions', () => {
  for (const [p, fs] of [
    [project, files],
    [fixture, fixtureFiles],
  ] as [ProjectIR, typeof files][]) {
    for (const op of p.ops) {
      const cc = fs.find((f) => f.path === paddlePaths(op).op)!.content;
      assert.ok(cc.includes(`PD_BUILD_OP(${paddleOpType(op)})`), op.name);
      const ins = op.inputs.map((i) => (i.optional ? `paddle::Optional("${i.name}")` : `"${i.name}"`)).join(', ');
      assert.ok(cc.includes(`.Inputs({${ins}})`), `${op.name} inputs`);
      assert.ok(cc.includes(`.Outputs({${op.outputs.map((o) => `"${o.name}"`).join(', ')}})`), `${op.name} outputs`);
      if (op.attributes.length)
        assert.ok(
          cc.includes(`.Attrs({${op.attributes.map((a) => `"${a.name}: ${ATTR_INFO[a.type].paddle}"`).join(', ')}})`),
          `${op.name} attrs`,
        );
      const ns = `${op.ident.snake}_paddle_unit`;
      for (const fn of [
        `SetKernelFn(PD_KERNEL(${ns}::Forward))`,
        `SetInferShapeFn(PD_INFER_SHAPE(${ns}::InferShape))`,
        `SetInferDtypeFn(PD_INFER_DTYPE(${ns}::InferDtype))`,
      ])
        assert.ok(cc.includes(fn), `${op.name} ${fn}`);
      assert.ok(
        cc.includes('bridge::compute<op::PaddleOp>(') &&
          cc.includes('bridge::inferShape<op::PaddleOp>(') &&
          cc.includes('bridge::inferDtype<op::PaddleOp>('),
        `${op.name} calls the bridge`,
      );
    }
  }
  // The fixture covers the forms the seed ops do not use.
  const cc = fixtureFiles.find((f) => f.path.endsWith('_op.cc'))!.content;
  assert.ok(cc.includes('const paddle::optional<paddle::Tensor>& bias'));
  assert.ok(cc.includes('const paddle::optional<std::vector<int64_t>>& bias'));
  assert.ok(cc.includes('const paddle::optional<paddle::DataType>& bias'));
  assert.ok(
    cc.includes(
      '.Attrs({"stride: int", "scale: float", "mode: std::string", "enabled: bool", "pads: std::vector<int>", "weights: std::vector<float>"})',
    ),
  );
});

test("Paddle attribute types are the ones Paddle-TRT's plugin converter and InferShapeFn accept", () => {
  // generic_and_custom_plugin_creater.cc handles INT, FLOAT, BOOLEAN, STRING, INTS, FLOATS only;
  // InferShapeFn never receives std::vector<int64_t> attributes.
  const accepted = ['bool', 'int', 'float', 'std::string', 'std::vector<int>', 'std::vector<float>'];
  for (const info of Object.values(ATTR_INFO)) assert.ok(accepted.includes(info.paddle), info.type);
});

test("CMake and compile.sh expose the demo's knobs; the README points at the Paddle-named TensorRT plugins", () => {
  // The knobs live in the shared module (out/cmake/opforge_paddle.cmake); the generated list names each op.
  const cmake = files.find((f) => f.path === 'cmake/opforge_paddle.cmake')!.content;
  for (const k of [
    'option(WITH_MKL',
    'option(WITH_GPU',
    'option(USE_TENSORRT',
    'set(LIB_DIR',
    'set(PADDLE_PYTHON',
    'set(CUDA_LIB',
    'set(CUDNN_LIB',
  ])
    assert.ok(cmake.includes(k), k);
  assert.ok(cmake.includes('opforge_trt_plugins_autoreg'));
  const list = files.find((f) => f.path === 'paddle/CMakeLists.txt')!.content;
  assert.ok(list.includes('include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_paddle.cmake")'));
  for (const op of project.ops)
    assert.ok(list.includes(`opforge_paddle_add_op(${op.ident.snake}${op.kernels.cuda ? ' CUDA' : ''})`), op.name);
  const sh = files.find((f) => f.path === 'paddle/compile.sh')!.content;
  for (const k of ['WITH_MKL=', 'WITH_GPU=', 'USE_TENSORRT=', 'LIB_DIR=', 'TENSORRT_ROOT=', 'CUDA_LIB=', 'CUDNN_LIB='])
    assert.ok(sh.includes(k), k);
  // The backends' options live in the module out/CMakeLists.txt includes after its list of ops.
  assert.match(readFileSync(path.join(outDir, 'CMakeLists.txt'), 'utf8'), 'cmake/opforge_backends.cmake")');
  const backends = readFileSync(path.join(outDir, 'cmake', 'opforge_backends.cmake'), 'utf8');
  assert.match(backends, /option\(WITH_PADDLE "[^"]*" OFF\)/);
  for (const op of project.ops) {
    const md = files.find((f) => f.path === paddlePaths(op).readme)!.content;
    assert.ok(
      md.includes(`${paddleOpType(op)}_paddle_trt_dynamic_plugin`) &&
        md.includes(`${paddleOpType(op)}_paddle_trt_plugin`),
      op.name,
    );
  }
});

// ---- the framework-free adapter half, compiled and run ----

function paddleLiteral(a: AttributeIR, v: AttrValue): string {
  switch (a.type) {
    case 'bool':
      return v ? 'true' : 'false';
    case 'int':
      return String(v);
    case 'float':
      return cppFloat(v as number);
    case 'string':
      return JSON.stringify(v);
    case 'ints':
      return `std::vector<int>{${(v as number[]).join(', ')}}`;
    case 'floats':
      return `std::vector<float>{${(v as number[]).map(cppFloat).join(', ')}}`;
  }
}

const CPP_ELEM: Record<string, string> = {
  float32: 'float',
  float64: 'double',
  int32: 'int32_t',
  int64: 'int64_t',
  float16: 'uint16_t',
};
const lit = (dtype: string, v: number): string =>
  dtype === 'float16'
    ? String(v)
    : dtype === 'float32'
      ? cppFloat(v)
      : dtype === 'float64'
        ? v.toPrecision(17)
        : String(v);

interface Expect {
  op: OpIR;
  t: TestCaseIR;
  key: string;
}

function driverCase(op: OpIR, t: TestCaseIR, key: string): string {
  const ns = `opforge::paddle_ops::${op.ident.snake}`;
  const ins = caseInputs(op, t);
  const attrArgs = op.attributes.map((a) => paddleLiteral(a, t.attributes[a.name] ?? a.default!)).join(', ');
  const half = (d: string, v: number): number => (d === 'float16' ? numberToHalf(v) : v);
  const body = [
    `  {  // ${key}`,
    `    namespace op = ${ns};`,
    `    const auto attrs = op::makeAttrs(${attrArgs});`,
    '    opforge::RawTensor in[op::core::kNumInputs];',
    '    std::vector<std::vector<int64_t>> dims(op::core::kNumInputs);',
    '    const std::vector<int64_t>* shapes[op::core::kNumInputs] = {};',
    '    opforge::DType dtypes[op::core::kNumInputs] = {};',
    '    bool present[op::core::kNumInputs] = {};',
    ...ins.map((x) =>
      [
        `    std::vector<${CPP_ELEM[x.dtype]}> v${x.index} = {${x.values.map((v) => lit(x.dtype, half(x.dtype, v))).join(', ')}};`,
        `    dims[${x.index}] = {${x.dims.join(', ')}};`,
        `    in[${x.index}] = raw(opforge::DType::${DTYPE_INFO[x.dtype].cppEnum}, v${x.index}.data(), dims[${x.index}]);`,
        `    shapes[${x.index}] = &dims[${x.index}];`,
        `    dtypes[${x.index}] = opforge::DType::${DTYPE_INFO[x.dtype].cppEnum};`,
        `    present[${x.index}] = true;`,
      ].join('\n'),
    ),
    `    runCase<op::PaddleOp>("${key}", attrs, in, shapes, dtypes, present);`,
    '  }',
  ];
  return body.join('\n');
}

/** The driver's helpers: raw tensors, printing, and one case through every bridge function. */
const DRIVER_HELPERS = [
  'namespace b = opforge::paddle_bridge;',
  '',
  'opforge::RawTensor raw(opforge::DType t, void* data, const std::vector<int64_t>& dims) {',
  '  opforge::RawTensor r;',
  '  r.dtype = t;',
  '  r.data = data;',
  '  r.shape.rank = static_cast<int32_t>(dims.size());',
  '  for (size_t d = 0; d < dims.size(); ++d) r.shape.dims[d] = dims[d];',
  '  return r;',
  '}',
  '',
  'double element(opforge::DType t, const void* p, int64_t i) {',
  '  switch (t) {',
  '    case opforge::DType::kFloat32: return static_cast<const float*>(p)[i];',
  '    case opforge::DType::kFloat64: return static_cast<const double*>(p)[i];',
  '    case opforge::DType::kInt32: return static_cast<const int32_t*>(p)[i];',
  '    case opforge::DType::kInt64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);',
  '    case opforge::DType::kFloat16: return opforge::toFloat(static_cast<const opforge::float16*>(p)[i]);',
  '    default: return NAN;',
  '  }',
  '}',
  '',
  'void printDims(const char* tag, const char* key, int o, const std::vector<int64_t>& d) {',
  '  std::printf("%s %s %d", tag, key, o);',
  '  for (int64_t x : d) std::printf(" %lld", static_cast<long long>(x));',
  '  std::printf("\\n");',
  '}',
  '',
  'template <class Op>',
  'void runCase(const char* key, const typename Op::Attrs& attrs, opforge::RawTensor* in, const std::vector<int64_t>* const* shapes,',
  '             const opforge::DType* dtypes, const bool* present) {',
  '  for (int i = 0; i < Op::kNumInputs; ++i) in[i].present = present[i];',
  '  // InferDtypeFn',
  '  std::vector<opforge::DType> outTypes;',
  '  opforge::Status s = b::inferDtypes<Op>(attrs, dtypes, present, &outTypes);',
  '  if (!s.ok()) { std::printf("ERR %s %s\\n", key, s.message().c_str()); return; }',
  '  for (size_t o = 0; o < outTypes.size(); ++o) std::printf("DTYPE %s %zu %s\\n", key, o, opforge::dtypeName(outTypes[o]));',
  '  // InferShapeFn, all dims known',
  '  std::vector<std::vector<int64_t>> outDims;',
  '  s = b::inferShapes<Op>(attrs, shapes, &outDims);',
  '  if (!s.ok()) { std::printf("ERR %s %s\\n", key, s.message().c_str()); return; }',
  '  for (size_t o = 0; o < outDims.size(); ++o) printDims("SHAPE", key, static_cast<int>(o), outDims[o]);',
  '  // InferShapeFn, dim 0 of every input unknown (-1) as in a static graph',
  '  std::vector<std::vector<int64_t>> unknown(static_cast<size_t>(Op::kNumInputs));',
  '  const std::vector<int64_t>* unknownPtrs[b::kMaxTensors] = {};',
  '  for (int i = 0; i < Op::kNumInputs; ++i) {',
  '    if (shapes[i] == nullptr) continue;',
  '    unknown[static_cast<size_t>(i)] = *shapes[i];',
  '    if (!unknown[static_cast<size_t>(i)].empty()) unknown[static_cast<size_t>(i)][0] = -1;',
  '    unknownPtrs[i] = &unknown[static_cast<size_t>(i)];',
  '  }',
  '  s = b::inferShapes<Op>(attrs, unknownPtrs, &outDims);',
  '  if (!s.ok()) { std::printf("ERR %s %s\\n", key, s.message().c_str()); return; }',
  '  for (size_t o = 0; o < outDims.size(); ++o) printDims("UNKNOWN", key, static_cast<int>(o), outDims[o]);',
  '  // KernelFn',
  '  b::Plan<typename Op::State> p;',
  '  s = b::plan<Op>(attrs, in, &p);',
  '  if (!s.ok()) { std::printf("ERR %s %s\\n", key, s.message().c_str()); return; }',
  '  std::vector<std::vector<unsigned char>> buffers(static_cast<size_t>(Op::kNumOutputs));',
  '  opforge::RawTensor out[b::kMaxTensors];',
  '  for (int o = 0; o < Op::kNumOutputs; ++o) {',
  '    buffers[static_cast<size_t>(o)].resize(static_cast<size_t>(p.outShapes[o].numel()) * opforge::dtypeSize(p.outDtypes[o]) + 1);',
  '    out[o].dtype = p.outDtypes[o];',
  '    out[o].data = buffers[static_cast<size_t>(o)].data();',
  '    out[o].shape = p.outShapes[o];',
  '  }',
  '  std::vector<unsigned char> ws(p.workspaceBytes + 1);',
  '  s = b::runCpu<Op>(attrs, p, in, out, ws.data());',
  '  if (!s.ok()) { std::printf("ERR %s %s\\n", key, s.message().c_str()); return; }',
  '  for (int o = 0; o < Op::kNumOutputs; ++o) {',
  '    std::printf("OUT %s %d", key, o);',
  '    for (int64_t i = 0; i < p.outShapes[o].numel(); ++i) std::printf(" %.17g", element(out[o].dtype, out[o].data, i));',
  '    std::printf("\\n");',
  '  }',
  "  // A dtype no type constraint allows must be refused with the op's name.",
  '  opforge::RawTensor bad[b::kMaxTensors];',
  '  for (int i = 0; i < Op::kNumInputs; ++i) bad[i] = in[i];',
  '  bad[0].dtype = opforge::DType::kBool;',
  '  s = b::plan<Op>(attrs, bad, &p);',
  '  std::printf("BADTYPE %s %s\\n", key, s.ok() ? "accepted" : s.message().c_str());',
  '}',
  '',
];

function writeDriver(projects: ProjectIR[]): { src: string; cases: Expect[] } {
  const cases: Expect[] = [];
  const blocks: string[] = [];
  for (const p of projects)
    for (const op of p.ops)
      for (const t of op.tests) {
        const key = `${op.name}#${t.index}`;
        cases.push({ op, t, key });
        blocks.push(driverCase(op, t, key));
      }
  const includes = projects.flatMap((p) =>
    p.ops.map((op) => `#include "${op.ident.snake}/${op.ident.snake}_paddle.h"`),
  );
  const src = [
    '// Test driver for the framework-free half of the Paddle adapters (generated by test/paddle.test.ts).',
    '#include <cmath>',
    '#include <cstdio>',
    '#include <cstring>',
    '#include <string>',
    '#include <vector>',
    ...includes,
    '',
    ...DRIVER_HELPERS,
    'int main() {',
    ...blocks,
    '  return 0;',
    '}',
  ].join('\n');
  return { src, cases };
}

function expectedDims(op: OpIR, t: TestCaseIR, unknownAxis0: boolean): number[][] {
  const ins = caseInputs(op, t);
  const dims: number[][] = op.inputs.map((i) => ins.find((x) => x.index === i.index)?.dims ?? []);
  const attrs = exprAttrValues(op, t.attributes);
  return op.outputs.map((o) => {
    if (o.shape.kind === 'like') {
      const d = [...dims[o.shape.inputIndex]!];
      if (unknownAxis0 && d.length) d[0] = -1;
      return d;
    }
    if (o.shape.kind === 'splice') {
      // A spliced output is wholly unknown while an input it reads has an unknown dim.
      const d = evalOutputShape(o.shape, dims, attrs);
      let reads = false;
      for (const x of o.shape.parts) {
        if (x.kind === 'slice') reads ||= dims[x.inputIndex]!.length > 0;
        for (const e of x.kind === 'dim' ? [x.expr] : [x.start, x.end])
          if (e)
            visitExpr(e, (y) => {
              if (y.kind === 'dim') reads = true;
            });
      }
      return unknownAxis0 && reads ? d.map(() => -1) : d;
    }
    return o.shape.dims.map((e) => {
      let unknown = false;
      visitExpr(e, (x) => {
        if (x.kind === 'dim' && (x.axis < 0 ? dims[x.inputIndex]!.length + x.axis : x.axis) === 0) unknown = true;
      });
      return unknownAxis0 && unknown ? -1 : evalExpr(e, dims, attrs);
    });
  });
}

test("framework-free adapter half: every spec test case (seed ops and fixture) vs references and the IR's shapes", () => {
  mkdirSync(buildDir, { recursive: true });
  const { src, cases } = writeDriver([project, fixture]);
  const driver = path.join(buildDir, 'driver.cpp');
  writeFileSync(driver, src);
  const kernels = [
    ...project.ops.map((op) => path.join(root, op.kernels.cpu)),
    ...fixture.ops.map((op) => path.join(root, 'test', 'fixtures', 'adapters', op.kernels.cpu)),
  ];
  const exe = path.join(buildDir, 'driver');
  sh('g++', [
    ...CXXFLAGS,
    `-I${path.join(outDir, 'include')}`,
    `-I${path.join(outDir, 'paddle', 'include')}`,
    `-I${path.join(outDir, 'paddle')}`,
    `-I${path.join(fixtureOut, 'include')}`,
    `-I${path.join(fixtureOut, 'paddle')}`,
    driver,
    ...kernels,
    '-o',
    exe,
  ]);
  const lines = sh(exe, []).split('\n').filter(Boolean);
  const get = (tag: string, key: string, o?: number): string[] | undefined => {
    const l = lines.find((x) => x.startsWith(`${tag} ${key} `) && (o === undefined || x.split(' ')[2] === String(o)));
    return l?.split(' ').slice(o === undefined ? 2 : 3);
  };
  let checked = 0;
  for (const { op, t, key } of cases) {
    assert.is(get('ERR', key), undefined, `${key}: ${get('ERR', key)?.join(' ')}`);
    const want = expectedDims(op, t, false);
    const wantUnknown = expectedDims(op, t, true);
    const ins = caseInputs(op, t);
    const ref = reference(
      op,
      Object.fromEntries(ins.map((x) => [x.name, { dims: x.dims, values: x.values }])),
      Object.fromEntries(op.attributes.map((a) => [a.name, t.attributes[a.name] ?? a.default])),
    );
    op.outputs.forEach((o) => {
      assert.is(get('DTYPE', key, o.index)?.[0], dtypeUnder(o.type, t.binding), `${key} ${o.name} dtype`);
      assert.equal(get('SHAPE', key, o.index)!.map(Number), want[o.index], `${key} ${o.name} shape`);
      assert.equal(
        get('UNKNOWN', key, o.index)!.map(Number),
        wantUnknown[o.index],
        `${key} ${o.name} shape with unknown dims`,
      );
      const got = get('OUT', key, o.index)!.map((x) => (x === 'inf' ? Infinity : x === '-inf' ? -Infinity : Number(x)));
      const w = ref[o.name]!;
      assert.is(got.length, w.length, `${key} ${o.name} size`);
      got.forEach((g, i) => {
        if (!close(g, w[i]!, t)) assert.unreachable(`${key} ${o.name}[${i}] = ${g}, reference ${w[i]}`);
        checked++;
      });
    });
    const bad = get('BADTYPE', key)!.join(' ');
    assert.ok(
      bad.startsWith(`${op.name}: input`) && bad.includes('bool'),
      `${key}: bool input must be refused by name, got ${bad}`,
    );
  }
  assert.ok(checked > 100, `${checked} values checked`);
});

// ---- every op of the spec-space corpus and of the user ops, compiled ----

/** Runs the commands two at a time (the CI machine has two cores); rejects with the failures' output. */
async function runAll(cmds: { cmd: string; args: string[] }[]): Promise<void> {
  const failures: string[] = [];
  const queue = [...cmds];
  const worker = async (): Promise<void> => {
    for (let c = queue.shift(); c; c = queue.shift()) {
      const { cmd, args } = c;
      await new Promise<void>((resolve) => {
        execFile(cmd, args, { maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
          if (err)
            failures.push(
              `${args.find((a) => a.endsWith('.cc') || a.endsWith('.cpp'))}:\n${stdout}${stderr}`.slice(0, 3000),
            );
          resolve();
        });
      });
    }
  };
  await Promise.all([worker(), worker()]);
  assert.is(failures.length, 0, failures.join('\n'));
}

test('spec-space corpus and user ops: every <op>_paddle.h with the bridge instantiated, and every custom_op_test.cc (Paddle Inference API declared by a stub), compile with -Werror', async () => {
  const corpus = writeCorpus(path.join(buildDir, 'specspace'), FIXED_SEEDS);
  const cmds: { cmd: string; args: string[] }[] = [];
  for (const [name, dir] of [
    ['specspace', corpus.opsDir],
    ['user-ops', path.join(fixtures, 'user-ops', 'ops')],
  ] as const) {
    const p = loadProject({ opsDir: dir });
    const out = path.join(buildDir, `${name}-out`);
    for (const f of [...coreEmitter.emit(p), ...paddleEmitter.emit(p)]) {
      mkdirSync(path.dirname(path.join(out, f.path)), { recursive: true });
      writeFileSync(path.join(out, f.path), f.content);
    }
    const inc = [
      `-I${path.join(out, 'include')}`,
      `-I${path.join(out, 'paddle', 'include')}`,
      `-I${path.join(out, 'paddle')}`,
    ];
    // One unit: every op's framework-free half, each bridge template instantiated for it.
    const fns = ['inferShapes', 'inferDtypes', 'plan', 'runCpu', 'runCuda'];
    const halves = path.join(buildDir, `${name}-halves.cpp`);
    writeFileSync(
      halves,
      [
        ...p.ops.map((op) => `#include "${op.ident.snake}/${op.ident.snake}_paddle.h"`),
        '',
        'namespace b = opforge::paddle_bridge;',
        '',
        'int main() {',
        ...p.ops.flatMap((op) =>
          fns.map((fn) => `  (void)&b::${fn}<opforge::paddle_ops::${op.ident.snake}::PaddleOp>;`),
        ),
        '  return 0;',
        '}',
      ].join('\n'),
    );
    cmds.push({ cmd: 'g++', args: [...CXXFLAGS, '-O0', ...inc, '-fsyntax-only', halves] });
    for (const op of p.ops) {
      cmds.push({
        cmd: 'g++',
        args: [
          ...CXXFLAGS,
          '-O0',
          '-isystem',
          path.join(fixtures, 'paddle-infer-stub'),
          ...inc,
          '-fsyntax-only',
          path.join(out, paddlePaths(op).example),
        ],
      });
    }
  }
  await runAll(cmds);
});

test('generated Paddle units compile against PADDLE_INCLUDE_DIR with -Wall -Wextra -Werror (seed ops and fixture)', () => {
  if (!paddleInclude) {
    console.log('  (PADDLE_INCLUDE_DIR not set: skipped)');
    return;
  }
  assert.match(sh('bash', [path.join(root, 'scripts', 'check-paddle.sh'), paddleInclude]), /all clean/);
  assert.match(
    sh('bash', [path.join(root, 'scripts', 'check-paddle.sh'), paddleInclude, path.join(buildDir, 'check-fixture')], {
      env: { ...process.env, OPFORGE_OUT: fixtureOut },
    }),
    /all clean/,
  );
});

test.run();
