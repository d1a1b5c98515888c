// The Python backend: out/python/opforge_ops, importable with PYTHONPATH=out/python and no build
// step. Each op is a function that runs the compiled extension (out/torch) when it is built and
// the spec's PyTorch reference otherwise, and that exports to ONNX as one custom node with both
// PyTorch exporters (legacy TorchScript and dynamo).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpIR, ProjectIR } from '../../model/ir.js';
import type { DType } from '../../model/type-table.js';
import {
  headerLine,
  opFile,
  projectFile,
  staticFile,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { type PyCode, type PyValue, pyAll, pyAssign, pyCall, pyCode, pyDict, pyLit, pyModule } from '../lang/python.js';
import { ATTR_INFO, ATTR_TYPES, DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import { opModule } from './op-module.js';

const PKG = 'python/opforge_ops';

/** The shared runtime, one module per concern (generator/static/python/opforge_ops); _runtime.py is what
 * the generated modules import. */
const RUNTIME_MODULES = [
  '_api.py',
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
  const table = (name: string, doc: string, rows: [string, PyValue][]): string =>
    pyAssign(name, pyDict(rows, { multiline: true }), { doc });
  const torchDtype = (d: DType): PyCode => pyCode(DTYPE_INFO[d].torch.py);
  return pyModule({
    doc: ['Dtype and attribute-type tables (generator/model/type-table.ts).'],
    imports: [{ module: 'torch' }],
    blocks: [
      [
        table(
          'TORCH_DTYPES',
          'spec dtype -> torch dtype',
          DTYPES.map((d) => [d, torchDtype(d)]),
        ),
        table(
          'ONNX_ELEM',
          'spec dtype -> ONNX TensorProto.DataType',
          DTYPES.map((d) => [d, DTYPE_INFO[d].onnx.value]),
        ),
        table(
          'ONNX_TYPE_STR',
          'spec dtype -> ONNX type string',
          DTYPES.map((d) => [d, DTYPE_INFO[d].onnx.typeStr]),
        ),
        // The TorchScript exporter names scalar types as ATen does (at::kFloat -> "Float").
        table(
          'DTYPE_OF_JIT',
          'TorchScript scalarType() name -> torch dtype',
          DTYPES.map((d) => [DTYPE_INFO[d].torch.aten.replace(/^at::k/, ''), torchDtype(d)]),
        ),
        table(
          'LEGACY_SUFFIX',
          "attribute type -> the legacy exporter's g.op() suffix",
          ATTR_TYPES.map((t) => [t, ATTR_INFO[t].legacySuffix]),
        ),
        table(
          'ATTR_ONNX',
          'attribute type -> (ONNX AttributeProto type name, number)',
          ATTR_TYPES.map((t) => [t, [ATTR_INFO[t].onnx.name, ATTR_INFO[t].onnx.value]]),
        ),
      ].join('\n\n'),
    ],
  });
}

/** What the package docstring says: how to run and export the ops. */
const PACKAGE_DOC = [
  "The project's custom ops for PyTorch, with ONNX export through both PyTorch exporters.",
  '',
  'Each op runs the compiled extension (out/torch, loaded automatically when built, or with',
  "load_library(path)) and falls back to the spec's PyTorch reference. Exporting needs neither:",
  '',
  '    torch.onnx.export(model, args, f, **opforge_ops.export_options())  # the exporter torch defaults to',
  '    torch.onnx.export(model, args, f, dynamo=False, custom_opsets=opforge_ops.custom_opsets())',
  '    torch.onnx.export(model, args, dynamo=True, custom_translation_table=opforge_ops.custom_translation_table())',
  '',
];

/** What the package exports besides the ops (from _api.py and _runtime.py). */
const API = [
  'backend',
  'custom_opsets',
  'custom_translation_table',
  'export_options',
  'infer_shapes',
  'register_onnx_schemas',
];
const RUNTIME = ['TORCH_NAMESPACE', 'entry_path', 'extension_path', 'load_library'];

/** The package: every op's function, and the registry (OPS, _TRANSLATIONS) _api.py reads. */
function packageInit(project: ProjectIR): string {
  const ops = project.ops;
  const byName = (attr: string): PyCode =>
    pyDict(
      ops.map((op) => [op.name, pyCode(`_${op.ident.snake}.${attr}`)]),
      { multiline: true },
    );
  return pyModule({
    doc: PACKAGE_DOC,
    imports: [
      { module: '__future__', names: ['annotations'] },
      { module: 'typing', names: ['Any', 'Callable', 'Dict'] },
      { module: '.', names: ['_runtime'] },
      { module: '._api', names: API },
      { module: '._runtime', names: RUNTIME },
      ...ops.map((op) => ({ module: '.ops', names: [`${op.ident.snake} as _${op.ident.snake}`] })),
      ...ops.map((op) => ({ module: `.ops.${op.ident.snake}`, names: [op.ident.snake] })),
    ],
    blocks: [
      [
        pyAssign('OPS', byName('_OP'), {
          doc: 'OpInfo of every op, by ONNX op type.',
          type: 'Dict[str, _runtime.OpInfo]',
        }),
        pyAssign('_TRANSLATIONS', byName('onnx_translation'), { type: 'Dict[str, Callable[..., Any]]' }),
        `${pyLit(pyCall('_runtime.try_load_default_library', []))}`,
        pyAll(['OPS', ...API, ...RUNTIME, ...ops.map((op) => op.ident.snake)]),
      ].join('\n\n'),
    ],
  });
}
