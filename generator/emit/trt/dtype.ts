// opforge/trt/dtype.h: opforge::DType <-> nvinfer1::DataType and the PluginFieldType of each
// attribute type, written from the type table so the TensorRT backend cannot disagree with the others.

import { ATTR_INFO, ATTR_TYPES, DTYPE_INFO, DTYPES } from '../../model/type-table.js';
import { attrTypeEnum } from '../core/index.js';
import { lines } from '../emitter.js';
import { fillTemplate } from '../lang/template.js';

/** `#if NV_TENSORRT_MAJOR >= since` around what an older TensorRT lacks. */
const since = (v: number, body: string[], otherwise: string[] = []): string[] =>
  v > 8
    ? [`#if NV_TENSORRT_MAJOR >= ${v}`, ...body, ...(otherwise.length ? ['#else', ...otherwise] : []), '#endif']
    : body;

/** dtype.h (dtype.h.tmpl): the three switches' cases, from the type table. */
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
  return fillTemplate('generator/static/cpp/opforge/trt/dtype.h.tmpl', {
    fromTrt: lines(from),
    toTrt: lines(to),
    fieldType: lines(fields),
  });
}
