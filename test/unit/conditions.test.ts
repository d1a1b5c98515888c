// The dim-expression language's conditions, modulo and rounded floats, and the spec's `checks:`:
// parsing (precedence, located syntax errors), typing (a condition is no number, a float is
// rounded), exact evaluation of floor/ceil of float32 attributes, and the same values and
// messages from the TypeScript evaluator and _dims.py.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pyExprData } from '../../generator/emit/lang/py-expr.js';
import { pyList, pyLit, pyTuple } from '../../generator/emit/lang/python.js';
import { evalExpr, formatExpr, parseExpr, roundScaled } from '../../generator/model/expr.js';
import type { Expr, OpIR } from '../../generator/model/ir.js';
import { exprAttrValues } from '../../generator/model/ir-helpers.js';
import { python } from '../helpers/python.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const syntaxError = (src: string): string => {
  try {
    parseExpr(src);
  } catch (e) {
    return `${(e as { pos: number }).pos}: ${(e as Error).message}`;
  }
  return 'parsed';
};

test('precedence: if/else lowest, then or, and, not, comparisons, arithmetic', () => {
  const f = (s: string): string =>
    JSON.stringify(parseExpr(s), (k, v: unknown) => (k === 'pos' || k === 'indexPos' ? undefined : v));
  // `a if c else b if d else e` nests to the right, as in Python.
  const nested = parseExpr('1 if k > 0 else 2 if k < 0 else 3');
  assert.is(nested.kind, 'cond');
  assert.is(nested.kind === 'cond' && nested.no.kind, 'cond');
  // not binds looser than a comparison, and tighter than and; and tighter than or.
  assert.is(f('not a < b and c or d'), f('((not (a < b)) and c) or d'));
  assert.is(f('x[0] % 3 + 1 == k * 2'), f('((x[0] % 3) + 1) == (k * 2)'));
});

test('syntax errors point at the offending character and say what to write', () => {
  assert.is(syntaxError('a < b < c'), '6: comparisons do not chain: write `a < b and b < c`');
  assert.is(syntaxError('a = b'), "2: '=' is not an operator: compare with '=='");
  assert.is(syntaxError('a && b'), "2: '&' is not an operator: use 'and'");
  assert.is(syntaxError('!a'), "0: '!' is not an operator: use 'not' or '!='");
  assert.match(syntaxError('x[0] + ?'), /^7: '\?' \(an unknown dim\) is allowed only as a whole input dim/);
  assert.is(syntaxError("mode == 'max"), "8: unterminated string: a closing ' is missing");
  assert.is(syntaxError('1 if k'), "6: expected 'else' but found the end of the expression");
  assert.is(syntaxError('x[0] + if'), "7: expected a number, a name, x[i] or '(' but found the keyword 'if'");
});

test('floor and ceil of a float32 attribute are exact, not rounded through a double', () => {
  // float32(0.3) = 0.300000011920928955078125 and float32(0.1) = 0.100000001490116119384765625.
  assert.is(roundScaled('floor', 10, 0.3), 3);
  assert.is(roundScaled('ceil', 10, 0.3), 4);
  assert.is(roundScaled('floor', 3, 0.1), 0);
  assert.is(roundScaled('ceil', 3, 0.1), 1);
  assert.is(roundScaled('floor', -7, 0.5), -4);
  assert.is(roundScaled('ceil', -7, 0.5), -3);
  assert.is(roundScaled('floor', 2 ** 40, 1e-30), 0);
  assert.is(roundScaled('ceil', 2 ** 40, 1e-30), 1);
  assert.is(roundScaled('floor', 6, 1.5), 9);
  assert.is(roundScaled('ceil', 0, 1e30), 0);
  // The exact product where a double loses it: 2^40 + 1 times 1.5 needs 42 bits plus a half.
  assert.is(roundScaled('floor', 2 ** 40 + 1, 1.5), 1649267441665);
});

const SPEC = `name: Cond
version: 1
inputs:
  - { name: x, dtype: float32, rank: 3 }
  - { name: w, dtype: float32, rank: 2 }
  - { name: o, dtype: float32, rank: 1, optional: true }
outputs:
  - name: y
    dtype: float32
    shape:
      - floor(x[2] * scale)
      - ceil(x[1] * x[0] * scales[1])
      - x[0] if flag else w[1] % 3
      - "x[1] // groups if mode == 'max' and groups > 0 else 1"
      - "1 if not flag or x[0] >= w[0] else 0"
attributes:
  - { name: scale, type: float, default: 1.5 }
  - { name: scales, type: floats, length: 2, default: [0.5, 0.3] }
  - { name: flag, type: bool, default: true }
  - { name: mode, type: string, enum: [avg, max], default: avg }
  - { name: groups, type: int, default: 1, min: 1 }
checks:
  - x[1] % groups == 0
  - { check: 'w[0] == 1 or w[0] == x[0]', message: "w's rows broadcast over x's first dim" }
workspace: "8 * x[0] if mode == 'max' else 0"
kernels: { cpu: kernels/k.cpp }
`;

