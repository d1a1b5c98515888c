// The opforge_paddle package (out/paddle/opforge_paddle): per op a module with the op's facts (an
// OpInfo) and bind(raw), the op's checked function over Paddle's raw one (inputs, then attributes
// with the spec's defaults, positional in the spec's order or by keyword); the package __init__
// (load, wrap) binds them. The checks live in the static _runtime.py.

import type { OpIR, ProjectNames } from '../../model/ir.js';
import { allowedDtypes, paddleOpType } from '../../model/ir-helpers.js';
import { DTYPES, DTYPE_INFO, ATTR_INFO } from '../../model/type-table.js';
import { commentText } from '../lang/literals.js';
import {
  argDocs,
  attrDict,
  outputDtypeArgs,
  presentKeyword,
  pyAttrValue,
  returnType,
  typeVarOf,
  typingImport,
} from '../lang/py-op.js';
import { pyAttr, pyChecks, pyInput, pyOutputShape } from '../lang/py-shared.js';
import {
  type PyImport,
  type PyParam,
  pyAssign,
  pyCall,
  pyCode,
  pyDef,
  pyDict,
  pyImports,
  pyLit,
  pyModule,
  pyParams,
  pyTuple,
} from '../lang/python.js';
import { fillTemplate } from '../lang/template.js';
import { paddleLibrary } from './names.js';

const rows = { multiline: true } as const;

/** bind()'s parameter, which the checked function closes over: no spec name has double underscores. */
const RAW = 'raw__';

function opInfo(op: OpIR): string {
  const info = pyCall(
    '_rt.OpInfo',
    [],
    {
      name: op.name,
      domain: op.domain,
      snake: op.ident.snake,
      type: paddleOpType(op),
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
          });
        }),
        rows,
      ),
      attributes: pyTuple(
        op.attributes.map((a) => pyAttr(a)),
        rows,
      ),
      has_backward: op.backward !== undefined,
      spec: op.source.relFile,
      ...pyChecks(op),
    },
    rows,
  );
  return pyAssign('_OP', info);
}

/**
 * Inputs then attributes, all positional (Paddle's raw functions take them so; existing positional
 * calls keep working): optional inputs default to None, attributes to the spec's default; a
 * required one after a defaulted one defaults to MISSING, which the checks report as required.
 */
function params(op: OpIR): string {
  let defaulted = false;
  const missing = { default: pyCode('_rt.MISSING') };
  const inputs = op.inputs.map((i): PyParam => {
    if (i.optional) defaulted = true;
    const type = i.variadic ? 'Sequence[Any]' : 'Any';
    return { name: i.name, type, ...(i.optional ? { default: null } : defaulted ? missing : {}) };
  });
  const attrs = op.attributes.map((a): PyParam => {
    if (a.default !== undefined) defaulted = true;
    return {
      name: a.name,
      type: ATTR_INFO[a.type].py,
      ...(a.default !== undefined ? { default: pyAttrValue(a.type, a.default, true) } : defaulted ? missing : {}),
    };
  });
  return pyParams([...inputs, ...attrs]);
}

function binder(op: OpIR): string {
  const type = paddleOpType(op);
  const call = pyCall('_rt.call', [
    pyCode('_OP'),
    pyCode(RAW),
    pyTuple(op.inputs.map((i) => pyCode(i.name))),
    pyCode(attrDict(op)),
  ]);
  const grad = op.backward
    ? `paddle.grad and static gradients (PD_BUILD_GRAD_OP: ${op.backward.map((g) => g.op).join(', ')})`
    : 'no gradient (the spec declares no backward)';
  const fn = pyDef({
    name: type,
    params: params(op),
    returns: returnType(op, 'Any'),
    doc: [
      `${op.name}${op.description ? `: ${commentText(op.description)}` : '.'}`,
      '',
      `Dygraph, to_static and static graphs; ${grad}. Every argument is checked before Paddle sees it.`,
      '',
      ...argDocs(op),
    ],
    body: [`return ${pyLit(call)}`],
  });
  return pyDef({
    name: 'bind',
    params: `${RAW}: Callable[..., Any]`,
    returns: 'Callable[..., Any]',
    doc: [`The checked ${type} over Paddle's raw function of the op (every attribute positional, no defaults).`],
    body: [
      '',
      fn,
      '',
      "# Python's own argument errors then name the op type, not bind.<locals>.",
      `${type}.__qualname__ = ${pyLit(type)}`,
      `return ${type}`,
    ],
  });
}

export function emitPaddleModule(op: OpIR): string {
  return pyModule({
    doc: [
      `${op.name} for Paddle: the custom op ${commentText(paddleOpType(op))} (PD_BUILD_OP), from ${commentText(op.source.relFile)}.`,
    ],
    imports: [
      { module: '__future__', names: ['annotations'] },
      typingImport(op, ['Any', 'Callable', 'Optional', 'Sequence', 'Tuple']),
      { module: '..', names: ['_runtime as _rt'] },
    ],
    blocks: [opInfo(op), binder(op)],
  });
}

/** _runtime.py: generator/static/python/opforge_paddle/_runtime.py.tmpl with the type table's element sizes. */
export function emitPaddleRuntime(names: ProjectNames): string {
  return fillTemplate('generator/static/python/opforge_paddle/_runtime.py.tmpl', {
    package: names.paddlePackage,
    itemsizes: pyLit(pyDict(DTYPES.map((d) => [d, DTYPE_INFO[d].bytes]))),
  });
}

/** The package (generator/static/python/opforge_paddle/__init__.py.tmpl): OPS, load and wrap. */
export function emitPaddleInit(ops: readonly OpIR[], names: ProjectNames): string {
  const imports: PyImport[] = [
    { module: '__future__', names: ['annotations'] },
    { module: 'os' },
    { module: 'shutil' },
    { module: 'tempfile' },
    { module: 'types' },
    { module: 'typing', names: ['Any', 'Callable', 'Dict', 'Optional', 'Set'] },
    { module: 'warnings' },
    { module: '.', names: ['_runtime'] },
    ...ops.map((op) => ({ module: '.ops', names: [`${op.ident.snake} as _${op.ident.snake}`] })),
  ];
  return fillTemplate('generator/static/python/opforge_paddle/__init__.py.tmpl', {
    package: names.paddlePackage,
    library: paddleLibrary(names),
    imports: pyImports(imports),
    ops: pyLit(
      pyDict(
        ops.map((op) => [op.name, pyCode(`_${op.ident.snake}._OP`)]),
        rows,
      ),
    ),
    binders: pyLit(
      pyDict(
        ops.map((op) => [op.name, pyCode(`_${op.ident.snake}.bind`)]),
        rows,
      ),
    ),
  });
}
