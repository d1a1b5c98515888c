// Output dtypes the attributes choose: `types: { TOut: 'float16 if output_fp16 else float32' }`.
// The spec model (the variable's dtypes, each case's binding, the errors) and what the emitters
// print for it; every backend runs such ops in the spec-space corpus (test/specspace.test.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { nodeEmitter } from '../../generator/emit/node/index.js';
import { ortEmitter } from '../../generator/emit/ort/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { evalChoice } from '../../generator/model/dtype-choice.js';
import { file, opText } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const emb = (types: string, extra = ''): string => `name: EmbLayerNorm
version: 1
types:
  TI: [int32, int64]
  TOut: ${types}
inputs:
  - { name: ids, dtype: TI, rank: 2 }
  - { name: gamma, dtype: float32, rank: 1 }
outputs:
  - { name: embedded, dtype: TOut, shape: [ids[0], ids[1], gamma[0]] }
  - { name: mask, dtype: int32, shape: [ids[0]] }
attributes:
  - { name: output_fp16, type: bool, default: false }
  - { name: type_id, type: int, default: 0, min: 0, max: 2 }
  - { name: mode, type: string, enum: [plain, quant], default: plain }
kernels: { cpu: kernels/e.cpp }
tests:
  - inputs: { ids: [2, 3], gamma: [4] }
  - inputs: { ids: [2, 3], gamma: [4] }
    attributes: { output_fp16: true }
${extra}`;

test('a chosen variable has the dtypes its choice names; each case is bound by its attributes', () => {
  const op = loadSpecs({ 'e.yaml': emb("'float16 if output_fp16 else float32'") }).ops[0]!;
  const tv = op.typeVars.find((v) => v.name === 'TOut')!;
  assert.equal(tv.dtypes, ['float16', 'float32']);
  assert.ok(tv.choice);
  assert.equal(
    op.tests.map((t) => t.binding.vars.TOut),
    ['float32', 'float16'],
  );
  assert.equal(
    op.bindings.map((b) => b.suffix),
    ['i32_f16', 'i32_f32', 'i64_f16', 'i64_f32'],
  );
  const nested = loadSpecs({
    'e.yaml': emb('\'float32 if type_id == 0 else float16 if type_id == 1 and mode == "plain" else int8\''),
  }).ops[0]!;
  const c = nested.typeVars[1]!.choice!;
  assert.equal(nested.typeVars[1]!.dtypes, ['float32', 'float16', 'int8']);
  const at = (type_id: number, mode: string) => evalChoice(c, { output_fp16: false, type_id, mode });
  assert.equal(
    [at(0, 'quant'), at(1, 'plain'), at(1, 'quant'), at(2, 'plain')],
    ['float32', 'float16', 'int8', 'int8'],
  );
});

test('the op core chooses in inferTypes; the variable has no binder', () => {
  const h = file(
    coreEmitter.emit(loadSpecs({ 'e.yaml': emb("'float16 if output_fp16 else float32'") })),
    'include/opforge/ops/emb_layer_norm.h',
  );
  assert.match(h, '{"TOut", -1, 2, {DType::kFloat16, DType::kFloat32}}');
  assert.match(h, 'inline Status inferTypes(const Attrs& attrs, const DType* in,');
  assert.match(h, '  chosen[1] = (attrs.output_fp16 ? DType::kFloat16 : DType::kFloat32);  // TOut');
  // Without a chosen variable the parameters are unnamed (-Werror=unused-parameter).
  const plain = file(
    coreEmitter.emit(
      loadSpecs({
        'e.yaml': emb('[float32]').replace('dtype: TOut', 'dtype: float32').replace('  TOut: [float32]\n', ''),
      }),
    ),
    'include/opforge/ops/emb_layer_norm.h',
  );
  assert.match(plain, 'inline Status inferTypes(const Attrs& /*attrs*/, const DType* in,');
});

test('the Python packages carry the choice as data; the Node typings give the union', () => {
  const project = loadSpecs({ 'e.yaml': emb("'float16 if output_fp16 else float32'") });
  const py = opText(pythonEmitter.emit(project), 'EmbLayerNorm');
  assert.match(py, "dtype_choice=('if', ('flag', 'output_fp16'), 'float16', 'float32')");
  const dts = file(nodeEmitter.emit(project), 'node/index.d.ts');
  assert.match(dts, "embLayerNorm<TI extends 'int32' | 'int64'>(");
  assert.match(dts, "embedded: Tensor<'float16' | 'float32'>");
});

test('ONNX Runtime: one kernel per binding of the input-side variables; the chosen output declared undefined', () => {
  const project = loadSpecs({ 'e.yaml': emb("'float16 if output_fp16 else float32'") });
  const unit = file(ortEmitter.emit(project), 'ort/emb_layer_norm/emb_layer_norm_ort.cpp');
  // TI's two dtypes; TOut's would collide in ORT's kernel matching, which reads input types only.
  assert.match(unit, 'kCpu[] = {CustomOp<Op, CpuEp>(0), CustomOp<Op, CpuEp>(2)};');
});

test('errors: an input of a chosen variable, a leaf that is no dtype, a condition reading dims, a case choosing it', () => {
  const onInput = specErrors({
    'e.yaml': emb("'float16 if output_fp16 else float32'").replace(
      '{ name: gamma, dtype: float32',
      '{ name: gamma, dtype: TOut',
    ),
  });
  assert.match(onInput[0]!.message, "type variable `TOut` is chosen by attributes, so it is an output's dtype only");
  assert.is(onInput[0]!.line, 8);
  const leaf = specErrors({ 'e.yaml': emb("'float16 if output_fp16 else floaty'") });
  assert.match(leaf[0]!.message, 'expected a dtype (float32');
  assert.is(leaf[0]!.line, 5);
  assert.is(leaf[0]!.col, 38, 'at `floaty`, inside the quotes');
  const dims = specErrors({ 'e.yaml': emb("'float16 if ids[0] > 2 else float32'") });
  assert.match(dims[0]!.message, '`ids` is not an input that can be read here');
  const unknown = specErrors({ 'e.yaml': emb("'float16 if output_f16 else float32'") });
  assert.match(unknown[0]!.message, '`output_f16` is not an attribute');
  assert.match(unknown[0]!.hint ?? '', 'output_fp16');
  const inCase = specErrors({
    'e.yaml': emb(
      "'float16 if output_fp16 else float32'",
      '  - inputs: { ids: [1, 1], gamma: [1] }\n    types: { TOut: float16 }\n',
    ),
  });
  assert.match(inCase[0]!.message, 'type variable `TOut` is chosen by attributes; set them instead');
  const twoOptional = specErrors({
    'e.yaml': emb("'float16 if output_fp16 else float32'").replace(
      '  - { name: gamma, dtype: float32, rank: 1 }\n',
      '  - { name: gamma, dtype: float32, rank: 1 }\n  - { name: beta, dtype: float32, rank: 1, optional: true }\n  - { name: pos, dtype: float32, rank: 1, optional: true }\n',
    ),
  });
  assert.match(
    twoOptional[0]!.message,
    'a type variable the attributes choose needs an op with at most one optional input',
  );
});

test.run();
