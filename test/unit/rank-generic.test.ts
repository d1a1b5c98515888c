// Rank-generic shapes: `rank(x)` in expressions, and outputs that splice slices of inputs' dims
// (`[input[0], input[1], grid[1:-1]]`, `[indices[:], data[rank(indices):]]`). The spec model's
// errors, the TS evaluation every test expectation uses, and what each emitter prints for them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { trtEmitter } from '../../generator/emit/trt/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { evalOutputShape, exprAttrValues } from '../../generator/model/ir-helpers.js';
import { file, opText } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const gather = (outShape: string, extra = ''): string => `name: GatherTopk
version: 1
inputs:
  - { name: data, dtype: float32 }
  - { name: indices, dtype: int32, rank: [1, 2, 3] }
outputs:
  - { name: output, dtype: float32, shape: ${outShape} }
attributes:
  - { name: keep, type: int, default: 1 }
checks:
  - rank(data) >= rank(indices)
kernels: { cpu: kernels/g.cpp }
${extra}`;

const grid = `name: GridSampler
version: 1
inputs:
  - { name: input, dtype: float32, rank: [4, 5] }
  - { name: grid, dtype: float32, rank: [4, 5] }
outputs:
  - { name: output, dtype: float32, shape: [input[0], input[1], grid[1:-1]] }
checks:
  - rank(grid) == rank(input)
  - grid[-1] == rank(input) - 2
kernels: { cpu: kernels/g.cpp }
tests:
  - inputs: { input: [2, 3, 5, 7], grid: [2, 4, 6, 2] }
  - inputs: { input: [1, 2, 3, 5, 7], grid: [1, 4, 6, 8, 3] }
`;

test('a slice entry makes a spliced shape; its rank is known only where the bounds and ranks are', () => {
  const op = loadSpecs({ 'g.yaml': grid }).ops[0]!;
  const out = op.outputs[0]!;
  assert.is(out.shape.kind, 'splice');
  assert.is(out.rank, null, 'grid has rank 4 or 5');
  const dims = op.tests.map((t) =>
    evalOutputShape(
      out.shape,
      op.inputs.map((i) => t.inputs.find((x) => x.name === i.name)!.shape),
      exprAttrValues(op, t.attributes),
    ),
  );
  assert.equal(dims, [
    [2, 3, 4, 6],
    [1, 2, 4, 6, 8],
  ]);
  const fixed = loadSpecs({
    'g.yaml': gather('[indices[:], data[1:3], 4]')
      .replace('rank: [1, 2, 3]', 'rank: 2')
      .replace('dtype: float32 }', 'dtype: float32, rank: 3 }'),
  }).ops[0]!;
  assert.is(fixed.outputs[0]!.rank, 5, '2 + 2 + 1');
});

test('rank(x) folds to an int for an input of one rank and reads the rank otherwise', () => {
  const op = loadSpecs({ 'g.yaml': gather('[indices[:], data[rank(indices):]]') }).ops[0]!;
  const s = op.outputs[0]!.shape;
  assert.ok(s.kind === 'splice' && s.parts[1]!.kind === 'slice' && s.parts[1]!.start?.kind === 'rank');
  assert.equal(
    op.checks[0]!.reads.map((r) => r.kind),
    ['rank', 'rank'],
  );
  const shape = evalOutputShape(
    s,
    [
      [4, 10, 3, 2],
      [4, 5],
    ],
    exprAttrValues(op, {}),
  );
  assert.equal(shape, [4, 5, 3, 2], 'GatherTopk: indices dims, then data dims after rank(indices)');
  assert.throws(() => evalOutputShape(s, [[4], [4, 5]], {}), /outside its 1 dims/);
});

test('slices: bounds read no dims, take no step, name an input, and stay inside a known rank', () => {
  const msgs = (outShape: string): string[] => specErrors({ 'g.yaml': gather(outShape) }).map((d) => d.message);
  assert.match(msgs('[data[indices[0]:]]')[0]!, "a slice's bounds read ints, attributes and rank(x), not dims");
  assert.match(msgs('[data[::2]]')[0]!, 'a slice takes no step');
  assert.match(msgs('[date[1:]]')[0]!, '`date` is not an input whose dims a slice can read');
  assert.match(specErrors({ 'g.yaml': gather('[date[1:]]') })[0]!.hint ?? '', 'data');
  assert.match(msgs('[indices[4:]]')[0]!, 'slice `indices[4:]` is outside input `indices` of rank 1');
  assert.match(msgs('[data[:rank(nope)]]')[0]!, '`nope` is not an input that can be read here');
  // A bound reading attributes and ranks is fine; one past the rank at run time is an error there.
  assert.is(loadSpecs({ 'g.yaml': gather('[data[keep:-keep]]') }).ops[0]!.outputs[0]!.shape.kind, 'splice');
  const col = specErrors({ 'g.yaml': gather('[data[::2]]') })[0]!;
  assert.is(col.line, 7);
  assert.is(col.col, 51, 'at the second colon');
});

