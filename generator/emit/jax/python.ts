// The opforge_jax package (out/jax/opforge_jax): per op a module with the op's facts (an OpInfo),
// its result-shape function compiled from the spec's shape expressions, and the public function
// (keyword attributes with the spec's types and defaults); the package __init__ imports them all.
// Behaviour (checks, ffi_call, custom_vjp, vmap, export, loading) lives in the static _runtime.py.

import type { OpIR, ProjectNames } from '../../model/ir.js';
import { allowedDtypes } from '../../model/ir-helpers.js';
import { commentText } from '../lang/literals.js';
import { pyAttr, pyChecks, pyInput, pyOutputShape } from '../lang/py-shared.js';
import {
  argDocs,
  attrDict,
  outputDtypeArgs,
  dataDimsKeyword,
  presentKeyword,
  opImports,
  opParams,
  pyGradient,
  returnType,
  typingImport,
  typeVarOf,
} from '../lang/py-op.js';
import {
  pyAssign,
  pyCall,
  pyCode,
  pyDef,
  pyDict,
  pyImports,
  pyList,
  pyLit,
  pyModule,
  pyTuple,
} from '../lang/python.js';
import { fillTemplate } from '../lang/template.js';
import { jaxLibraryEnv, jaxSymbols, jaxTarget, jaxVmapMethod } from './names.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

const rows = { multiline: true } as const;

function opInfo(op: OpIR): string {
  const sym = jaxSymbols(op);
  const info = pyCall(
    '_rt.OpInfo',
    [],
    {
      name: op.name,
      domain: op.domain,
      snake: op.ident.snake,
      target: jaxTarget(op),
      symbols: [sym.cpu, sym.cuda],
      inputs: pyTuple(
        op.inputs.map((i) => pyInput(i, typeVarOf(i))),
        rows,
      ),
      outputs: pyTuple(
        op.outputs.map((o) => {
          const dt = outputDtypeArgs(op, o);
          return pyCall('_rt.Output', [o.name, allowedDtypes(o.type), dt.from, o.differentiable], {
            shape: pyOutputShape(o),
            ...dt.keywords,
            ...presentKeyword(o),
            ...dataDimsKeyword(o),
          });
        }),
        rows,
      ),
      attributes: pyTuple(
        op.attributes.map((a) => pyAttr(a)),
        rows,
      ),
      vmap_method: jaxVmapMethod(op),
      has_cuda: hasCudaKernel(op),
      backward: op.backward && pyTuple(op.backward.map(pyGradient), rows),
      spec: op.source.relFile,
      ...pyChecks(op),
      ...(op.dataDims.length ? { data_dims: op.dataDims.map((d) => d.name) } : {}),
    },
    rows,
  );
  return pyAssign('_OP', info);
}

function publicFn(op: OpIR): string {
  const grad = op.backward
    ? `jax.grad (the spec's backward: ${op.backward.map((g) => g.op).join(', ')})`
    : 'jax.grad: no, the spec declares no backward (differentiating raises)';
  const call = pyCall('_rt.call', [pyCode('_OP'), op.inputs.map((i) => pyCode(i.name)), pyCode(attrDict(op))]);
  return pyDef({
    name: op.ident.snake,
    params: opParams(op, 'jax.Array'),
    returns: returnType(op, 'jax.Array'),
    doc: [
      `${op.name}${op.description ? `: ${commentText(op.description)}` : '.'}`,
      '',
      `Works under jax.jit, jax.vmap (vmap_method ${jaxVmapMethod(op)}) and ${grad}.`,
      '',
      ...argDocs(op),
    ],
    body: [`return ${pyLit(call)}`],
  });
}

export function emitJaxModule(op: OpIR): string {
  return pyModule({
    doc: [
      `${op.name} for JAX: the custom-call target ${commentText(jaxTarget(op))} (XLA FFI), from ${commentText(op.source.relFile)}.`,
    ],
    imports: [
      { module: '__future__', names: ['annotations'] },
      typingImport(op, ['Optional', 'Sequence', 'Tuple']),
      { module: 'jax' },
      { module: '..', names: ['_runtime as _rt'] },
    ],
    blocks: [opInfo(op), publicFn(op)],
  });
}

/** What the package exports besides the ops (from _runtime.py). */
const RUNTIME = ['JaxlibMismatchError', 'build_info', 'export_disabled_checks', 'library_path', 'load_library'];

/** The package (generator/static/python/opforge_jax/__init__.py.tmpl): every op's function and OPS. */
export function emitJaxInit(ops: readonly OpIR[], names: ProjectNames): string {
  return fillTemplate('generator/static/python/opforge_jax/__init__.py.tmpl', {
    package: names.jaxPackage,
    libraryEnv: jaxLibraryEnv(names),
    imports: pyImports([
      { module: '__future__', names: ['annotations'] },
      { module: 'typing', names: ['Dict'] },
      { module: '.', names: ['_runtime'] },
      { module: '._runtime', names: RUNTIME },
      ...opImports(ops),
    ]),
    ops: pyLit(
      pyDict(
        ops.map((op) => [op.name, pyCode(`_${op.ident.snake}._OP`)]),
        rows,
      ),
    ),
    all: pyLit(pyList(['OPS', ...RUNTIME, ...ops.map((op) => op.ident.snake)].sort(), rows)),
  });
}