test('a spec with conditions, rounded floats and checks resolves to typed trees', () => {
  const op = loadSpecs({ 'cond.yaml': SPEC }).ops[0]!;
  const y = op.outputs[0]!.shape;
  assert.ok(y.kind === 'dims');
  assert.equal(y.dims[0], {
    kind: 'round',
    fn: 'floor',
    scale: { kind: 'dim', input: 'x', inputIndex: 0, axis: 2 },
    factor: { name: 'scale' },
  });
  assert.equal((y.dims[1] as Extract<Expr, { kind: 'round' }>).factor, { name: 'scales', index: 1 });
  assert.is(
    formatExpr(y.dims[3]!),
    "(floordiv if ((mode == 'max') and (groups > 0)) else 1)".replace('floordiv', '(x[1] // groups)'),
  );
  assert.equal(
    op.checks.map((c) => [c.source, c.message, c.reads.map((r) => formatExpr(r))]),
    [
      ['x[1] % groups == 0', undefined, ['x[1]', 'groups']],
      ['w[0] == 1 or w[0] == x[0]', "w's rows broadcast over x's first dim", ['w[0]', 'x[0]']],
    ],
  );
  const dims = [
    [4, 6, 7],
    [4, 5],
  ];
  const attrs = exprAttrValues(op, { mode: 'max', groups: 3, scales: [0.5, 0.3] });
  assert.equal(
    y.dims.map((e) => evalExpr(e, dims, attrs)),
    // floor(7 * 1.5), ceil(24 * float32(0.3)) (7.2000003 -> 8), x[0], 6 // 3, x[0] >= w[0]
    [10, 8, 4, 2, 1],
  );
  assert.is(evalExpr(op.workspace, dims, attrs), 32);
  assert.is(evalExpr(op.workspace, dims, { ...attrs, mode: 'avg' }), 0);
  assert.equal(
    op.checks.map((c) => evalExpr(c.expr, dims, attrs)),
    [1, 1],
  );
  assert.equal(
    op.checks.map((c) =>
      evalExpr(
        c.expr,
        [
          [4, 7, 7],
          [2, 5],
        ],
        attrs,
      ),
    ),
    [0, 0],
  );
});

test('typing errors name line:col and key, and say how to write it', () => {
  const where = (text: string): string[] =>
    specErrors({ 'cond.yaml': text }).map(
      (d) => `${d.line}:${d.col} ${d.path} ${d.message}${d.hint ? ` | ${d.hint}` : ''}`,
    );
  const withShape = (dim: string): string => SPEC.replace('      - floor(x[2] * scale)\n', `      - ${dim}\n`);
  assert.equal(where(withShape('x[2] * scale')), [
    '11:9 outputs[0].shape[0] expected an integer, got a float product in `x[2] * scale` | round a float attribute: floor(x[2] * scale) or ceil(x[2] * scale)',
  ]);
  assert.equal(where(withShape('floor(scale * scales[0])')), [
    '11:21 outputs[0].shape[0] a float attribute may be multiplied only by an integer expression (one float per floor() or ceil()) in `floor(scale * scales[0])`',
  ]);
  assert.equal(where(withShape('x[0] + (flag)')), [
    '11:17 outputs[0].shape[0] expected an integer, got a condition in `x[0] + (flag)` | a condition gives no number: write `a if cond else b`',
  ]);
  assert.equal(where(withShape('"1 if mode == \'mean\' else 2"')), [
    "11:23 outputs[0].shape[0] 'mean' is not a value of attribute `mode` (one of 'avg', 'max') in `1 if mode == 'mean' else 2` | did you mean `max`?",
  ]);
  assert.equal(where(withShape('"1 if mode < \'max\' else 2"')), [
    "11:20 outputs[0].shape[0] a string attribute is compared with == or != only, not < in `1 if mode < 'max' else 2`",
  ]);
  assert.equal(where(SPEC.replace('  - x[1] % groups == 0\n', '  - x[1] % groups\n')), [
    '23:5 checks[0] expected a condition, got an integer in `x[1] % groups` | compare it: `x[0] % 2 == 0`, `k > 0`',
  ]);
  // A check may read an optional input: it applies while the input is present.
  const opt = loadSpecs({ 'cond.yaml': SPEC.replace('  - x[1] % groups == 0\n', '  - o[0] == 1 or o[0] == x[0]\n') })
    .ops[0]!;
  assert.equal(opt.checks[0]!.optional, [opt.inputs.findIndex((i) => i.name === 'o')]);
  assert.equal(opt.checks[1]!.optional, []);
  // `?` in an output shape: a clear word instead of a character complaint.
  assert.match(
    where(withShape("'?'")).join('\n'),
    /outputs\[0\]\.shape\[0\] `\?` \(any dim\) is for input constraints; an output's dims must be computable/,
  );
});

