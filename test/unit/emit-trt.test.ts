// The TensorRT emitter: plugin names and version, the creator fields (attribute names, the field
// types onnx-tensorrt gives them, which are required), dtypes per port and binding, output dims.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { trtEmitter } from '../../generator/emit/trt/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, near, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(trtEmitter, project, [/^trt\//, /^cmake\/opforge_trt\.cmake$/]);
const op = opText(files, 'ScaleShift');

test('plugin name and version', () => {
  assertFacts(
    op,
    [near('kPluginName', '"ScaleShift"'), near('kPluginVersion', '"3"'), near('kInputRank', '{2, 1, -1}')],
    'trt',
  );
});

test('creator fields: every attribute with its field type and whether it is required', () => {
  const fields: [string, string, boolean][] = [
    ['alpha', 'kFLOAT32', false],
    ['repeats', 'kINT32', false],
    ['enabled', 'kINT32', false],
    ['mode', 'kCHAR', false],
    ['level', 'kINT32', false],
    ['sizes', 'kINT32', false],
    ['weights', 'kFLOAT32', false],
    ['label', 'kCHAR', false],
    ['gain', 'kFLOAT32', true],
  ];
  for (const [name, type, required] of fields) {
    const row = new RegExp(`"${name}"[^\\n}]*?PluginFieldType::${type}\\b[^\\n}]*?\\b${required}\\b`);
    assert.match(op, row, `field ${name}`);
  }
  assertFacts(op, [near('kNumFields', '9')], 'trt');
});

test('dtypes: each port, and every binding in order', () => {
  assertFacts(
    op,
    [
      near('kBindingNames', '{"f32_i32", "f32_i64", "f16_i32", "f16_i64", "f64_i32", "f64_i64"}'),
      loose('{DType::kFloat16, DType::kInt64, DType::kFloat16, DType::kFloat16, DType::kInt64}'),
      loose('{DType::kFloat64, DType::kInt32, DType::kFloat64, DType::kFloat64, DType::kInt64}'),
    ],
    'trt dtypes',
  );
});

test('output dims as IExprBuilder operations over the spec expressions', () => {
  assertFacts(
    op,
    [/kPROD[^;]*in\[0\]\.d\[1\][^;]*attrs\.repeats/, /kCEIL_DIV[^;]*in\[0\]\.d\[1\][^;]*2/],
    'outputDims',
  );
});

test('the plugin library registers both ops; the README documents the fields', () => {
  const lib = allFiles(['trt/plugin_library.cpp', 'trt/register.cpp']);
  for (const n of ['scale_shift', 'plain_copy']) assert.match(lib, new RegExp(`\\b${n}\\b`));
  const readme = file(files, 'trt/scale_shift/README.md');
  assert.match(readme, /\|\s*`gain`\s*\|\s*float\s*\|\s*`kFLOAT32`\s*\|\s*yes\s*\|/);
  assert.match(readme, /\|\s*`alpha`\s*\|\s*float\s*\|\s*`kFLOAT32`\s*\|\s*no\s*\|/);
});

function allFiles(paths: string[]): string {
  return paths.map((p) => file(files, p)).join('\n');
}

test.run();
