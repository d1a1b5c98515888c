// An input's `shape:` may read later inputs (MMCV's deform conv: offset, then weight): the spec
// model takes ranks from either side, refuses cycles and reads of itself or of a later optional
// input, and the op core checks the inputs a constraint reads before the constraint.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { file } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const deform = `name: DeformConv
version: 1
attributes:
  - { name: deform_groups, type: int, default: 1, min: 1 }
inputs:
  - { name: x, dtype: float32, rank: 4 }
  - { name: offset, dtype: float32, shape: [x[0], 2 * deform_groups * weight[2] * weight[3], '?', '?'] }
  - { name: weight, dtype: float32, rank: 4 }
  - { name: mask_like, dtype: float32, shape: weight }
outputs:
  - { name: y, dtype: float32, shape: [x[0], weight[0], offset[2], offset[3]] }
kernels: { cpu: kernels/deform.cpp }
`;

test('a constraint reads a later input; `shape: <later input>` takes its rank', () => {
  const op = loadSpecs({ 'deform.yaml': deform }).ops[0]!;
  const offset = op.inputs[1]!;
  assert.is(offset.rank, 4);
  assert.is(offset.constraint.kind, 'dims');
  const reads =
    offset.constraint.kind === 'dims'
      ? JSON.stringify(offset.constraint.dims.map((d) => d.kind === 'expr' && d.expr))
      : '';
  assert.match(reads, '"input":"weight","inputIndex":2,"axis":2');
  assert.equal(op.inputs[3]!.constraint, { kind: 'like', input: 'weight', inputIndex: 2 });
  assert.is(op.inputs[3]!.rank, 4);
});

test('the op core checks the inputs a constraint reads (rank) before the constraint', () => {
  const project = loadSpecs({ 'deform.yaml': deform });
  const h = file(coreEmitter.emit(project), 'include/opforge/ops/deform_conv.h');
  const generic = h.indexOf('checkInputShapes<Core>(0, 3, inputs, present)');
  const constraint = h.indexOf('dim 1 of input offset must equal');
  assert.ok(generic >= 0, 'inputs 0..2 (x, offset, weight) are checked in one go');
  assert.ok(constraint > generic, 'offset is checked after weight is');
  assert.ok(h.includes('checkInputShapes<Core>(3, kNumInputs, inputs, present)'), 'the rest after');
});

const spec = (inputs: string): string => `name: Cyc
version: 1
inputs:
${inputs}
outputs:
  - { name: y, dtype: float32, shape: a }
kernels: { cpu: kernels/c.cpp }
`;

test('constraints that read each other in a cycle are refused, once, naming the cycle', () => {
  const dims = specErrors({
    'c.yaml': spec(`  - { name: a, dtype: float32, shape: [b[0]] }
  - { name: b, dtype: float32, shape: [a[0]] }`),
  });
  assert.is(dims.length, 1, dims.map((d) => d.message).join('\n'));
  assert.match(dims[0]!.message, 'read each other in a cycle (a -> b -> a)');
  const like = specErrors({
    'c.yaml': spec(`  - { name: a, dtype: float32, shape: c }
  - { name: b, dtype: float32, shape: a }
  - { name: c, dtype: float32, shape: b }`),
  });
  assert.is(like.length, 1, like.map((d) => d.message).join('\n'));
  assert.match(like[0]!.message, 'cycle (a -> c -> b -> a)');
});

test('an input cannot read itself, nor a later optional input it may outlive', () => {
  const self = specErrors({ 'c.yaml': spec('  - { name: a, dtype: float32, shape: [a[0]] }') });
  assert.match(self[0]!.message, '`a` is not an input that can be read here');
  const selfLike = specErrors({ 'c.yaml': spec('  - { name: a, dtype: float32, shape: a }') });
  assert.match(selfLike[0]!.message, '`a` is not another input');
  const optional = specErrors({
    'c.yaml': spec(`  - { name: a, dtype: float32, shape: [b[0]] }
  - { name: b, dtype: float32, rank: 1, optional: true }`),
  });
  assert.match(optional[0]!.message, '`b` is not an input that can be read here');
  const optionalLike = specErrors({
    'c.yaml': spec(`  - { name: a, dtype: float32, shape: b }
  - { name: b, dtype: float32, optional: true }`),
  });
  assert.match(optionalLike[0]!.message, '`b` is a later optional input');
});

test.run();
