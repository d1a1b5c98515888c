// opforge/ort/dtype.h: opforge::DType <-> ONNXTensorElementDataType, written from the type
// table so the ONNX Runtime backend cannot disagree with the others.

import { DTYPE_INFO } from '../../model/type-table.js';
import { cppUnit } from '../lang/cpp.js';
import { dtypeMapFunctions } from '../lang/dtype-map.js';

export function emitDtypeHeader(): string {
  return cppUnit({
    comment: 'opforge dtype <-> ONNX Runtime element type, from generator/model/type-table.ts.',
    header: true,
    includes: { external: ['onnxruntime_c_api.h'], project: ['opforge/core.h'] },
    namespace: 'opforge::ort',
    body: dtypeMapFunctions({
      name: 'Ort',
      type: 'ONNXTensorElementDataType',
      of: (d) => DTYPE_INFO[d].ort,
      unmatched: 'ONNX Runtime element types the op core has no type for',
      undefinedValue: 'ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED',
    }),
  });
}
