// opforge/trt/dtype.h: the dtype mapping between opforge::DType and nvinfer1::DataType, written
// from the type table so the TensorRT backend cannot disagree with the others.

import { DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';

function guarded(since: number, body: string[]): string[] {
  return since > 8 ? [`#if NV_TENSORRT_MAJOR >= ${since}`, ...body, '#endif'] : body;
}

export function emitDtypeHeader(): string {
  const from = DTYPES.flatMap((d) => {
    const t = DTYPE_INFO[d].trt;
    if (!t) return [];
    return guarded(t.since, [
      `    case nvinfer1::DataType::${t.name}: *out = DType::${DTYPE_INFO[d].cppEnum}; return true;`,
    ]);
  });
  const to = DTYPES.flatMap((d) => {
    const i = DTYPE_INFO[d];
    if (!i.trt) return [`    case DType::${i.cppEnum}: return false;  // no TensorRT equivalent`];
    if (i.trt.since <= 8)
      return [`    case DType::${i.cppEnum}: *out = nvinfer1::DataType::${i.trt.name}; return true;`];
    return [
      `    case DType::${i.cppEnum}:`,
      `#if NV_TENSORRT_MAJOR >= ${i.trt.since}`,
      `      *out = nvinfer1::DataType::${i.trt.name};`,
      '      return true;',
      '#else',
      `      return false;  // TensorRT ${i.trt.since} added ${i.trt.name}`,
      '#endif',
    ];
  });
  return lines(
    '// opforge dtype <-> TensorRT DataType, from generator/model/type-table.ts.',
    '#pragma once',
    '',
    '#include <NvInferRuntime.h>',
    '#include <NvInferVersion.h>',
    '',
    '#include "opforge/core.h"',
    '',
    'namespace opforge {',
    'namespace trt {',
    '',
    '/** The opforge dtype of a TensorRT dtype; false for those the op core has no type for (FP8, INT4, ...). */',
    'inline bool fromTrt(nvinfer1::DataType t, DType* out) {',
    '  switch (t) {',
    ...from,
    '    default: return false;',
    '  }',
    '}',
    '',
    '/** The TensorRT dtype of an opforge dtype; false where this TensorRT has none. */',
    'inline bool toTrt(DType t, nvinfer1::DataType* out) {',
    '  switch (t) {',
    ...to,
    '  }',
    '  return false;',
    '}',
    '',
    '}  // namespace trt',
    '}  // namespace opforge',
  );
}
