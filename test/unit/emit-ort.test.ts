// The ONNX Runtime emitter: element types per port under each binding, attributes read by name
// (required or not), the optional input, shape inference sources, and the op registry. The kernel
// base reads port dtypes, attributes and ranks from the op core's tables, so those facts are
// checked in the core header, through the dtype mapping the ORT emitter writes (toOrt).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ortEmitter } from '../../generator/emit/ort/index.js';
import { attrRows, bindingRows, coreHeader, cppInit, switchMap, visitedFields } from './helpers/core-tables.js';
import { emitChecked, file, opText } from './helpers/emitted.js';
import { fixtureProject } from './helpers/fixture-specs.js';

const { project } = fixtureProject();
const files = emitChecked(ortEmitter, project, [/^ort\//, /^cmake\/opforge_ort\.cmake$/]);
const op = opText(files, 'ScaleShift');
const core = coreHeader(project, 'scale_shift');
const customOp = file(files, 'ort/include/opforge/ort/custom_op.h');
const T = (s: string): string => `ONNX_TENSOR_ELEMENT_DATA_TYPE_${s}`;

test('element types of each port, per binding in order', () => {
  // GetInputType/GetOutputType: toOrt() of the core's dtype of that port under the kernel's binding.
  assert.match(op, /struct\s+Op\s*:\s*(?:public\s+)?core::Core\s*\{/);
  // (Undefined for a heterogeneous variadic input's members: each has its own, the core checks which.)
  assert.match(
    customOp,
    /GetInputType\([^)]*\)\s*const\s*\{[^}]*Op::eachDtype\(port\)\s*\?\s*ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED\s*:\s*toOrt\(\s*Op::bindingDtype\(\s*binding_/,
  );
  const toOrt = switchMap(file(files, 'ort/include/opforge/ort/dtype.h'), 'toOrt');
  const rows = bindingRows(core).map((b) => b.dtypes.map((d) => toOrt.get(d)));
  assert.equal(rows, [
    [T('FLOAT'), T('INT32'), T('FLOAT'), T('FLOAT'), T('INT64')],
    [T('FLOAT'), T('INT64'), T('FLOAT'), T('FLOAT'), T('INT64')],
    [T('FLOAT16'), T('INT32'), T('FLOAT16'), T('FLOAT16'), T('INT64')],
    [T('FLOAT16'), T('INT64'), T('FLOAT16'), T('FLOAT16'), T('INT64')],
    [T('DOUBLE'), T('INT32'), T('DOUBLE'), T('DOUBLE'), T('INT64')],
    [T('DOUBLE'), T('INT64'), T('DOUBLE'), T('DOUBLE'), T('INT64')],
  ]);
});

test('attributes read by name; only gain is required', () => {
  // The reader visits the attributes (visitFields' order) and takes the k-th kAttributes row's
  // required flag for the k-th one: both lists must name the same attributes in the same order.
  assert.match(customOp, /r\.read\(\s*name\s*,\s*Op::kAttributes\[k\+\+\]\.required/);
  const rows = attrRows(core);
  assert.equal(
    rows.map((r) => [r.name, r.required]),
    [
      ['alpha', false],
      ['repeats', false],
      ['enabled', false],
      ['mode', false],
      ['level', false],
      ['sizes', false],
      ['weights', false],
      ['label', false],
      ['gain', true],
    ],
  );
  assert.equal(
    visitedFields(core),
    rows.map((r) => r.name),
  );
});

test('ranks and shape inference', () => {
  assert.equal(cppInit(core, 'kInputRank'), ['2', '1', '-1']);
  assert.equal(cppInit(core, 'kOutputLike'), ['-1', '-1']);
  // y: dim 0 copies x[0]; dim 1 (x[1] * repeats + 1) and count's dim are computed from input dims.
  assert.equal(cppInit(op, 'kOutputDims'), [
    [
      ['0', '0', 'true'],
      ['-1', '0', 'true'],
    ],
    [['-1', '0', 'true']],
  ]);
  // PlainCopy's dst is shaped like src.
  assert.equal(cppInit(coreHeader(project, 'plain_copy'), 'kOutputLike'), ['0']);
});

test('kernels per binding, and both ops registered with the CUDA one only where kernels.cuda exists', () => {
  assert.is([...op.matchAll(/CustomOp<Op,\s*CpuEp>\(\d\)/g)].length, 6);
  const registry = file(files, 'ort/custom_ops.cpp');
  assert.match(registry, /scale_shift::addKernels/);
  assert.match(registry, /plain_copy::addKernels/);
  const cmake = file(files, 'ort/CMakeLists.txt');
  assert.match(cmake, /opforge_ort_add_op\(\s*scale_shift\s+CUDA\s*\)/);
  assert.match(cmake, /opforge_ort_add_op\(\s*plain_copy\s*\)/);
});

test('a variadic last input: an ONNX variadic input, homogeneous, of at least min_count members', () => {
  // The op core's tables say whether the last input is variadic (kVariadic, kMinMembers); the base
  // declares it to ORT and takes the node's input count as the call's (the core checks it first).
  assert.match(customOp, /if \(Op::kVariadic && i \+ 1 == kInputs\) return INPUT_OUTPUT_VARIADIC;/);
  assert.match(customOp, /int GetVariadicInputMinArity\(\) const \{ return Op::kMinMembers; \}/);
  assert.match(
    customOp,
    /bool GetVariadicInputHomogeneity\(\) const \{ return !Op::eachDtype\(Op::kNumInputs - 1\); \}/,
  );
  assert.match(customOp, /\*numIn = static_cast<int>\(nodeInputs[^;]*;\s*return Op::checkCount\(\*numIn\);/);
  // Per-call input arrays hold every member: sized by the op's kMaxInputs, not a fixed 32.
  assert.match(customOp, /RawTensor in\[Op::kMaxInputs\];/);
  assert.match(customOp, /InputInfo ins\[Op::kMaxInputs\];/);
  assert.not.match(customOp, /kMaxTensors/);
});

test.run();
