// `sizeof(T)` in workspace sizes: the element bytes of a type variable's bound dtype (or of a
// dtype). The spec model's errors, the TS evaluation, and the op core's C++ for it; what each
// backend computes is checked by compiling (test/core-cpp.test.ts) and by spec-space's kernels,
// which refuse a workspace of any other size.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { evalExpr, formatExpr } from '../../generator/model/expr.js';
import { file } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const nms = (workspace: string, extra = ''): string => `name: Nms
version: 1
types: { T: [float32, float16], TI: [int32, int64] }
inputs:
  - { name: scores, dtype: T, rank: 2, shape_only: true }
  - { name: boxes, dtype: T, rank: 3 }
  - { name: order, dtype: TI, rank: 1 }
outputs:
  - { name: keep, dtype: int32, shape: [boxes[1]] }
workspace: ${workspace}
kernels: { cpu: kernels/n.cpp }
${extra}`;

test('sizeof(T) reads the first always-present input of type T; sizeof(dtype) is a constant', () => {
  const op = loadSpecs({ 'n.yaml': nms("'sizeof(T) * boxes[1] * 4 + sizeof(TI) * order[0] + sizeof(int64)'") }).ops[0]!;
  assert.is(formatExpr(op.workspace), '((((sizeof(T) * boxes[1]) * 4) + (sizeof(TI) * order[0])) + 8)');
  const dims = [[3, 5], [2, 5, 4], [9]];
  assert.is(evalExpr(op.workspace, dims, {}, { T: 2, TI: 8 }), 2 * 5 * 4 + 8 * 9 + 8);
  assert.is(evalExpr(op.workspace, dims, {}, { T: 4, TI: 4 }), 4 * 5 * 4 + 4 * 9 + 8);
  assert.throws(() => evalExpr(op.workspace, dims, {}), /sizeof\(T\) is not available/);
  const h = file(coreEmitter.emit(loadSpecs({ 'n.yaml': nms("'sizeof(T) * boxes[1]'") })), 'include/opforge/ops/nms.h');
  // The shape-only `scores` is T's first input: its dtype is what a backend hands in.
  assert.match(h, 'const DType* types, int /*numIn*/, size_t* bytes)');
  assert.match(h, '(static_cast<int64_t>(opforge::dtypeSize(types[0])) * inputs[1].dims[1])');
  // Without sizeof the parameter is unnamed (-Werror=unused-parameter).
  const plain = file(coreEmitter.emit(loadSpecs({ 'n.yaml': nms('boxes[1]') })), 'include/opforge/ops/nms.h');
  assert.match(plain, 'const DType* /*types*/, int /*numIn*/, size_t* bytes)');
});

test('a let the workspace reads may use sizeof; shapes, checks and input constraints may not', () => {
  const ok = loadSpecs({ 'n.yaml': nms('per * boxes[1]', 'let: { per: sizeof(T) * 4 }') }).ops[0]!;
  assert.is(evalExpr(ok.workspace, [[1, 1], [1, 6, 4], [1]], {}, { T: 2 }), 2 * 4 * 6);
  const inShape = specErrors({
    'n.yaml': nms('0').replace('shape: [boxes[1]]', "shape: ['boxes[1] * sizeof(T)']"),
  });
  assert.match(inShape[0]!.message, 'sizeof() is read in `workspace` only');
  assert.is(inShape[0]!.line, 9);
  const letInShape = specErrors({
    'n.yaml': nms('0', 'let: { per: sizeof(T) * 4 }').replace('shape: [boxes[1]]', 'shape: [per]'),
  });
  assert.match(letInShape[0]!.message, 'let `per` cannot be read here: sizeof() is read in `workspace` only');
  const inCheck = specErrors({ 'n.yaml': nms('0', 'checks: [sizeof(T) == 4]') });
  assert.match(inCheck[0]!.message, 'sizeof() is read in `workspace` only');
});

test('a workspace naming a state field says expressions do not read state, where it is written', () => {
  const bad = specErrors({ 'n.yaml': nms("'cols * 4'", 'state: [{ name: cols, type: int }]') });
  assert.match(bad[0]!.message, '`cols` is a state field, which configure() fills at run time');
  assert.is(bad[0]!.line, 10);
  assert.is(bad[0]!.col, 13);
});

test('sizeof of an unknown name says what it may read, with a suggestion', () => {
  const bad = specErrors({ 'n.yaml': nms("'sizeof(TT) * 2'") });
  assert.match(bad[0]!.message, '`TT` is not a type variable or dtype; expected one of T, TI, float32');
  assert.match(bad[0]!.hint ?? '', 'did you mean `T`');
  assert.is(bad[0]!.line, 10);
  assert.is(bad[0]!.col, 20, 'at the name, inside the quotes');
  assert.match(
    specErrors({ 'n.yaml': nms("'sizeof(boxes[0])'") })[0]!.message,
    'sizeof() takes one type variable or dtype',
  );
  assert.match(
    specErrors({ 'n.yaml': nms("'sizeof(T, TI)'") })[0]!.message,
    'sizeof() takes one type variable or dtype',
  );
});

test.run();
