// The one table that maps spec dtypes and attribute types to every backend. Emitters look
// things up here instead of keeping their own switch statements, so the backends cannot
// disagree on a type.

import { INT32_MAX } from './limits.js';

export const DTYPES = ['float32', 'float16', 'bfloat16', 'float64', 'int8', 'uint8', 'int32', 'int64', 'bool'] as const;
export type DType = (typeof DTYPES)[number];

export const ATTR_TYPES = ['bool', 'int', 'float', 'string', 'ints', 'floats'] as const;
export type AttrType = (typeof ATTR_TYPES)[number];

export interface DTypeInfo {
  dtype: DType;
  /** Short stable tag used in generated names (`f32`). */
  short: string;
  bytes: number;
  isFloat: boolean;
  /** C++ storage type in the op core and kernels. */
  cpp: string;
  /** opforge::DType enumerator in core.h. */
  cppEnum: string;
  /** ONNX TensorProto.DataType name and number. */
  onnx: { name: string; value: number; typeStr: string };
  /** TensorRT nvinfer1::DataType enumerator, with the first major version that has it; null if TensorRT lacks it. */
  trt: { name: string; since: number } | null;
  /** torch dtype attribute (`torch.float32`) and ATen ScalarType (`at::kFloat`). */
  torch: { py: string; aten: string };
  /** ONNX Runtime ONNXTensorElementDataType enumerator. */
  ort: string;
  /**
   * Poplar type PopART lowers the dtype to (`popx::popType`, PopART 3.4); null where it has none
   * (float64, bfloat16 throw; int64 is cast to int32 on lowering, so a host kernel would misread it).
   */
  popart: string | null;
  /** Paddle phi DataType enumerator. */
  paddle: string;
  /** numpy dtype name; bfloat16 has none in numpy. */
  numpy: string | null;
  /** XLA FFI element type (`xla::ffi::DataType` enumerator), what a JAX custom call's buffer reports. */
  xla: string;
  /** TypedArray class holding the elements in JS (16-bit floats are raw bits). */
  tsArray: string;
  /** JS element representation. */
  tsElem: 'number' | 'bigint';
}

const D = (x: DTypeInfo): DTypeInfo => x;

