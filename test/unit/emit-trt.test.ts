// The TensorRT emitter: plugin names and version, the creator fields (attribute names, the field
// types onnx-tensorrt gives them, which are required), dtypes per port and binding, output dims.
// The plugin's Op derives from the op core and reads its tables (kInputRank, kAttributes,
// kBindingNames, kBindingDtypes), so those facts are checked in the core header it includes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { trtEmitter } from '../../generator/emit/trt/index.js';
import { attrRows, bindingRows, coreHeader, cppInit, switchMap } from './helpers/core-tables.js';
import { assertFacts, emitChecked, file, near, opText } from './helpers/emitted.js';
import { fixtureProject } from './helpers/fixture-specs.js';

const { project } = fixtureProject();
const files = emitChecked(trtEmitter, project, [/^trt\//, /^cmake\/opforge_trt\.cmake$/]);
const op = opText(files, 'ScaleShift');
const core = coreHeader(project, 'scale_shift');

test('plugin name and version; the Op is the op core of ScaleShift, whose input ranks it checks', () => {
  assertFacts(op, [near('kPluginName', '"ScaleShift"'), near('kPluginVersion', '"3"')], 'trt');
  assert.match(op, /struct\s+Op\s*:\s*(?:public\s+)?(?:::)?opforge::ops::scale_shift::Core\s*\{/);
  assert.equal(cppInit(core, 'kInputRank'), ['2', '1', '-1']);
});

test('creator fields: every attribute with its field type and whether it is required', () => {
  // The creators publish one field per kAttributes row: its name, fieldType(row.type), and
  // whether a missing one fails (row.required); fieldType() is trt/dtype.h's mapping.
  const common = file(files, 'trt/include/opforge/trt/common.h');
  assert.match(common, /fieldType\(\s*Op::kAttributes\[i\]\.type\s*\)/);
  assert.match(common, /Op::kAttributes\[i\]\.required\s*&&\s*!seen\[i\]/);
  const fieldType = switchMap(file(files, 'trt/include/opforge/trt/dtype.h'), 'fieldType');
  const fields = attrRows(core).map((r) => [
    r.name,
    fieldType.get(`AttrType::${r.type}`)?.replace(/^(?:::)?nvinfer1::PluginFieldType::/, ''),
    r.required,
  ]);
  assert.equal(fields, [
    ['alpha', 'kFLOAT32', false],
    ['repeats', 'kINT32', false],
    ['enabled', 'kINT32', false],
    ['mode', 'kCHAR', false],
    ['level', 'kINT32', false],
    ['sizes', 'kINT32', false],
    ['weights', 'kFLOAT32', false],
    ['label', 'kCHAR', false],
    ['gain', 'kFLOAT32', true],
  ]);
});

test('dtypes: each port, and every binding in order', () => {
  const F16 = 'DType::kFloat16';
  const F32 = 'DType::kFloat32';
  const F64 = 'DType::kFloat64';
  const I32 = 'DType::kInt32';
  const I64 = 'DType::kInt64';
  // Ports x, idx, bias, y, count: T, I, T, T, and count's fixed int64.
  assert.equal(bindingRows(core), [
    { name: 'f32_i32', dtypes: [F32, I32, F32, F32, I64] },
    { name: 'f32_i64', dtypes: [F32, I64, F32, F32, I64] },
    { name: 'f16_i32', dtypes: [F16, I32, F16, F16, I64] },
    { name: 'f16_i64', dtypes: [F16, I64, F16, F16, I64] },
    { name: 'f64_i32', dtypes: [F64, I32, F64, F64, I64] },
    { name: 'f64_i64', dtypes: [F64, I64, F64, F64, I64] },
  ]);
  // TensorRT's supportsFormatCombination matches each port against those rows.
  assert.match(file(files, 'trt/include/opforge/trt/common.h'), /toTrt\(\s*Op::bindingDtype\(/);
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
