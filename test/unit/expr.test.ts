// The dim-expression parser: precedence, functions, indexing, and located syntax errors; list
// attributes read by expressions (elements and len), resolved, evaluated and printed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExprSyntaxError, evalExpr, parseExpr, type RawExpr } from '../../generator/model/expr.js';
import type { Expr } from '../../generator/model/ir.js';
import { cppExpr } from '../../generator/emit/lang/cpp-expr.js';
import { pyExpr, pyExprData } from '../../generator/emit/lang/py-expr.js';
import { pyLit } from '../../generator/emit/lang/python.js';
import { trtDimExpr } from '../../generator/emit/trt/op-header.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';
import { opModule } from '../../generator/emit/torch-python/op-module.js';
import { emitJaxModule } from '../../generator/emit/jax/python.js';
import { emitPaddleModule } from '../../generator/emit/paddle/python.js';

/** Resolves a raw tree the simple way (inputs a, b of rank 4; attribute k) to evaluate it. */
function resolve(r: RawExpr): Expr {
  switch (r.kind) {
    case 'int':
      return { kind: 'int', value: r.value };
    case 'name':
      return { kind: 'attr', name: r.name };
    case 'index':
      return {
        kind: 'dim',
        input: r.name,
        inputIndex: r.name === 'a' ? 0 : 1,
        axis: r.index < 0 ? 4 + r.index : r.index,
      };
    case 'binary':
      return { kind: 'binary', op: r.op as '+', left: resolve(r.left), right: resolve(r.right) };
    case 'call':
      return { kind: 'call', fn: r.fn as 'max', args: [resolve(r.args[0]!), resolve(r.args[1]!)] };
    default:
      throw new Error(`${r.kind}: integer expressions only here`);
  }
}
const dims = [
  [2, 3, 10, 7],
  [1, 1, 5, 9],
];
const ev = (s: string, k = 4): number => evalExpr(resolve(parseExpr(s)), dims, { k });

test('precedence and associativity', () => {
  assert.is(ev('1 + 2 * 3'), 7);
  assert.is(ev('(1 + 2) * 3'), 9);
  assert.is(ev('10 - 3 - 2'), 5);
  assert.is(ev('20 // 3 // 2'), 3);
  assert.is(ev('2 * 7 // 4'), 3);
  assert.is(ev('-a[0] + 5'), 3);
  assert.is(ev('-(2 * 3)'), -6);
});

test('floor division rounds toward negative infinity, ceil_div up', () => {
  assert.is(ev('-7 // 2'), -4);
  assert.is(ev('7 // 2'), 3);
  assert.is(ev('ceil_div(7, 2)'), 4);
  assert.is(ev('ceil_div(a[2], k)'), 3);
});

test('dims, negative indices, attributes and functions', () => {
  assert.is(ev('a[0] * a[1]'), 6);
  assert.is(ev('b[-1]'), 9);
  assert.is(ev('max(a[2], b[3]) - min(a[2], b[3])'), 1);
  assert.is(ev('(a[2] + 2 * k - 3) // 2 + 1'), 8);
  assert.is(ev('  a[ -2 ]  '.replace('[ -2 ]', '[-2]')), 10);
});

function syntaxError(src: string): ExprSyntaxError {
  try {
    parseExpr(src);
  } catch (e) {
    if (e instanceof ExprSyntaxError) return e;
    throw e;
  }
  throw new Error(`parsed: ${src}`);
}

test('syntax errors name the column', () => {
  assert.is(syntaxError('a[0] +').pos, 6);
  assert.match(syntaxError('a[0] +').message, /end of the expression/);
  assert.is(syntaxError('a[0] / 2').pos, 5);
  assert.match(syntaxError('a[0] / 2').message, /use '\/\/'/);
  assert.is(syntaxError('a[x][y]').pos, 5);
  assert.is(syntaxError('(1 + 2').pos, 6);
  assert.is(syntaxError('1 2').pos, 2);
  assert.is(syntaxError('a[0] $ 1').pos, 5);
  assert.match(syntaxError('99999999999').message, /out of range/);
});

test('hostile input is bounded', () => {
  assert.match(syntaxError(`${'('.repeat(200)}1${')'.repeat(200)}`).message, /nested deeper/);
  assert.match(syntaxError(`${'1+'.repeat(600)}1`).message, /longer than/);
});

test('list attributes: a[i] parses as an index, len(a) as a call', () => {
  assert.equal(parseExpr('stride[-1]'), { kind: 'index', name: 'stride', index: -1, pos: 0, indexPos: 7 });
  assert.equal(parseExpr('len(pads)'), {
    kind: 'call',
    fn: 'len',
    args: [{ kind: 'name', name: 'pads', pos: 4 }],
    pos: 0,
  });
});

