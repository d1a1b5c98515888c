// opforge/trt/dtype.h: opforge::DType <-> nvinfer1::DataType and the PluginFieldType of each
// attribute type, written from the type table so the TensorRT backend cannot disagree with the others.

import { ATTR_INFO, ATTR_TYPES, DTYPE_INFO, DTYPES } from '../../model/type-table.js';
import { attrTypeEnum } from '../core/index.js';
import { lines } from '../emitter.js';
import { cppUnit, docComment } from '../lang/cpp.js';

/** `#if NV_TENSORRT_MAJOR >= since` around what an older TensorRT lacks. */
const since = (v: number, body: string[], otherwise: string[] = []): string[] =>
  v > 8
    ? [`#if NV_TENSORRT_MAJOR >= ${v}`, ...body, ...(otherwise.length ? ['#else', ...otherwise] : []), '#endif']
    : body;

const sw = (on: string, cases: string[], tail: string[]): string[] => [`  switch (${on}) {`, ...cases, '  }', ...tail];

export function emitDtypeHeader(): string {
  const trt = DTYPES.map((d) => ({ core: `DType::${DTYPE_INFO[d].cppEnum}`, trt: DTYPE_INFO[d].trt }));
  const from = trt.flatMap((t) =>
    t.trt ? since(t.trt.since, [`    case nvinfer1::DataType::${t.trt.name}: *out = ${t.core}; return true;`]) : [],
  );
  const to = trt.flatMap((t) => {
    if (!t.trt) return [`    case ${t.core}: return false;  // no TensorRT equivalent`];
    const set = [`      *out = nvinfer1::DataType::${t.trt.name};`, '      return true;'];
    return [
      `    case ${t.core}:`,
      ...since(t.trt.since, set, [`      return false;  // TensorRT ${t.trt.since} added ${t.trt.name}`]),
    ];
  });
  const fields = ATTR_TYPES.map(
    (a) => `    case ${attrTypeEnum(a)}: return nvinfer1::PluginFieldType::${ATTR_INFO[a].trtField};`,
  );
  return cppUnit({
    comment: 'opforge dtype <-> TensorRT DataType, from generator/model/type-table.ts.',
    header: true,
    includes: { external: ['NvInferRuntime.h', 'NvInferVersion.h'], project: ['opforge/op_core.h'] },
    namespace: 'opforge::trt',
    body: lines(
      docComment(
        'The opforge dtype of a TensorRT dtype; false for those the op core has no type for (FP8, INT4, ...).',
      ),
      'inline bool fromTrt(nvinfer1::DataType t, DType* out) {',
      sw('t', [...from, '    default: return false;'], []),
      '}',
      '',
      docComment('The TensorRT dtype of an opforge dtype; false where this TensorRT has none.'),
      'inline bool toTrt(DType t, nvinfer1::DataType* out) {',
      sw('t', to, ['  return false;']),
      '}',
      '',
      docComment(
        'The PluginFieldType a creator publishes for an attribute type: what onnx-tensorrt gives ONNX attributes.',
      ),
      'inline nvinfer1::PluginFieldType fieldType(AttrType t) {',
      sw('t', fields, ['  return nvinfer1::PluginFieldType::kUNKNOWN;']),
      '}',
    ),
  });
}
