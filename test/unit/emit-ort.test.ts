// The ONNX Runtime emitter: element types per port under each binding, attributes read by name
// (required or not), the optional input, shape inference sources, and the op registry.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ortEmitter } from '../../generator/emit/ort/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, near, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(ortEmitter, project, [/^ort\//, /^cmake\/opforge_ort\.cmake$/]);
const op = opText(files, 'ScaleShift');
const T = (s: string): string => `ONNX_TENSOR_ELEMENT_DATA_TYPE_${s}`;

test('element types of each port, per binding in order', () => {
  const rows = [
    ...op.matchAll(/\{\s*(ONNX_TENSOR_ELEMENT_DATA_TYPE_\w+(?:\s*,\s*ONNX_TENSOR_ELEMENT_DATA_TYPE_\w+)*)\s*\}/g),
  ].map((m) => m[1]!.split(/\s*,\s*/));
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
  for (const name of ['alpha', 'repeats', 'enabled', 'mode', 'level', 'sizes', 'weights', 'label'])
    assert.match(op, new RegExp(`"${name}"\\s*,\\s*false\\b`), name);
  assert.match(op, /"gain"\s*,\s*true\b/);
});

test('ranks and shape inference', () => {
  assertFacts(op, [near('kInputRank', '{2, 1, -1}'), near('kOutputLike', '{-1, -1}')], 'ort');
  const plain = opText(files, 'PlainCopy');
  assertFacts(plain, [near('kOutputLike', '{0}')], 'PlainCopy: dst is shaped like src');
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

test.run();
