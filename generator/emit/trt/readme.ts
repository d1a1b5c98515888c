// out/trt/<op>/README.md: how to load the op's plugins in trtexec, Python TensorRT and Paddle. The
// page is generator/static/md/trt-op-readme.md; the op fills in its names and creator fields.

import type { OpIR } from '../../model/ir.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { mdCode, mdTable, mdTemplate, mdText } from '../lang/markdown.js';
import { pluginNames } from './names.js';

/** numpy and TensorRT names of each plugin field type, for the Python example. */
const PY_FIELD: Record<string, { np: string; trt: string }> = {
  kINT32: { np: 'np.int32', trt: 'trt.PluginFieldType.INT32' },
  kFLOAT32: { np: 'np.float32', trt: 'trt.PluginFieldType.FLOAT32' },
  kCHAR: { np: 'np.int8', trt: 'trt.PluginFieldType.CHAR' },
};

/** An example value for a field: the default where it is one number, else 1 (a string: a placeholder). */
function exampleField(a: OpIR['attributes'][number]): string {
  const f = PY_FIELD[ATTR_INFO[a.type].trtField]!;
  const scalar = a.default !== undefined && !Array.isArray(a.default) && typeof a.default !== 'string';
  const v =
    a.type === 'string'
      ? 'np.frombuffer(b"value\\0", dtype=np.int8)'
      : `np.array([${scalar ? Number(a.default) : 1}], dtype=${f.np})`;
  return `    trt.PluginField("${a.name}", ${v}, ${f.trt}),\n`;
}

export function emitOpReadme(op: OpIR): string {
  const n = pluginNames(op);
  const fields = op.attributes.map((a) => [
    mdCode(a.name),
    a.type,
    mdCode(ATTR_INFO[a.type].trtField),
    a.required ? 'yes' : 'no',
    mdText(a.description),
  ]);
  return mdTemplate('trt-op-readme.md', {
    name: n.name,
    version: n.version,
    snake: op.ident.snake,
    description: mdText(op.description),
    paddleDynamic: n.paddleDynamic,
    paddleStatic: n.paddleStatic,
    fields: fields.length
      ? mdTable(['Field', 'Attribute type', 'Published as', 'Required', 'Meaning'], fields)
      : '_No attributes._',
    pluginFields: op.attributes.map(exampleField).join(''),
  });
}
