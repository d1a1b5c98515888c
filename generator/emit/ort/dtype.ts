// opforge/ort/dtype.h: opforge::DType <-> ONNXTensorElementDataType, written from the type
// table so the ONNX Runtime backend cannot disagree with the others.

import { DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';

export function emitDtypeHeader(): string {
  return lines(
    '// opforge dtype <-> ONNX Runtime element type, from generator/model/type-table.ts.',
    '#pragma once',
    '',
    '#include <onnxruntime_c_api.h>',
    '',
    '#include "opforge/core.h"',
    '',
    'namespace opforge {',
    'namespace ort {',
    '',
    '/** The opforge dtype of an ONNX Runtime element type; false for those the op core has no type for. */',
    'inline bool fromOrt(ONNXTensorElementDataType t, DType* out) {',
    '  switch (t) {',
    ...DTYPES.map((d) => `    case ${DTYPE_INFO[d].ort}: *out = DType::${DTYPE_INFO[d].cppEnum}; return true;`),
    '    default: return false;',
    '  }',
    '}',
    '',
    '/** The ONNX Runtime element type of an opforge dtype. */',
    'inline ONNXTensorElementDataType toOrt(DType t) {',
    '  switch (t) {',
    ...DTYPES.map((d) => `    case DType::${DTYPE_INFO[d].cppEnum}: return ${DTYPE_INFO[d].ort};`),
    '  }',
    '  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;',
    '}',
    '',
    '}  // namespace ort',
    '}  // namespace opforge',
  );
}