export const DTYPE_INFO: Readonly<Record<DType, DTypeInfo>> = {
  float32: D({
    dtype: 'float32',
    short: 'f32',
    bytes: 4,
    isFloat: true,
    cpp: 'float',
    cppEnum: 'kFloat32',
    onnx: { name: 'FLOAT', value: 1, typeStr: 'tensor(float)' },
    trt: { name: 'kFLOAT', since: 8 },
    torch: { py: 'torch.float32', aten: 'at::kFloat' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT',
    popart: 'FLOAT',
    paddle: 'paddle::DataType::FLOAT32',
    numpy: 'float32',
    xla: 'F32',
    tsArray: 'Float32Array',
    tsElem: 'number',
  }),
  float16: D({
    dtype: 'float16',
    short: 'f16',
    bytes: 2,
    isFloat: true,
    cpp: 'opforge::float16',
    cppEnum: 'kFloat16',
    onnx: { name: 'FLOAT16', value: 10, typeStr: 'tensor(float16)' },
    trt: { name: 'kHALF', since: 8 },
    torch: { py: 'torch.float16', aten: 'at::kHalf' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT16',
    popart: 'HALF',
    paddle: 'paddle::DataType::FLOAT16',
    numpy: 'float16',
    xla: 'F16',
    tsArray: 'Uint16Array',
    tsElem: 'number',
  }),
  bfloat16: D({
    dtype: 'bfloat16',
    short: 'bf16',
    bytes: 2,
    isFloat: true,
    cpp: 'opforge::bfloat16',
    cppEnum: 'kBFloat16',
    onnx: { name: 'BFLOAT16', value: 16, typeStr: 'tensor(bfloat16)' },
    trt: { name: 'kBF16', since: 9 },
    torch: { py: 'torch.bfloat16', aten: 'at::kBFloat16' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_BFLOAT16',
    popart: null,
    paddle: 'paddle::DataType::BFLOAT16',
    numpy: null,
    xla: 'BF16',
    tsArray: 'Uint16Array',
    tsElem: 'number',
  }),
  float64: D({
    dtype: 'float64',
    short: 'f64',
    bytes: 8,
    isFloat: true,
    cpp: 'double',
    cppEnum: 'kFloat64',
    onnx: { name: 'DOUBLE', value: 11, typeStr: 'tensor(double)' },
    trt: null,
    torch: { py: 'torch.float64', aten: 'at::kDouble' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_DOUBLE',
    popart: null,
    paddle: 'paddle::DataType::FLOAT64',
    numpy: 'float64',
    xla: 'F64',
    tsArray: 'Float64Array',
    tsElem: 'number',
  }),
  int8: D({
    dtype: 'int8',
    short: 'i8',
    bytes: 1,
    isFloat: false,
    cpp: 'int8_t',
    cppEnum: 'kInt8',
    onnx: { name: 'INT8', value: 3, typeStr: 'tensor(int8)' },
    trt: { name: 'kINT8', since: 8 },
    torch: { py: 'torch.int8', aten: 'at::kChar' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_INT8',
    popart: 'SIGNED_CHAR',
    paddle: 'paddle::DataType::INT8',
    numpy: 'int8',
    xla: 'S8',
    tsArray: 'Int8Array',
    tsElem: 'number',
  }),
  uint8: D({
    dtype: 'uint8',
    short: 'u8',
    bytes: 1,
    isFloat: false,
    cpp: 'uint8_t',
    cppEnum: 'kUInt8',
    onnx: { name: 'UINT8', value: 2, typeStr: 'tensor(uint8)' },
    trt: { name: 'kUINT8', since: 8 },
    torch: { py: 'torch.uint8', aten: 'at::kByte' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_UINT8',
    popart: 'UNSIGNED_CHAR',
    paddle: 'paddle::DataType::UINT8',
    numpy: 'uint8',
    xla: 'U8',
    tsArray: 'Uint8Array',
    tsElem: 'number',
  }),
  int32: D({
    dtype: 'int32',
    short: 'i32',
    bytes: 4,
    isFloat: false,
    cpp: 'int32_t',
    cppEnum: 'kInt32',
    onnx: { name: 'INT32', value: 6, typeStr: 'tensor(int32)' },
    trt: { name: 'kINT32', since: 8 },
    torch: { py: 'torch.int32', aten: 'at::kInt' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_INT32',
    popart: 'INT',
    paddle: 'paddle::DataType::INT32',
    numpy: 'int32',
    xla: 'S32',
    tsArray: 'Int32Array',
    tsElem: 'number',
  }),
  int64: D({
    dtype: 'int64',
    short: 'i64',
    bytes: 8,
    isFloat: false,
    cpp: 'int64_t',
    cppEnum: 'kInt64',
    onnx: { name: 'INT64', value: 7, typeStr: 'tensor(int64)' },
    trt: { name: 'kINT64', since: 10 },
    torch: { py: 'torch.int64', aten: 'at::kLong' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_INT64',
    popart: null,
    paddle: 'paddle::DataType::INT64',
    numpy: 'int64',
    xla: 'S64',
    tsArray: 'BigInt64Array',
    tsElem: 'bigint',
  }),
  bool: D({
    dtype: 'bool',
    short: 'b8',
    bytes: 1,
    isFloat: false,
    cpp: 'bool',
    cppEnum: 'kBool',
    onnx: { name: 'BOOL', value: 9, typeStr: 'tensor(bool)' },
    trt: { name: 'kBOOL', since: 8 },
    torch: { py: 'torch.bool', aten: 'at::kBool' },
    ort: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_BOOL',
    popart: 'BOOL',
    paddle: 'paddle::DataType::BOOL',
    numpy: 'bool_',
    xla: 'PRED',
    tsArray: 'Uint8Array',
    tsElem: 'number',
  }),
};

export interface AttrTypeInfo {
  type: AttrType;
  isList: boolean;
  /** C++ member type in the op core's Attrs struct. */
  cpp: string;
  /** Serialization tag written before each field (core.h FieldTag). */
  tag: number;
  /** ONNX AttributeProto.AttributeType name and number. */
  onnx: { name: string; value: number };
  /** Suffix the legacy TorchScript exporter's g.op() uses (`alpha_f`). */
  legacySuffix: 'i' | 'f' | 's';
  /**
   * Python test that a value can go straight to the compiled op (opforge_ops' direct path): the
   * dispatcher would also take True for a float or an int, so the type is checked exactly.
   */
  pyDirectTest: (v: string) => string;
  /**
   * TensorRT PluginFieldType the creator publishes: what onnx-tensorrt's plugin fallback
   * produces for the ONNX attribute (INT/INTS -> kINT32, FLOAT/FLOATS -> kFLOAT32,
   * STRING -> kCHAR).
   */
  trtField: string;
  /** TORCH_LIBRARY schema type. */
  torchSchema: string;
  /** Python annotation. */
  py: string;
  /** TypeScript type. */
  ts: string;
  /**
   * Paddle PD_BUILD_OP attribute type string. Integers are 32-bit (`int`, `std::vector<int>`):
   * Paddle-TRT's custom-plugin converter reads only INT/INTS attributes (LONG/LONGS abort it), and
   * InferShapeFn never receives `std::vector<int64_t>` attributes. The adapter widens to the core's int64_t.
   */
  paddle: string;
  /**
   * How a JAX custom call's attribute arrives in an XLA FFI handler (jax.ffi.ffi_call encodes a
   * Python float as f64 and an int as i64; lists go as numpy arrays, int64 and float64), and the
   * numpy dtype opforge_jax passes a list as. The handler narrows to the op core's type.
   */
  xla: { decode: string; numpy: string | null };
}

export const ATTR_INFO: Readonly<Record<AttrType, AttrTypeInfo>> = {
  bool: {
    type: 'bool',
    isList: false,
    cpp: 'bool',
    tag: 1,
    onnx: { name: 'INT', value: 2 },
    legacySuffix: 'i',
    pyDirectTest: (v) => `type(${v}) is bool`,
    trtField: 'kINT32',
    torchSchema: 'bool',
    py: 'bool',
    ts: 'boolean',
    paddle: 'bool',
    xla: { decode: 'bool', numpy: null },
  },
  int: {
    type: 'int',
    isList: false,
    cpp: 'int64_t',
    tag: 2,
    onnx: { name: 'INT', value: 2 },
    legacySuffix: 'i',
    pyDirectTest: (v) => `(type(${v}) is int and ${-INT32_MAX} <= ${v} <= ${INT32_MAX})`,
    trtField: 'kINT32',
    torchSchema: 'int',
    py: 'int',
    ts: 'number',
    paddle: 'int',
    xla: { decode: 'int64_t', numpy: null },
  },
  float: {
    type: 'float',
    isList: false,
    cpp: 'float',
    tag: 3,
    onnx: { name: 'FLOAT', value: 1 },
    legacySuffix: 'f',
    pyDirectTest: (v) => `(type(${v}) is float or type(${v}) is int)`,
    trtField: 'kFLOAT32',
    torchSchema: 'float',
    py: 'float',
    ts: 'number',
    paddle: 'float',
    xla: { decode: 'double', numpy: null },
  },
  string: {
    type: 'string',
    isList: false,
    cpp: 'std::string',
    tag: 4,
    onnx: { name: 'STRING', value: 3 },
    legacySuffix: 's',
    pyDirectTest: (v) => `_rt.is_str(${v})`,
    trtField: 'kCHAR',
    torchSchema: 'str',
    py: 'str',
    ts: 'string',
    paddle: 'std::string',
    xla: { decode: 'std::string_view', numpy: null },
  },
  ints: {
    type: 'ints',
    isList: true,
    cpp: 'std::vector<int64_t>',
    tag: 5,
    onnx: { name: 'INTS', value: 7 },
    legacySuffix: 'i',
    pyDirectTest: (v) => `_rt.is_ints(${v})`,
    trtField: 'kINT32',
    torchSchema: 'int[]',
    py: 'Sequence[int]',
    ts: 'readonly number[]',
    paddle: 'std::vector<int>',
    xla: { decode: '::xla::ffi::Span<const int64_t>', numpy: 'int64' },
  },
  floats: {
    type: 'floats',
    isList: true,
    cpp: 'std::vector<float>',
    tag: 6,
    onnx: { name: 'FLOATS', value: 6 },
    legacySuffix: 'f',
    pyDirectTest: (v) => `_rt.is_floats(${v})`,
    trtField: 'kFLOAT32',
    torchSchema: 'float[]',
    py: 'Sequence[float]',
    ts: 'readonly number[]',
    paddle: 'std::vector<float>',
    xla: { decode: '::xla::ffi::Span<const double>', numpy: 'float64' },
  },
};

/** Attribute types whose values can take part in shape expressions. */
export const SHAPE_ATTR_TYPES: readonly AttrType[] = ['int'];

/** Triton's pointer element types by opforge dtype (bool: Triton's i1, a byte in memory). */
export const TRITON_POINTER: Record<DType, string> = {
  float32: '*fp32',
  float16: '*fp16',
  bfloat16: '*bf16',
  float64: '*fp64',
  int8: '*i8',
  uint8: '*u8',
  int32: '*i32',
  int64: '*i64',
  bool: '*i1',
};