const LIST_SPEC = `name: Pool
version: 1
inputs: [{ name: x, dtype: float32, rank: 2 }]
outputs:
  - { name: y, dtype: float32, shape: ['(x[1] - kernel[0]) // stride[-1] + 1', len(pads), pads[0] * len(scales)] }
attributes:
  - { name: stride, type: ints, length: 2, default: [1, 2] }
  - { name: kernel, type: ints, length: 1, default: [3] }
  - { name: pads, type: ints, default: [0, 0, 0] }
  - { name: scales, type: floats, default: [0.5] }
kernels: { cpu: kernels/k.cpp }
tests:
  - inputs: { x: [2, 9] }
    attributes: { stride: [2, 3], pads: [4] }
`;

test('list attributes resolve: elements (negative from the end) and lengths, evaluated on values', () => {
  const op = loadSpecs({ 'pool.yaml': LIST_SPEC.replace('pads[0]', 'stride[0]') }).ops[0]!;
  assert.equal(
    op.attributes.map((a) => a.length),
    [[2], [1], undefined, undefined],
  );
  const shape = op.outputs[0]!.shape;
  assert.ok(shape.kind === 'dims');
  assert.equal(shape.dims[0], {
    kind: 'binary',
    op: '+',
    left: {
      kind: 'binary',
      op: '//',
      left: {
        kind: 'binary',
        op: '-',
        left: { kind: 'dim', input: 'x', inputIndex: 0, axis: 1 },
        right: { kind: 'elem', name: 'kernel', index: 0 },
      },
      right: { kind: 'elem', name: 'stride', index: 1 },
    },
    right: { kind: 'int', value: 1 },
  });
  const attrs = { stride: [2, 3], kernel: [3], pads: [4, 4, 4, 4], scales: [0.5, 1.5] };
  assert.equal(
    shape.dims.map((e) => evalExpr(e, [[2, 9]], attrs)),
    [3, 4, 4],
  );
});

test('list attributes print in every backend language (C++, Python, _dims.py data, TensorRT)', () => {
  const elem: Expr = { kind: 'elem', name: 'stride', index: 1 };
  const len: Expr = { kind: 'len', name: 'pads' };
  const e: Expr = { kind: 'binary', op: '+', left: elem, right: len };
  const cpp = cppExpr(e, {
    dim: () => 'd',
    rank: () => 'r',
    count: () => 'c',
    attr: (n) => `A(${n})`,
    attrList: (n) => `attrs.${n}`,
    okVar: 'ok',
  });
  assert.is(cpp, '(static_cast<int64_t>(attrs.stride[1]) + static_cast<int64_t>(attrs.pads.size()))');
  assert.is(
    pyExpr(e, { dim: () => 'd', rank: () => 'r', count: () => 'c', attr: (n) => `attrs[${JSON.stringify(n)}]` }),
    '(attrs["stride"][1] + len(attrs["pads"]))',
  );
  assert.is(pyLit(pyExprData(e)), "('+', ('elem', 'stride', 1), ('len', 'pads'))");
  assert.is(
    trtDimExpr(e),
    '::opforge::trt::dimOp(b, nvinfer1::DimensionOperation::kSUM, ::opforge::trt::constant(b, attrs.stride[1]), ::opforge::trt::constant(b, static_cast<int64_t>(attrs.pads.size())))',
  );
});

test('Python op modules state a declared length (and only then) and read elements through their shapes', () => {
  const op = loadSpecs({ 'pool.yaml': LIST_SPEC.replace('pads[0]', 'stride[0]') }).ops[0]!;
  const torch = opModule(op);
  assert.match(torch, /_rt\.Attr\('stride', 'ints', False, \[1, 2\], None, None, None, '', length=2\)/);
  assert.match(torch, /_rt\.Attr\('pads', 'ints', False, \[0, 0, 0\], None, None, None, ''\)/);
  assert.match(torch, /attrs\["stride"\]\[1\]/);
  assert.match(torch, /len\(attrs\["pads"\]\)/);
  for (const py of [emitJaxModule(op), emitPaddleModule(op)]) {
    assert.match(py, /_rt\.Attr\('kernel', 'ints', False, \[3\], None, None, None, length=1\)/);
    assert.match(py, /\('elem', 'stride', 1\)/);
    assert.match(py, /\('len', 'scales'\)/);
  }
});

test('list attribute errors name line:col, the key and the problem', () => {
  const where = (text: string) =>
    specErrors({ 'pool.yaml': text }).map(
      (d) => `${d.line}:${d.col} ${d.path} ${d.message}${d.hint ? ` | ${d.hint}` : ''}`,
    );
  assert.equal(where(LIST_SPEC.replace('stride[-1]', 'stride[-3]')), [
    '5:70 outputs[0].shape[0] index -3 is outside attribute `stride` of length 2 in `(x[1] - kernel[0]) // stride[-3] + 1`',
    '5:91 outputs[0].shape[2] list attribute `pads` has no declared length, so its elements cannot be indexed in `pads[0] * len(scales)` | add `length: N` to attribute `pads`',
  ]);
  assert.equal(where(LIST_SPEC.replace('default: [1, 2] }', 'default: [1] }')).slice(0, 1), [
    '7:53 attributes[0].default default must have exactly 2 elements (its length), got 1',
  ]);
});

