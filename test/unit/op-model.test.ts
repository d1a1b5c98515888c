// The one-node ONNX models runtime/op-model.ts writes for ONNX Runtime: a variadic input is one
// graph input per member (xs_0, xs_1, ...) after the other inputs, in the node's order, each typed
// and shaped as given; a name two tensors would take is refused rather than written as one input
// fed twice.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import onnxProto from 'onnx-proto';
import type { OpIR } from '../../generator/model/ir.js';
import { graphInputs, opModel } from '../../runtime/op-model.js';
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
  assert.equal(nodeInputs(opModel(op)), ['bias', 'xs_0', 'xs_1']);
  assert.equal(
    decode(opModel(op)).input!.map((i) => i.name),
    ['bias', 'xs_0', 'xs_1'],
  );
});

test('the members option sets the count; each member has its dtype and shape', () => {
  const int32 = op.bindings.find((b) => b.vars.T === 'int32')!;
  const model = opModel(op, {
    binding: int32,
    members: 4,
    inputShapes: { bias: [3], xs_0: [3], xs_1: ['N'], xs_2: [5], xs_3: [6] },
  });
  assert.equal(nodeInputs(model), ['bias', 'xs_0', 'xs_1', 'xs_2', 'xs_3']);
  assert.equal(
    decode(model).input!.map((i) => [i.name, i.type!.tensorType!.elemType, dims(i)]),
    [
      ['bias', onnx.TensorProto.DataType.INT32, [3]],
      ['xs_0', onnx.TensorProto.DataType.INT32, [3]],
      ['xs_1', onnx.TensorProto.DataType.INT32, ['N']],
      ['xs_2', onnx.TensorProto.DataType.INT32, [5]],
      ['xs_3', onnx.TensorProto.DataType.INT32, [6]],
    ],
  );
  // Fewer than min_count is written (tests check ONNX Runtime refuses it); a negative count is not.
  assert.equal(nodeInputs(opModel(op, { members: 1 })), ['bias', 'xs_0']);
  assert.throws(() => opModel(op, { members: -1 }), /Gather: input xs cannot have -1 members/);
});

test('a member name another input has is refused', () => {
  const clash = loadSpecs({
    'gather.yaml': spec(`  - name: bias
    dtype: T
  - name: xs_1
    dtype: T
  - name: xs
    dtype: T
    variadic: true
    min_count: 2
    shape: bias
`).replace('xs: [[2], [2]]', 'xs_1: [2], xs: [[2], [2]]'),
  }).ops[0]!;
  assert.throws(() => graphInputs(clash, 2), /Gather: graph input xs_1 would name two tensors/);
  assert.equal(
    graphInputs(clash, 1).map((g) => [g.name, g.member]),
    [
      ['bias', undefined],
      ['xs_1', undefined],
      ['xs_0', 0],
    ],
  );
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
