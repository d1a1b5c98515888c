// The Python backend: out/python/opforge_ops, importable with PYTHONPATH=out/python and no build
// step. Each op is a function that runs the compiled extension (out/torch) when it is built and
// the spec's PyTorch reference otherwise, and that exports to ONNX as one custom node with both
// PyTorch exporters (legacy TorchScript and dynamo).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { OpIR, ProjectIR, ProjectNames } from '../../model/ir.js';
import { torchEntryModule, torchLibraryEnv, torchLibraryFile } from '../../model/ir-helpers.js';
import type { DType } from '../../model/type-table.js';
import {
  headerLine,
  opFile,
  projectFile,
  staticFiles,
  defineEmitter,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { opImports } from '../lang/py-op.js';
import { sharedPythonFiles } from '../lang/py-shared.js';
import { type PyCode, type PyValue, pyCode, pyDict, pyImports, pyList, pyLit } from '../lang/python.js';
import { fillTemplate } from '../lang/template.js';
import { ATTR_INFO, ATTR_TYPES, DTYPES, DTYPE_INFO } from '../../model/type-table.js';
import { opModule } from './op-module.js';

const STATIC = 'generator/static/python/opforge_ops';

/** The package's folder in out/: python/<torchPackage> (opforge_ops unless the project names its own). */
export const pythonPackageDir = (names: ProjectNames): string => `python/${names.torchPackage}`;

export const pythonEmitter: Emitter = defineEmitter({
  name: 'python',
  project(project: ProjectIR): GeneratedFile[] {
    const dir = pythonPackageDir(project.names);
    return [
      // The shared runtime, one module per concern; _runtime.py is what the generated modules import.
      ...staticFiles(dir, STATIC, '.py').filter((f) => !(path.basename(f.path, '.py') in NAMED_MODULES)),
      ...namedModules(dir, project.names),
      ...sharedPythonFiles(dir),
      projectFile(`${dir}/_types.py`, typesModule(), 'generator/model/type-table.ts'),
      projectFile(`${dir}/__init__.py`, packageInit(project)),
      projectFile(
        `${dir}/ops/__init__.py`,
        `"""One module per op; import the functions from ${project.names.torchPackage} itself."""`,
      ),
      projectFile(
        `${dir}/_reference/__init__.py`,
        '"""The specs\' PyTorch references (kernels.reference), copied from the project."""',
      ),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    const ref = referenceFile(project, op);
    return [
      opFile(op, `${pythonPackageDir(project.names)}/ops/${op.ident.snake}.py`, opModule(op)),
      ...(ref ? [ref] : []),
    ];
  },
});

/**
 * The runtime modules that name the package, the torch namespace or the library (templates):
 * every other module imports relatively, so the package works under any name.
 */
function namedModules(dir: string, names: ProjectNames): GeneratedFile[] {
  return Object.entries(NAMED_MODULES).map(([m, slots]) => {
    // Valid Python as they stand (the slots are inside strings and comments): still `.py` files.
    const source = `${STATIC}/${m}.py`;
    return projectFile(`${dir}/${m}.py`, fillTemplate(source, slots(names)), source);
  });
}

const packageSlot = (names: ProjectNames) => ({ package: names.torchPackage });
const namespaceSlot = (names: ProjectNames) => ({ torchNamespace: names.torchNamespace });
/** The modules of generator/static/python/opforge_ops with slots, and their values. */
const NAMED_MODULES: Readonly<Record<string, (names: ProjectNames) => Record<string, string>>> = {
  _api: packageSlot,
  _autograd: packageSlot,
  _library: (names) => ({
    ...packageSlot(names),
    entry: torchEntryModule(names),
    library: torchLibraryFile(names),
    libraryEnv: torchLibraryEnv(names),
  }),
  _register: namespaceSlot,
  _runtime: packageSlot,
  _spec: namespaceSlot,
};

/** The spec's reference, copied so the package is self-contained (it may move to a site-packages). */
function referenceFile(project: ProjectIR, op: OpIR): GeneratedFile | undefined {
  if (!op.kernels.reference) return undefined;
  const file = `${pythonPackageDir(project.names)}/_reference/${op.ident.snake}.py`;
  const text = readFileSync(path.join(project.root, op.kernels.reference), 'utf8').replace(/\r\n/g, '\n');
  return {
    path: file,
    op: op.name,
    content: `${headerLine(file, op.kernels.reference)}\n${text.endsWith('\n') ? text : `${text}\n`}`,
  };
}

/** The dtype and attribute tables of the Python runtime (_types.py.tmpl), from the one type table. */
function typesModule(): string {
  const table = <T extends string>(keys: readonly T[], row: (k: T) => [string, PyValue]): string =>
    pyLit(pyDict(keys.map(row), { multiline: true }));
  const torchDtype = (d: DType): PyCode => pyCode(DTYPE_INFO[d].torch.py);
  return fillTemplate('generator/static/python/opforge_ops/_types.py.tmpl', {
    TORCH_DTYPES: table(DTYPES, (d) => [d, torchDtype(d)]),
    ONNX_ELEM: table(DTYPES, (d) => [d, DTYPE_INFO[d].onnx.value]),
    ONNX_TYPE_STR: table(DTYPES, (d) => [d, DTYPE_INFO[d].onnx.typeStr]),
    // The TorchScript exporter names scalar types as ATen does (at::kFloat -> "Float").
    DTYPE_OF_JIT: table(DTYPES, (d) => [DTYPE_INFO[d].torch.aten.replace(/^at::k/, ''), torchDtype(d)]),
    LEGACY_SUFFIX: table(ATTR_TYPES, (t) => [t, ATTR_INFO[t].legacySuffix]),
    ATTR_ONNX: table(ATTR_TYPES, (t) => [t, [ATTR_INFO[t].onnx.name, ATTR_INFO[t].onnx.value]]),
  });
}

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

/** The package (generator/static/python/opforge_ops/__init__.py.tmpl): every op's function, and the registry (OPS, _TRANSLATIONS) _api.py reads. */
function packageInit(project: ProjectIR): string {
  const ops = project.ops;
  const byName = (attr: string): string =>
    pyLit(
      pyDict(
        ops.map((op) => [op.name, pyCode(`_${op.ident.snake}.${attr}`)]),
        { multiline: true },
      ),
    );
  return fillTemplate('generator/static/python/opforge_ops/__init__.py.tmpl', {
    package: project.names.torchPackage,
    imports: pyImports([
      { module: '__future__', names: ['annotations'] },
      { module: 'typing', names: ['Any', 'Callable', 'Dict'] },
      { module: '.', names: ['_runtime'] },
      { module: '._api', names: API },
      { module: '._runtime', names: RUNTIME },
      ...opImports(ops),
    ]),
    ops: byName('_OP'),
    translations: byName('onnx_translation'),
    all: pyLit(
      pyList([...['OPS', ...API, ...RUNTIME], ...ops.map((op) => op.ident.snake)].sort(), { multiline: true }),
    ),
  });
}
