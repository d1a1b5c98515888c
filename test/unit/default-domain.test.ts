// The default ONNX domain: `domain: ''` and `domain: ai.onnx` are one domain, stored as '', open
// only to standard op types; the backends that name a domain spell it as each expects.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jaxTarget } from '../../generator/emit/jax/index.js';
import { popartEmitter } from '../../generator/emit/popart/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import type { OpIR } from '../../generator/model/ir.js';
import { onnxOpName } from '../../generator/model/ir-helpers.js';
import { assertFacts, loose, opText } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const spec = (name: string, domain: string): string => `name: ${name}
domain: ${domain}
version: 11
inputs:
  - { name: data, dtype: float32 }
  - { name: indices, dtype: int64 }
  - { name: updates, dtype: float32 }
outputs:
  - { name: output, dtype: float32, shape: data }
kernels: { cpu: kernels/${name}.cpp }
`;

const project = loadSpecs({ 'scatter_nd.yaml': spec('ScatterND', "''") });
const op = project.ops[0] as OpIR;

test("'' and ai.onnx are the default domain, stored as ''", () => {
  assert.is(op.domain, '');
  assert.is(op.version, 11);
  assert.is(loadSpecs({ 'scatter_nd.yaml': spec('ScatterND', 'ai.onnx') }).ops[0]!.domain, '');
  assert.is(onnxOpName(op), 'onnx::ScatterND');
});

test('the default domain refuses an op type that is not a standard one, suggesting the near one', () => {
  const errs = specErrors({ 'my_op.yaml': spec('ScatterNd', "''") });
  assert.is(errs.length, 1, errs.map((e) => e.message).join('\n'));
  assert.is(errs[0]!.path, 'domain');
  assert.match(errs[0]!.message, 'the default ONNX domain holds only the standard ops, and `ScatterNd` is not one');
  assert.match(errs[0]!.hint ?? '', 'ScatterND');
  const ml = specErrors({ 'scaler.yaml': spec('Scaler', 'ai.onnx') });
  assert.match(ml[0]!.message, '`Scaler` is not one', 'an ai.onnx.ml op type is not the default domain’s');
  const custom = loadSpecs({ 'my_op.yaml': spec('ScatterNd', 'mmdeploy') }).ops[0]!;
  assert.is(custom.domain, 'mmdeploy', 'a domain of its own takes any name');
});

test('an empty segment is still refused in a dotted domain', () => {
  const errs = specErrors({ 'x.yaml': spec('ScatterND', 'a..b') });
  assert.ok(
    errs.some((e) => e.path === 'domain'),
    errs.map((e) => e.message).join('\n'),
  );
});

test('PopART registers it as ai.onnx, its name for the default domain; JAX targets opforge.ai.onnx', () => {
  const popart = opText(popartEmitter.emit(project), 'ScatterND');
  assertFacts(popart, [loose('OperatorIdentifier("ai.onnx", "ScatterND", 11, ::popart::NumInputs(3, 3), 1)')], 'id');
  assert.is(jaxTarget(op), 'opforge.ai.onnx.ScatterND');
});

test('the PyTorch package describes the node as onnx::ScatterND and keeps its domain empty', () => {
  const text = opText(pythonEmitter.emit(project), 'ScatterND');
  assertFacts(text, [/onnx::ScatterND/, /domain=''|domain=""/], 'op module');
});

test.run();