const LET_SPEC = `name: Conv
version: 1
inputs:
  - { name: x, dtype: float32, rank: 4 }
  - { name: w, dtype: float32, rank: 4, shape: ['?', x[1], kh, kw] }
outputs:
  - { name: y, dtype: float32, shape: [x[0], w[0], out_h, out_w] }
attributes:
  - { name: stride, type: ints, length: 2, default: [1, 1] }
let:
  kh: 3
  kw: kh + 2
  out_h: (x[2] - w[2]) // stride[0] + 1
  out_w: (x[3] - w[3]) // stride[-1] + 1
workspace: out_h * out_w * 4
kernels: { cpu: kernels/k.cpp }
`;

test('lets are inlined where they are read: shapes, input constraints, the workspace and later lets', () => {
  const op = loadSpecs({ 'conv.yaml': LET_SPEC }).ops[0]!;
  const dims = [
    [2, 3, 10, 12],
    [8, 3, 3, 5],
  ];
  const attrs = { stride: [2, 3] };
  const shape = op.outputs[0]!.shape;
  assert.ok(shape.kind === 'dims');
  assert.equal(shape.source, ['x[0]', 'w[0]', 'out_h', 'out_w']);
  assert.equal(
    shape.dims.map((e) => evalExpr(e, dims, attrs)),
    [2, 8, 4, 3],
  );
  const w = op.inputs[1]!.constraint;
  assert.ok(w.kind === 'dims');
  assert.equal(w.dims[3], {
    kind: 'expr',
    expr: { kind: 'binary', op: '+', left: { kind: 'int', value: 3 }, right: { kind: 'int', value: 2 } },
    source: 'kw',
  });
  assert.is(evalExpr(op.workspace, dims, attrs), 48);
});

test('let errors: a later or its own let, an input not readable where it is read; names at the key', () => {
  const where = (text: string) =>
    specErrors({ 'conv.yaml': text }).map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`);
  assert.equal(where(LET_SPEC.replace('kh: 3', 'kh: kw - 2')), [
    '11:7 let.kh let `kw` is declared later; a let reads only the lets declared before it in `kw - 2`',
  ]);
  assert.equal(where(LET_SPEC.replace('kh: 3', 'kh: kh')), ['11:7 let.kh let `kh` cannot read itself in `kh`']);
  // w's dims may read only x (earlier); a let reading w is fine in outputs, not in w's own shape.
  assert.equal(where(LET_SPEC.replace('kh: 3', 'kh: w[0] // 3')), [
    "5:60 inputs[1].shape[2] let `kh` cannot be read here: `w` is not an input that can be read here (an input that is always present; an input's own constraint also reads earlier optional ones, not itself), nor a list attribute in `w[0] // 3` in `kh`",
    "5:64 inputs[1].shape[3] let `kw` cannot be read here: let `kh` cannot be read here: `w` is not an input that can be read here (an input that is always present; an input's own constraint also reads earlier optional ones, not itself), nor a list attribute in `w[0] // 3` in `kh + 2` in `kw`",
  ]);
  assert.equal(where(LET_SPEC.replace('  kh: 3', '  stride: 3\n  kh: 3')), [
    '11:3 let.stride let name `stride` is already used by attribute `stride`',
  ]);
});

test('lets that read lets twice cannot grow an expression past what printers walk, and compile once each', () => {
  const doubling = Array.from({ length: 40 }, (_, k) => `  d${k + 1}: d${k} + d${k}`).join('\n');
  const text = LET_SPEC.replace('  kh: 3', `  d0: x[0]\n${doubling}\n  kh: 3`).replace('out_h * out_w * 4', 'd40');
  const t0 = performance.now();
  const errors = specErrors({ 'conv.yaml': text }).map((d) => `${d.path} ${d.message}`);
  assert.ok(performance.now() - t0 < 5000, 'bounded time');
  // Reported once, at the first let past the limit; the lets and the workspace reading it are not repeated.
  assert.equal(errors, ['let.d10 the expression has more than 2000 operations once its lets are inlined in `d9 + d9`']);
  const small = loadSpecs({
    'conv.yaml': text.replace('workspace: d40', 'workspace: d9').replace(/ {2}d(1[0-9]|[2-4][0-9]): .*\n/g, ''),
  }).ops[0]!;
  assert.is(
    evalExpr(
      small.workspace,
      [
        [3, 3, 10, 12],
        [8, 3, 3, 5],
      ],
      { stride: [1, 1] },
    ),
    3 * 512,
  );
});

test.run();
