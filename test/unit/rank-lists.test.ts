// `rank: [4, 5]`: an input of several ranks. The spec model keeps the list, indexes dims from
// either end within the smallest rank; test cases may use any listed rank;
// the op core, TensorRT, the Python packages and the Node runtime state the allowed ranks.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { nodeEmitter } from '../../generator/emit/node/index.js';
import { file, opText } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const spec = (rank: string, outShape = '[x[0], x[1]]', tests = ''): string => `name: ChanScale
version: 1
inputs:
  - { name: x, dtype: float32, rank: ${rank} }
  - { name: w, dtype: float32, shape: [x[1]] }
outputs:
  - { name: y, dtype: float32, shape: x }
  - { name: s, dtype: float32, shape: ${outShape} }
kernels: { cpu: kernels/c.cpp }
${tests}`;

const cases = `tests:
  - inputs: { x: [2, 3, 4, 5], w: [3] }
  - inputs: { x: [2, 3, 2, 3, 4], w: [3] }
`;
const project = loadSpecs({ 'c.yaml': spec('[5, 4]', '[x[0], x[1]]', cases) });
const op = project.ops[0]!;

test('rank: [5, 4] is the ranks 4 or 5 (sorted); the output shaped like it has any of them', () => {
  assert.is(op.inputs[0]!.rank, null);
  assert.equal(op.inputs[0]!.ranks, [4, 5]);
  assert.is(op.tests.length, 2, 'a rank-4 and a rank-5 case');
  const one = loadSpecs({ 'c.yaml': spec('[4]') }).ops[0]!;
  assert.is(one.inputs[0]!.rank, 4, 'a list of one rank is that rank');
  assert.is(one.inputs[0]!.ranks, null);
});

test('dims index from either end within the smallest rank; an index past it is refused', () => {
  const last = loadSpecs({ 'c.yaml': spec('[4, 5]', '[x[-1], x[-4], x[3]]') }).ops[0]!;
  const dims = last.outputs[1]!.shape.kind === 'dims' ? last.outputs[1]!.shape.dims : [];
  assert.equal(
    dims.map((e) => (e.kind === 'dim' ? e.axis : null)),
    [-1, -4, 3],
    'negative axes stay negative: the rank is known at run time',
  );
  const neg = specErrors({ 'c.yaml': spec('[4, 5]', '[x[-5]]') });
  assert.is(neg.length, 1, neg.map((d) => d.message).join('\n'));
  assert.match(neg[0]!.message, 'dim index -5 is outside the 4 dims every rank of input `x` (4 or 5) has (-4..3)');
  const past = specErrors({ 'c.yaml': spec('[4, 5]', '[x[4]]') });
  assert.match(past[0]!.message, 'dim index 4 is outside the 4 dims every rank of input `x` (4 or 5) has');
});

test('a test case of an unlisted rank, and shape dims of an unlisted count, are refused', () => {
  const bad = specErrors({
    'c.yaml': spec('[4, 5]', '[x[0]]', 'tests:\n  - inputs: { x: [2, 3, 4], w: [3] }\n'),
  });
  assert.match(bad[0]!.message, 'input `x` has rank 4 or 5, the test gives 3 dims');
  const contra = specErrors({
    'c.yaml': `name: C
version: 1
inputs:
  - { name: x, dtype: float32, rank: [4, 5], shape: ['?', '?', '?'] }
outputs:
  - { name: y, dtype: float32, shape: x }
kernels: { cpu: kernels/c.cpp }
`,
  });
  assert.match(contra[0]!.message, 'rank 4 or 5 contradicts the 3 dims of `shape`');
});

test('the op core states the allowed ranks as a mask and checks it', () => {
  const h = file(coreEmitter.emit(project), 'include/opforge/ops/chan_scale.h');
  assert.match(h, /kInputRank\[kNumInputs\] = \{-1, 1\}/);
  assert.match(h, /kInputRanks\[kNumInputs\] = \{48u, 0u\}/, 'bits 4 and 5');
});

test('the Python packages and the Node runtime carry the list', () => {
  const py = opText(pythonEmitter.emit(project), 'ChanScale');
  assert.match(py, /_rt\.Input\('x', \('float32',\), None, \(4, 5\), False/);
  const node = nodeEmitter
    .emit(project)
    .map((f) => f.content)
    .join('\n');
  assert.match(node, /name: "x", dtypes: \["float32"\], rank: \[4, 5\]/);
});

test.run();
