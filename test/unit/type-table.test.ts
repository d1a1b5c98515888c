// The type table every emitter looks dtypes and attribute types up in: each column against the
// numbers and names the frameworks define (ONNX's TensorProto and AttributeProto enums, element
// sizes, ATen scalar types, TensorRT's first versions), and internal consistency (unique tags).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ATTR_INFO, ATTR_TYPES, DTYPE_INFO, DTYPES } from '../../generator/model/type-table.js';

test('every dtype and attribute type has its row, keyed by itself', () => {
  for (const d of DTYPES) assert.is(DTYPE_INFO[d].dtype, d);
  for (const t of ATTR_TYPES) assert.is(ATTR_INFO[t].type, t);
  assert.equal(Object.keys(DTYPE_INFO).sort(), [...DTYPES].sort());
  assert.equal(Object.keys(ATTR_INFO).sort(), [...ATTR_TYPES].sort());
});

test('ONNX TensorProto.DataType numbers and names (onnx.proto)', () => {
  assert.equal(Object.fromEntries(DTYPES.map((d) => [d, [DTYPE_INFO[d].onnx.name, DTYPE_INFO[d].onnx.value]])), {
    float32: ['FLOAT', 1],
    uint8: ['UINT8', 2],
    int8: ['INT8', 3],
    int32: ['INT32', 6],
    int64: ['INT64', 7],
    bool: ['BOOL', 9],
    float16: ['FLOAT16', 10],
    float64: ['DOUBLE', 11],
    bfloat16: ['BFLOAT16', 16],
  });
  for (const d of DTYPES) {
    const i = DTYPE_INFO[d];
    assert.is(i.ort, `ONNX_TENSOR_ELEMENT_DATA_TYPE_${i.onnx.name}`, `${d}: ORT's enumerator is ONNX's name`);
  }
});

test('element sizes, C++ storage types and short tags', () => {
  assert.equal(Object.fromEntries(DTYPES.map((d) => [d, [DTYPE_INFO[d].bytes, DTYPE_INFO[d].cpp]])), {
    float32: [4, 'float'],
    float16: [2, 'opforge::float16'],
    bfloat16: [2, 'opforge::bfloat16'],
    float64: [8, 'double'],
    int8: [1, 'int8_t'],
    uint8: [1, 'uint8_t'],
    int32: [4, 'int32_t'],
    int64: [8, 'int64_t'],
    bool: [1, 'bool'],
  });
  const shorts = DTYPES.map((d) => DTYPE_INFO[d].short);
  assert.is(new Set(shorts).size, shorts.length, 'binding suffixes are unambiguous');
  assert.equal(
    DTYPES.filter((d) => DTYPE_INFO[d].isFloat),
    ['float32', 'float16', 'bfloat16', 'float64'],
  );
});

test('PyTorch, TensorRT, JS and XLA columns', () => {
  assert.is(DTYPE_INFO.float16.torch.aten, 'at::kHalf');
  assert.is(DTYPE_INFO.int64.torch.aten, 'at::kLong');
  assert.is(DTYPE_INFO.float64.trt, null);
  assert.equal(DTYPE_INFO.bfloat16.trt, { name: 'kBF16', since: 9 });
  assert.equal(DTYPE_INFO.int64.trt, { name: 'kINT64', since: 10 });
  assert.is(DTYPE_INFO.int64.tsArray, 'BigInt64Array');
  assert.is(DTYPE_INFO.int64.tsElem, 'bigint');
  assert.is(DTYPE_INFO.bool.xla, 'PRED');
  for (const d of DTYPES) assert.is(DTYPE_INFO[d].torch.py, `torch.${d}`);
});

test('attribute types: ONNX AttributeProto types, C++ members, serialization tags', () => {
  assert.equal(Object.fromEntries(ATTR_TYPES.map((t) => [t, [ATTR_INFO[t].onnx.name, ATTR_INFO[t].onnx.value]])), {
    bool: ['INT', 2],
    int: ['INT', 2],
    float: ['FLOAT', 1],
    string: ['STRING', 3],
    ints: ['INTS', 7],
    floats: ['FLOATS', 6],
  });
  assert.equal(Object.fromEntries(ATTR_TYPES.map((t) => [t, ATTR_INFO[t].cpp])), {
    bool: 'bool',
    int: 'int64_t',
    float: 'float',
    string: 'std::string',
    ints: 'std::vector<int64_t>',
    floats: 'std::vector<float>',
  });
  const tags = ATTR_TYPES.map((t) => ATTR_INFO[t].tag);
  assert.is(new Set(tags).size, tags.length, 'serialization tags are distinct');
  assert.equal(
    ATTR_TYPES.filter((t) => ATTR_INFO[t].isList),
    ['ints', 'floats'],
  );
  assert.is(ATTR_INFO.float.torchSchema, 'float');
  assert.is(ATTR_INFO.ints.torchSchema, 'int[]');
  assert.is(ATTR_INFO.string.trtField, 'kCHAR');
  assert.is(ATTR_INFO.ints.paddle, 'std::vector<int>');
});

test.run();