test('the op core splices with slicePart; TensorRT splices its DimsExprs; PyTorch splices the fake dims', () => {
  const project = loadSpecs({ 'g.yaml': grid });
  const h = file(coreEmitter.emit(project), 'include/opforge/ops/grid_sampler.h');
  assert.match(
    h,
    'splicedOutput<Core>(outputs, 0, {dimPart(inputs[0].dims[0]), dimPart(inputs[0].dims[1]), slicePart(inputs[1], int64_t{1}, int64_t{-1}, "grid[1:-1]")})',
  );
  assert.match(h, '(inputs[1].dims[inputs[1].rank - 1] == (int64_t{inputs[0].rank} - int64_t{2}))');
  const trt = file(trtEmitter.emit(project), 'trt/grid_sampler/grid_sampler_trt.h');
  assert.match(
    trt,
    'if (!::opforge::trt::spliced(*out, {::opforge::trt::dimPart(in[0].d[0]), ::opforge::trt::dimPart(in[0].d[1]), ::opforge::trt::slicePart(in[1], int64_t{1}, int64_t{-1})})) return false;',
  );
  const py = opText(pythonEmitter.emit(project), 'GridSampler');
  assert.match(
    py,
    "_rt.splice([_rt.dim(shapes, 0, 0)], [_rt.dim(shapes, 0, 1)], _rt.slice_of(shapes, 1, 1, (-1), 'GridSampler: output output: slice grid[1:-1]'))",
  );
});

const padded = (lengthText: string, read: string, tests = ''): string => `name: Pad
version: 1
inputs:
  - { name: x, dtype: float32, rank: 2 }
outputs:
  - { name: y, dtype: float32, shape: ['x[0] + ${read}', x[1]] }
attributes:
  - { name: padding, type: ints, length: ${lengthText}, default: [1, 1] }
kernels: { cpu: kernels/p.cpp }
${tests}`;

test('a list attribute of several lengths: indexed within the smallest from either end, each length checked', () => {
  const op = loadSpecs({
    'p.yaml': padded(
      '[4, 2]',
      'padding[1] + padding[-1]',
      'tests:\n  - inputs: { x: [3, 5] }\n    attributes: { padding: [1, 2, 3, 4] }\n',
    ),
  }).ops[0]!;
  assert.equal(op.attributes[0]!.length, [2, 4], 'sorted');
  const s = op.outputs[0]!.shape;
  assert.ok(s.kind === 'dims');
  // padding[-1] stays negative: which element is last depends on the node's length.
  assert.equal(evalOutputShape(s, [[3, 5]], { padding: [1, 2, 3, 4] }), [3 + 2 + 4, 5]);
  assert.equal(evalOutputShape(s, [[3, 5]], { padding: [1, 2] }), [3 + 2 + 2, 5]);
  const h = file(
    coreEmitter.emit(loadSpecs({ 'p.yaml': padded('[2, 4]', 'padding[-1]') })),
    'include/opforge/ops/pad.h',
  );
  assert.match(
    h,
    'if (attrs.padding.size() != 2u && attrs.padding.size() != 4u) return failGot(kName, ": attribute padding must have 2 or 4 elements, got ", attrs.padding.size());',
  );
  assert.match(h, 'static_cast<int64_t>(attrs.padding[attrs.padding.size() - 1])');
  const py = opText(pythonEmitter.emit(loadSpecs({ 'p.yaml': padded('[2, 4]', 'padding[0]') })), 'Pad');
  assert.match(py, 'length=(2, 4)');
  const past = specErrors({ 'p.yaml': padded('[2, 4]', 'padding[2]') });
  assert.match(past[0]!.message, 'index 2 is outside the 2 elements every length of attribute `padding` (2 or 4) has');
  const bad = specErrors({ 'p.yaml': padded('[2, 4]', 'padding[0]').replace('default: [1, 1]', 'default: [1, 1, 1]') });
  assert.match(bad[0]!.message, 'default must have 2 or 4 elements (its length), got 3');
  assert.match(specErrors({ 'p.yaml': padded('[2, 2]', 'padding[0]') })[0]!.message, 'lists a count twice');
});

test.run();