test('an index that is a name, in a flow list, is a located expression error, not a YAML one', () => {
  const spec = `name: Top
version: 1
inputs: [{ name: input, dtype: float32, rank: 2 }]
outputs:
  - { name: y, dtype: float32, shape: [input[axis], k] }
attributes:
  - { name: k, type: int, default: 2 }
  - { name: axis, type: int, default: 0 }
kernels: { cpu: kernels/k.cpp }
`;
  assert.equal(
    specErrors({ 'top.yaml': spec }).map((d) => `${d.line}:${d.col} ${d.path} ${d.message}`),
    ["5:46 outputs[0].shape[0] expected an integer dim index but found 'axis' in `input[axis]`"],
  );
});

test('_dims.py evaluates conditions and rounded floats as the spec model does, and words failed checks as the op core', () => {
  const op: OpIR = loadSpecs({ 'cond.yaml': SPEC }).ops[0]!;
  const y = op.outputs[0]!.shape;
  assert.ok(y.kind === 'dims');
  const exprs = [...y.dims, op.workspace, ...op.checks.map((c) => c.expr)];
  const grid: { dims: number[][]; attrs: Record<string, unknown> }[] = [];
  for (const scale of [1.5, 0.3, 0.1, 1e-30, 3e38])
    for (const [mode, flag, groups] of [
      ['max', true, 3],
      ['avg', false, 1],
      ['max', false, 2],
    ] as const)
      for (const dims of [
        [
          [4, 6, 7],
          [4, 5],
        ],
        [
          [1, 9, 0],
          [2, 3],
        ],
        [
          [3, 0, 11],
          [1, 1],
        ],
      ])
        grid.push({ dims, attrs: { scale, scales: [0.5, scale], flag, mode, groups } });
  const want = grid.map((g) =>
    exprs.map((e) => {
      const v = evalExpr(e, g.dims, g.attrs as Record<string, number | boolean | string | number[]>);
      return e.kind === 'cmp' || e.kind === 'logic' ? v === 1 : v;
    }),
  );
  const data = pyList(exprs.map(pyExprData));
  const got = JSON.parse(
    python(`import json, sys
sys.path.insert(0, "generator/static/python/shared")
sys.modules["_attrs"] = type(sys)("_attrs")
sys.modules["_attrs"].MAX_RANK = 8
sys.modules["_attrs"].MAX_MEMBERS = 32
sys.modules["_attrs"]._compiling = lambda: False
import importlib.util
spec = importlib.util.spec_from_file_location("_dims", "generator/static/python/shared/_dims.py", submodule_search_locations=None)
src = open("generator/static/python/shared/_dims.py").read().replace("from ._attrs import", "from _attrs import")
_dims = type(sys)("_dims"); exec(compile(src, "_dims.py", "exec"), _dims.__dict__)
exprs = ${pyLit(data)}
grid = json.loads(${pyLit(JSON.stringify(grid))})
print(json.dumps([[_dims.evaluate(e, g["dims"], g["attrs"]) for e in exprs] for g in grid]))`),
  ) as unknown[][];
  // JSON carries the huge floor(x * 3e38) as a double on both sides.
  assert.equal(got, want);

  // A failed check: the op core's words (op_core.h checkFailed), values as it shows them.
  const message = python(`import sys
sys.modules["_attrs"] = type(sys)("_attrs")
sys.modules["_attrs"].MAX_RANK = 8
sys.modules["_attrs"].MAX_MEMBERS = 32
sys.modules["_attrs"]._compiling = lambda: False
src = open("generator/static/python/shared/_dims.py").read().replace("from ._attrs import", "from _attrs import")
_dims = type(sys)("_dims"); exec(compile(src, "_dims.py", "exec"), _dims.__dict__)
from types import SimpleNamespace
op = SimpleNamespace(name="Cond", inputs=(), checks=${pyLit(
    pyTuple(
      op.checks.map((c) =>
        pyTuple([
          pyExprData(c.expr),
          c.source,
          c.message ?? null,
          pyTuple(c.reads.map((r) => pyTuple([formatExpr(r), r.kind === 'dim' ? pyExprData(r) : formatExpr(r)]))),
        ]),
      ),
    ),
  )})
for shapes, attrs in (([[4, 7, 7], [4, 5]], {"groups": 3}), ([[4, 6, 7], [2, 5]], {"groups": 3})):
    try:
        _dims.check_conditions(op, shapes, attrs)
    except ValueError as e:
        print(e)`);
  assert.is(
    message.trim(),
    [
      "Cond: check 'x[1] % groups == 0' failed (x[1] = 7, groups = 3)",
      "Cond: check 'w[0] == 1 or w[0] == x[0]' failed (w[0] = 2, x[0] = 4): w's rows broadcast over x's first dim",
    ].join('\n'),
  );
});

test.run();
