// The Python backend: out/python/opforge_ops, importable with PYTHONPATH=out/python and no build
// step. Each op is a function that runs the compiled extension (out/torch) when it is built and
// the spec's PyTorch reference otherwise, and that exports to ONNX as one custom node with both
// PyTorch exporters (legacy TorchScript and dynamo).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpIR, ProjectIR } from '../../model/ir.js';
import {
  headerLine,
  lines,
  opFile,
  projectFile,
  staticFile,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { pyString } from '../lang/literals.js';
import { ATTR_INFO, ATTR_TYPES, DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import { opModule } from './op-module.js';

const PKG = 'python/opforge_ops';

/** The shared runtime, one module per concern (generator/static/python/opforge_ops); _runtime.py is what
 * the generated modules import. */
const RUNTIME_MODULES = [
  '_autograd.py',
  '_checks.py',
  '_export.py',
  '_library.py',
  '_onnx.py',
  '_register.py',
  '_runtime.py',
  '_shapes.py',
  '_spec.py',
];

export const pythonEmitter: Emitter = defineEmitter({
  name: 'python',
  project(project: ProjectIR): GeneratedFile[] {
    return [
      ...RUNTIME_MODULES.map((m) => staticFile(`${PKG}/${m}`, `generator/static/python/opforge_ops/${m}`)),
      staticFile(`${PKG}/_attrs.py`, 'generator/static/python/shared/_attrs.py'),
      projectFile(`${PKG}/_types.py`, typesModule(), 'generator/model/type-table.ts'),
      projectFile(`${PKG}/__init__.py`, packageInit(project)),
      projectFile(`${PKG}/ops/__init__.py`, '"""One module per op; import the functions from opforge_ops itself."""'),
      projectFile(
        `${PKG}/_reference/__init__.py`,
        '"""The specs\' PyTorch references (kernels.reference), copied from the project."""',
      ),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    const ref = referenceFile(project, op);
    return [opFile(op, `${PKG}/ops/${op.ident.snake}.py`, opModule(op)), ...(ref ? [ref] : [])];
  },
});

/** The spec's reference, copied so the package is self-contained (it may move to a site-packages). */
function referenceFile(project: ProjectIR, op: OpIR): GeneratedFile | undefined {
  if (!op.kernels.reference) return undefined;
  const file = `${PKG}/_reference/${op.ident.snake}.py`;
  const text = readFileSync(path.join(project.root, op.kernels.reference), 'utf8').replace(/\r\n/g, '\n');
  return {
    path: file,
    op: op.name,
    content: `${headerLine(file, op.kernels.reference)}\n${text.endsWith('\n') ? text : `${text}\n`}`,
  };
}

/** The dtype and attribute tables of the Python runtime, from the one type table. */
function typesModule(): string {
  const dict = (name: string, doc: string, rows: string[]): string[] => [
    '',
    `#: ${doc}`,
    `${name} = {`,
    ...rows.map((r) => `    ${r},`),
    '}',
  ];
  return lines(
    '"""Dtype and attribute-type tables (generator/model/type-table.ts)."""',
    '',
    'import torch',
    '',
    ...dict(
      'TORCH_DTYPES',
      'spec dtype -> torch dtype',
      DTYPES.map((d) => `${pyString(d)}: ${DTYPE_INFO[d].torch.py}`),
    ),
    ...dict(
      'ONNX_ELEM',
      'spec dtype -> ONNX TensorProto.DataType',
      DTYPES.map((d) => `${pyString(d)}: ${DTYPE_INFO[d].onnx.value}`),
    ),
    ...dict(
      'ONNX_TYPE_STR',
      'spec dtype -> ONNX type string',
      DTYPES.map((d) => `${pyString(d)}: ${pyString(DTYPE_INFO[d].onnx.typeStr)}`),
    ),
    // The TorchScript exporter names scalar types as ATen does (at::kFloat -> "Float").
    ...dict(
      'DTYPE_OF_JIT',
      'TorchScript scalarType() name -> torch dtype',
      DTYPES.map((d) => `${pyString(DTYPE_INFO[d].torch.aten.replace(/^at::k/, ''))}: ${DTYPE_INFO[d].torch.py}`),
    ),
    ...dict(
      'LEGACY_SUFFIX',
      "attribute type -> the legacy exporter's g.op() suffix",
      ATTR_TYPES.map((t) => `${pyString(t)}: ${pyString(ATTR_INFO[t].legacySuffix)}`),
    ),
    ...dict(
      'ATTR_ONNX',
      'attribute type -> (ONNX AttributeProto type name, number)',
      ATTR_TYPES.map((t) => `${pyString(t)}: (${pyString(ATTR_INFO[t].onnx.name)}, ${ATTR_INFO[t].onnx.value})`),
    ),
  );
}

function packageInit(project: ProjectIR): string {
  const ops = project.ops;
  // One opset version per domain: the highest among its ops (ONNX imports a domain once).
  const opsets = new Map<string, number>();
  for (const op of ops) opsets.set(op.domain, Math.max(opsets.get(op.domain) ?? 0, op.version));
  const names = ops.map((op) => op.ident.snake);
  return lines(
    '"""The project\'s custom ops for PyTorch, with ONNX export through both PyTorch exporters.',
    '',
    'Each op runs the compiled extension (out/torch, loaded automatically when built, or with',
    "load_library(path)) and falls back to the spec's PyTorch reference. Exporting needs neither:",
    '',
    '    torch.onnx.export(model, args, f, **opforge_ops.export_options())  # the exporter torch defaults to',
    '    torch.onnx.export(model, args, f, dynamo=False, custom_opsets=opforge_ops.custom_opsets())',
    '    torch.onnx.export(model, args, dynamo=True, custom_translation_table=opforge_ops.custom_translation_table())',
    '"""',
    '',
    'from __future__ import annotations',
    '',
    'from typing import Any, Callable, Dict, Optional',
    '',
    'from . import _runtime',
    'from ._runtime import TORCH_NAMESPACE, entry_path, extension_path, load_library',
    ...ops.map((op) => `from .ops import ${op.ident.snake} as _${op.ident.snake}`),
    ...ops.map((op) => `from .ops.${op.ident.snake} import ${op.ident.snake}`),
    '',
    '#: OpInfo of every op, by ONNX op type.',
    'OPS: Dict[str, _runtime.OpInfo] = {',
    ...ops.map((op) => `    ${pyString(op.name)}: _${op.ident.snake}._OP,`),
    '}',
    '',
    '_TRANSLATIONS: Dict[str, Callable[..., Any]] = {',
    ...ops.map((op) => `    ${pyString(op.name)}: _${op.ident.snake}.onnx_translation,`),
    '}',
    '',
    '',
    'def custom_opsets() -> Dict[str, int]:',
    '    """The custom_opsets argument of torch.onnx.export(dynamo=False): each domain\'s opset version."""',
    `    return {${[...opsets]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([d, v]) => `${pyString(d)}: ${v}`)
      .join(', ')}}`,
    '',
    '',
    'def register_onnx_schemas() -> None:',
    '    """Registers every op\'s onnx.defs.OpSchema (with its shape inference) once; idempotent.',
    '    Needs onnx >= 1.16; onnx.checker, ONNX shape inference and onnxscript then know the ops."""',
    '    for op in OPS.values():',
    '        if not _runtime.register_onnx_schema(op):',
    '            raise RuntimeError("opforge_ops.register_onnx_schemas needs onnx >= 1.16 (onnx.defs.register_schema)")',
    '',
    '',
    'def custom_translation_table() -> Dict[Any, Callable[..., Any]]:',
    '    """The custom_translation_table argument of torch.onnx.export(dynamo=True) (torch >= 2.5)."""',
    '    if not _runtime.HAS_CUSTOM_OP:',
    '        raise RuntimeError("the dynamo exporter needs torch >= 2.4 (torch.library.custom_op); use dynamo=False")',
    '    register_onnx_schemas()',
    '    return {_runtime.torch_op(OPS[name]).default: fn for name, fn in _TRANSLATIONS.items()}',
    '',
    '',
    'def export_options(dynamo: Optional[bool] = None) -> Dict[str, Any]:',
    '    """Keyword arguments for torch.onnx.export that write each op as one node, on any torch:',
    '    torch.onnx.export(model, args, f, **opforge_ops.export_options()). The dynamo exporter where it',
    "    is torch's default (torch >= 2.9, with onnxscript), else the TorchScript one; dynamo=True or",
    '    False chooses."""',
    '    return _runtime.export_options(custom_opsets(), custom_translation_table, dynamo)',
    '',
    '',
    'def infer_shapes(model: Any) -> Any:',
    '    """ONNX shape inference that also covers opforge nodes (from the specs), on any onnx version."""',
    '    return _runtime.infer_model_shapes({(op.domain, op.name): op for op in OPS.values()}, model)',
    '',
    '',
    'def backend(op_name: str) -> str:',
    '    """What runs an op: \'extension\', \'reference\' or \'none\'."""',
    '    return _runtime.backend(OPS[op_name])',
    '',
    '',
    '_runtime.try_load_default_library()',
    '',
    '__all__ = [',
    '    "OPS", "TORCH_NAMESPACE", "backend", "custom_opsets", "custom_translation_table", "entry_path", "export_options",',
    '    "extension_path",',
    '    "infer_shapes", "load_library", "register_onnx_schemas",',
    ...names.map((n) => `    ${pyString(n)},`),
    ']',
  );
}
