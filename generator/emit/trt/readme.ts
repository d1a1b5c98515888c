// out/trt/<op>/README.md: how to load the op's plugins in trtexec, Python TensorRT and Paddle.

import type { OpIR } from '../../model/ir.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { lines } from '../emitter.js';
import { commentText } from '../lang/literals.js';
import { pluginNames } from './names.js';

const PY_FIELD: Record<string, { np: string; trt: string }> = {
  kINT32: { np: 'np.int32', trt: 'trt.PluginFieldType.INT32' },
  kFLOAT32: { np: 'np.float32', trt: 'trt.PluginFieldType.FLOAT32' },
  kCHAR: { np: 'np.int8', trt: 'trt.PluginFieldType.CHAR' },
};

export function emitOpReadme(op: OpIR): string {
  const n = pluginNames(op);
  const md = (s: string): string => commentText(s).replace(/([\\`*_[\]<>|])/g, '\\$1');
  const fieldRows = op.attributes.map(
    (a) =>
      `| \`${a.name}\` | ${a.type} | \`${ATTR_INFO[a.type].trtField}\` | ${a.required ? 'yes' : 'no'} | ${md(a.description)} |`,
  );
  const pyFields = op.attributes.map((a) => {
    const f = PY_FIELD[ATTR_INFO[a.type].trtField]!;
    const v =
      a.type === 'string'
        ? `np.frombuffer(b"value\\0", dtype=np.int8)`
        : `np.array([${a.default !== undefined && !Array.isArray(a.default) && typeof a.default !== 'string' ? Number(a.default) : 1}], dtype=${f.np})`;
    return `    trt.PluginField("${a.name}", ${v}, ${f.trt}),`;
  });
  return lines(
    `# ${op.name}: TensorRT plugins`,
    '',
    md(op.description),
    '',
    '| Interface | Registered name | Version | TensorRT |',
    '|---|---|---|---|',
    `| IPluginV3 (IPluginV3OneCore/Build/Runtime) | \`${n.name}\` | \`${n.version}\` | 10, 11 |`,
    `| IPluginV2DynamicExt | \`${n.name}\` | \`${n.version}\` | 8.x |`,
    `| IPluginV2DynamicExt (Paddle, dynamic shape) | \`${n.paddleDynamic}\` | \`1\` | 8.x, 10, 11 |`,
    `| IPluginV2Ext (Paddle, static shape, implicit batch) | \`${n.paddleStatic}\` | \`1\` | 8.x, 10, 11 |`,
    '',
    "Creator fields (what an ONNX node's attributes become in onnx-tensorrt's plugin fallback; other",
    "integer and float widths are accepted too, and a missing optional field takes the spec's default):",
    '',
    op.attributes.length
      ? lines('| Field | Attribute type | Published as | Required | Meaning |', '|---|---|---|---|---|', ...fieldRows)
      : '_No attributes._',
    '',
    '## Build',
    '',
    '```sh',
    'cmake -S out -B build -DWITH_CUDA=ON -DWITH_TENSORRT=ON -DTENSORRT_ROOT=/opt/TensorRT -DCMAKE_CUDA_ARCHITECTURES="80;90"',
    'cmake --build build --target opforge_trt_plugins opforge_trt_plugins_autoreg',
    '```',
    '',
    '## trtexec',
    '',
    '```sh',
    '# TensorRT 10/11: the library exports getCreators and setLoggerFinder',
    'trtexec --onnx=model.onnx --dynamicPlugins=build/trt/libopforge_trt_plugins.so --setPluginsToSerialize=build/trt/libopforge_trt_plugins.so',
    '# TensorRT 8.6: load the self-registering variant',
    'trtexec --onnx=model.onnx --plugins=build/trt/libopforge_trt_plugins_autoreg.so',
    '```',
    '',
    `The ONNX node must have op_type \`${n.name}\`; onnx-tensorrt then finds the creator by name and version \`${n.version}\`.`,
    '',
    '## Python TensorRT',
    '',
    '```python',
    'import numpy as np',
    'import tensorrt as trt',
    '',
    'registry = trt.get_plugin_registry()',
    'registry.load_library("build/trt/libopforge_trt_plugins.so")  # TensorRT 10/11',
    `creator = registry.get_creator("${n.name}", "${n.version}", "")`,
    'fields = trt.PluginFieldCollection([',
    ...pyFields,
    '])',
    `plugin = creator.create_plugin("${op.ident.snake}", fields, trt.TensorRTPhase.BUILD)`,
    'layer = network.add_plugin_v3(inputs, [], plugin)',
    '```',
    '',
    'With TensorRT 8.6, `ctypes.CDLL("build/trt/libopforge_trt_plugins_autoreg.so")` registers the',
    `creators; then \`registry.get_plugin_creator("${n.name}", "${n.version}")\` and \`network.add_plugin_v2\`.`,
    '',
    '## Paddle Inference',
    '',
    `Paddle's TensorRT subgraph converts the custom op \`${op.ident.snake}\` by looking up`,
    `\`${n.paddleDynamic}\` (dynamic shape) or \`${n.paddleStatic}\` (static shape) with version \`1\`,`,
    "passing the op's attributes as fields. Link or preload the self-registering library:",
    '',
    '```cpp',
    'config.EnableTensorRtEngine(1 << 30, 1, 3, paddle_infer::PrecisionType::kFloat32, false, false);',
    '// link libopforge_trt_plugins_autoreg.so into the executable (CMake: target_link_libraries)',
    '```',
  );
}
