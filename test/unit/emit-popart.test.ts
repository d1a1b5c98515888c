// The PopART emitter: the operator identifier (domain, name, version, input counts with the
// optional one), dtypes per port, attributes read with PopART's types (the required one checked),
// and PopRT's Python shape inference.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { popartEmitter } from '../../generator/emit/popart/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(popartEmitter, project, [/^popart\//, /^cmake\/opforge_popart\.cmake$/]);
const op = opText(files, 'ScaleShift');

test('operator identifier: domain, name, version, 2..3 inputs, 2 outputs', () => {
  assertFacts(op, [loose('OperatorIdentifier("unit.test", "ScaleShift", 3, ::popart::NumInputs(2, 3), 2)')], 'id');
});

test('dtypes per port', () => {
  assertFacts(
    op,
    [
      loose('{"idx", {::popart::DataType::INT32, ::popart::DataType::INT64}}'),
      loose('{"count", {::popart::DataType::INT64}}'),
      loose('{"x", {::popart::DataType::FLOAT, ::popart::DataType::FLOAT16, ::popart::DataType::DOUBLE}}'),
    ],
    'dtypes',
  );
});

test("attributes read with PopART's attribute types; the required one reported when absent", () => {
  const kinds: [string, string][] = [
    ['alpha', 'Float'],
    ['repeats', 'Int'],
    ['enabled', 'Int'],
    ['mode', 'String'],
    ['level', 'Int'],
    ['sizes', 'Ints'],
    ['weights', 'Floats'],
    ['label', 'String'],
    ['gain', 'Float'],
  ];
  for (const [name, kind] of kinds)
    assert.match(op, new RegExp(`readAttr<::popart::Attributes::${kind}>\\(\\s*a\\s*,\\s*"${name}"`), name);
  assert.match(op, /attribute gain is required/);
  assert.not.match(op, /attribute alpha is required/);
});

test('PopRT shape inference: the int attribute with its default, the expressions', () => {
  const py = file(files, 'popart/custom_shape_inference.py');
  assertFacts(py, [loose("@register_shape_func(['ScaleShift'])\nclass ScaleShift(SpecShapeFunc):")], 'shape inference');
  // The class states what the shared SpecShapeFunc reads: input count, the inputs it needs, the
  // defaults of the int attributes the dims read (passed to _attributes(node, self.defaults)).
  const cls = /class ScaleShift\(SpecShapeFunc\):[\s\S]*?(?=\n\S|$)/.exec(py)?.[0];
  assert.ok(cls, 'class ScaleShift');
  assertFacts(
    cls,
    [loose('num_inputs = 3'), loose('required = (0, 1)'), loose("defaults = {'repeats': 3}")],
    'ScaleShift shape func',
  );
  assert.match(py, /_attributes\(\s*node\s*,\s*self\.defaults\s*\)/);
  assert.match(py, /shapes\[0\]\[1\]\s*\*\s*attrs\['repeats'\]\s*\)\s*\+\s*1/);
  assert.match(py, /onnx\.TensorProto\.INT64/);
});

test.run();
