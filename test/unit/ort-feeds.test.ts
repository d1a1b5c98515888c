// The ort columns' feeds (runtime/testing/backends/ort/index.ts caseFeeds): a variadic input's
// members go to the graph inputs of their names (xs.0, ...), or, in a model an exporter named
// otherwise, to the graph inputs no other input takes, in order; a model that cannot take every
// member is an error rather than a run with members dropped.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OpIR } from '../../generator/model/ir.js';
import { caseFeeds, type NamedTensor } from '../../runtime/testing/backends/ort/index.js';
import type { HostTensor } from '../../runtime/testing/cases.js';
import { loadSpecs } from './helpers/spec-project.js';

const op: OpIR = loadSpecs({
  'gather.yaml': `name: Gather
domain: test.unit
version: 1
inputs:
  - name: bias
    dtype: float32
  - name: xs
    dtype: float32
    variadic: true
    min_count: 2
    shape: bias
outputs:
  - name: y
    dtype: float32
    shape: bias
kernels:
  cpu: kernels/gather.cpp
tests:
  - inputs: { bias: [2], xs: [[2], [2]] }
`,
}).ops[0]!;
const t = (v: number): HostTensor => ({ dtype: 'float32', dims: [1], data: Float32Array.of(v) });
const tensors: NamedTensor[] = [
  { name: 'bias', tensor: t(0) },
  { name: 'xs.0', tensor: t(1), member: 0 },
  { name: 'xs.1', tensor: t(2), member: 1 },
  { name: 'xs.2', tensor: t(3), member: 2 },
];
const fed = (graph: string[]): [string, number][] =>
  Object.entries(caseFeeds(op, tensors, graph)).map(([n, x]) => [n, x.data[0] as number]);

test('members by their names, in any graph order', () => {
  assert.equal(fed(['xs.2', 'bias', 'xs.0', 'xs.1']), [
    ['bias', 0],
    ['xs.0', 1],
    ['xs.1', 2],
    ['xs.2', 3],
  ]);
});

test("an exporter's own names: the graph inputs no other input takes, in order", () => {
  assert.equal(fed(['bias', 'onnx::xs_1', 'onnx::xs_2', 'onnx::xs_3']), [
    ['bias', 0],
    ['onnx::xs_1', 1],
    ['onnx::xs_2', 2],
    ['onnx::xs_3', 3],
  ]);
});

test('a model that cannot take every member is an error, never a call with members dropped', () => {
  assert.throws(
    () => fed(['bias', 'a', 'b']),
    /Gather: the model's inputs \[bias, a, b\] do not take the 3 members of input xs/,
  );
  assert.throws(() => fed(['bias', 'xs.0', 'xs.1']), /do not take the 3 members/);
});

test.run();
