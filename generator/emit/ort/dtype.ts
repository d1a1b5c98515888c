// opforge/ort/dtype.h: opforge::DType <-> ONNXTensorElementDataType, written from the type
// table so the ONNX Runtime backend cannot disagree with the others.

import { DTYPE_INFO, DTYPES } from '../../model/type-table.js';
import { cppUnit, docComment } from '../lang/cpp.js';

export function emitDtypeHeader(): string {
  const pairs = DTYPES.map((d) => ({ core: `DType::${DTYPE_INFO[d].cppEnum}`, ort: DTYPE_INFO[d].ort }));
  return cppUnit({
    comment: 'opforge dtype <-> ONNX Runtime element type, from generator/model/type-table.ts.',
    header: true,
    includes: { external: ['onnxruntime_c_api.h'], project: ['opforge/core.h'] },
    namespace: 'opforge::ort',
    body: [
      docComment('The opforge dtype of an ONNX Runtime element type; false for those the op core has no type for.'),
      'inline bool fromOrt(ONNXTensorElementDataType t, DType* out) {',
      '  switch (t) {',
      ...pairs.map((p) => `    case ${p.ort}: *out = ${p.core}; return true;`),
      '    default: return false;',
      '  }',
      '}',
      '',
      docComment('The ONNX Runtime element type of an opforge dtype.'),
      'inline ONNXTensorElementDataType toOrt(DType t) {',
      '  switch (t) {',
      ...pairs.map((p) => `    case ${p.core}: return ${p.ort};`),
      '  }',
      '  return ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED;',
      '}',
    ],
  });
}
