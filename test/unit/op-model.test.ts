// The one-node ONNX models runtime/op-model.ts writes for ONNX Runtime: a variadic input is one
// graph input per member (xs.0, xs.1, ...: no spec name has a dot) after the other inputs, in the
// node's order, each typed and shaped as given.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import onnxProto from 'onnx-proto';
import type { OpIR } from '../../generator/model/ir.js';
import { opModel } from '../../runtime/op-model.js';
import { loadSpecs } from './helpers/spec-project.js';

const { onnx } = onnxProto;

const spec = (inputs: string): string => `name: Gather
domain: test.unit
version: 1
types:
  T: [float32, int32]
inputs:
${inputs}
outputs:
  - name: y
    dtype: T
    shape: bias
kernels:
  cpu: kernels/gather.cpp
tests:
  - inputs: { bias: [2], xs: [[2], [2]] }
`;
const VARIADIC = `  - name: bias
    dtype: T
  - name: xs
    dtype: T
    variadic: true
    min_count: 2
    shape: bias
`;
const op: OpIR = loadSpecs({ 'gather.yaml': spec(VARIADIC) }).ops[0]!;
const decode = (b: Uint8Array): onnxProto.onnx.IGraphProto => onnx.ModelProto.decode(b).graph!;
const nodeInputs = (b: Uint8Array): string[] => decode(b).node![0]!.input!;
const dims = (v: onnxProto.onnx.IValueInfoProto): (number | string)[] =>
  v.type!.tensorType!.shape!.dim!.map((d) => (d.dimParam ? d.dimParam : Number(d.dimValue)));

test('members are graph inputs of their own after the other inputs; min_count of them by default', () => {
  assert.equal(nodeInputs(opModel(op)), ['bias', 'xs.0', 'xs.1']);
  assert.equal(
    decode(opModel(op)).input!.map((i) => i.name),
    ['bias', 'xs.0', 'xs.1'],
  );
});

test('the members option sets the count; each member has its dtype and shape', () => {
  const int32 = op.bindings.find((b) => b.vars.T === 'int32')!;
  const model = opModel(op, {
    binding: int32,
    members: 4,
    inputShapes: { bias: [3], 'xs.0': [3], 'xs.1': ['N'], 'xs.2': [5], 'xs.3': [6] },
  });
  assert.equal(nodeInputs(model), ['bias', 'xs.0', 'xs.1', 'xs.2', 'xs.3']);
  assert.equal(
    decode(model).input!.map((i) => [i.name, i.type!.tensorType!.elemType, dims(i)]),
    [
      ['bias', onnx.TensorProto.DataType.INT32, [3]],
      ['xs.0', onnx.TensorProto.DataType.INT32, [3]],
      ['xs.1', onnx.TensorProto.DataType.INT32, ['N']],
      ['xs.2', onnx.TensorProto.DataType.INT32, [5]],
      ['xs.3', onnx.TensorProto.DataType.INT32, [6]],
    ],
  );
  // Fewer than min_count is written (tests check ONNX Runtime refuses it); a negative count is not.
  assert.equal(nodeInputs(opModel(op, { members: 1 })), ['bias', 'xs.0']);
  assert.throws(() => opModel(op, { members: -1 }), /Gather: input xs cannot have -1 members/);
});

test('an op without a variadic input: one graph input per input, members ignored', () => {
  const plain = loadSpecs({
    'gather.yaml': spec(`  - name: bias
    dtype: T
  - name: xs
    dtype: T
    shape: bias
`).replace('xs: [[2], [2]]', 'xs: [2]'),
  }).ops[0]!;
  assert.equal(nodeInputs(opModel(plain, { members: 3 })), ['bias', 'xs']);
});

test.run();
