// The shared Python checks every binding runs before a framework sees a call (generator/static/
// python/shared: _dims.py, _attrs.py), through a real python3 with no framework: each dim
// expression of the fixture and of 46 spec-space specs, printed as the data the op modules state
// (pyExprData), evaluates in _dims.py to what the spec model's evalExpr gives, on random dims
// (division by zero included); and the argument checks give the limits and messages promised.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pyExprData } from '../../generator/emit/lang/py-expr.js';
import { sharedPythonFiles } from '../../generator/emit/lang/py-shared.js';
import { pyLit, pyList, pyTuple } from '../../generator/emit/lang/python.js';
import { evalExpr } from '../../generator/model/expr.js';
import type { Expr, ProjectIR } from '../../generator/model/ir.js';
import { loadProject } from '../../generator/model/project.js';
import { BROAD_SEEDS, writeCorpus } from '../specspace/corpus.js';
import { fixtureProject } from './helpers/fixture-specs.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-pydims-'));
const pkg = path.join(dir, 'pkg');
mkdirSync(pkg);
writeFileSync(path.join(pkg, '__init__.py'), '');
for (const f of sharedPythonFiles('pkg')) writeFileSync(path.join(dir, f.path), f.content);

function python(src: string): string {
  const r = spawnSync('python3', ['-'], { cwd: dir, input: src, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  return r.stdout;
}

/** A seeded generator (mulberry32): the same cases every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type ExprAttr = {
  name: string;
  type: string;
  length: readonly number[] | undefined;
  enum: (string | number)[] | undefined;
};

function exprsOf(project: ProjectIR): { op: string; expr: Expr; inputs: number; attrs: ExprAttr[] }[] {
  const out = [];
  for (const op of project.ops) {
    const ints = op.attributes.map((a) => ({ name: a.name, type: a.type, length: a.length, enum: a.enum }));
    const exprs: Expr[] = [
      ...op.outputs.flatMap((o) => (o.shape.kind === 'dims' ? o.shape.dims : [])),
      ...op.inputs.flatMap((i) =>
        i.constraint.kind === 'dims' ? i.constraint.dims.flatMap((d) => (d.kind === 'expr' ? [d.expr] : [])) : [],
      ),
      ...op.checks.map((c) => c.expr),
    ];
    for (const expr of exprs) out.push({ op: op.name, expr, inputs: op.inputs.length, attrs: ints });
  }
  return out;
}

test('every dim expression evaluates in _dims.py as in the spec model (fixture + 46 spec-space specs, random dims)', () => {
  const corpus = writeCorpus(path.join(dir, 'corpus'), BROAD_SEEDS);
  const exprs = [...exprsOf(fixtureProject().project), ...exprsOf(loadProject({ opsDir: corpus.opsDir }))];
  assert.ok(exprs.length > 60, `${exprs.length} expressions`);
  const rand = random(7);
  const cases: { expr: Expr; dims: number[][]; attrs: Record<string, number | boolean | string | number[]> }[] = [];
  for (const e of exprs)
    for (let k = 0; k < 8; k++) {
      // Small dims (zeros included, so divisions by zero happen) and attributes of either sign.
      const dims = Array.from({ length: e.inputs }, () => Array.from({ length: 8 }, () => Math.floor(rand() * 7)));
      const value = () => Math.floor(rand() * 13) - 4;
      // List attributes: their declared length (what the attribute checks enforce), else 0 to 4 elements.
      // Floats with and without an exact binary form; bools; a string attribute's enum values.
      const float = () => [0.3, 1.5, -2.5, 0.1, 2, 1e-30][Math.floor(rand() * 6)]!;
      const attrValue = (a: ExprAttr): number | boolean | string | number[] => {
        if (a.type === 'ints' || a.type === 'floats')
          return Array.from(
            { length: a.length?.[Math.floor(rand() * a.length.length)] ?? Math.floor(rand() * 5) },
            a.type === 'ints' ? value : float,
          );
        if (a.type === 'bool') return rand() < 0.5;
        if (a.type === 'float') return float();
        if (a.type === 'string') return String(a.enum?.[Math.floor(rand() * a.enum.length)] ?? 'plain');
        return value();
      };
      const attrs = Object.fromEntries(e.attrs.map((a) => [a.name, attrValue(a)]));
      cases.push({ expr: e.expr, dims, attrs });
    }
  const want = cases.map((c) => {
    try {
      return evalExpr(c.expr, c.dims, c.attrs);
    } catch {
      return 'div0';
    }
  });
  const data = pyList(
    cases.map((c) => pyTuple([pyExprData(c.expr), c.dims.map((d) => pyTuple(d)), JSON.stringify(c.attrs)])),
  );
  const got = JSON.parse(
    python(`import json
from pkg import _dims
out = []
for e, shapes, attrs in ${pyLit(data)}:
    try:
        v = _dims.evaluate(e, shapes, json.loads(attrs))
        out.append(int(v) if isinstance(v, bool) else v)
    except _dims._DivByZero:
        out.append("div0")
print(json.dumps(out))`),
  ) as (number | string)[];
  assert.ok(
    want.includes('div0') && want.some((w) => typeof w === 'number' && w < 0),
    'the cases reach division by zero and negative values',
  );
  want.forEach((w, i) => assert.is(got[i], w, `case ${i}`));
});

test('attribute checks: int32 and float32 limits, numpy-free coercion, None, NaN, strings and lists; messages name op and attribute', () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._attrs import check_attrs
A = lambda name, type, **k: N(name=name, type=type, required=k.get("required", False), default=k.get("default"), enum=k.get("enum"), min=k.get("min"), max=k.get("max"),
          min_exclusive=k.get("min_exclusive", False), max_exclusive=k.get("max_exclusive", False))
op = N(name="Op", attributes=(A("n", "int", min=1, max=1024, default=1), A("a", "float", default=0.0), A("b", "bool", default=False),
       A("s", "string", default=""), A("v", "ints", default=[]), A("f", "floats", default=[]), A("r", "float", min=0.0, default=0.0)))
for given in [dict(n=5), dict(n=2**31), dict(n=-2**31), dict(n=True), dict(n=5.0), dict(a=10**400), dict(a=1e39), dict(a=-3.4e38),
              dict(a=float("inf")), dict(r=float("nan")), dict(b=None), dict(b=1), dict(s="x" * 4097), dict(s="a\\0b"), dict(v=[1, 2**31]),
              dict(v=(1, 2)), dict(f=[1, 2.5]), dict(v=[0] * 1025), dict(q=1)]:
    try:
        print(repr(check_attrs(op, given)))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)`);
  const lines = out.trim().split('\n');
  const expected = [
    "{'n': 5, 'a': 0.0, 'b': False, 's': '', 'v': [], 'f': [], 'r': 0.0}",
    "ValueError Op: attribute 'n' must be within int32 [-2147483647, 2147483647], got int 2147483648",
    "ValueError Op: attribute 'n' must be within int32 [-2147483647, 2147483647], got int -2147483648",
    "TypeError Op: attribute 'n' must be an int, got bool True",
    "TypeError Op: attribute 'n' must be an int, got float 5.0",
    /^ValueError Op: attribute 'a' must be within float32 \(\|x\| <= 3\.402823e\+38\), got int 1000.*\(401 characters\)$/,
    "ValueError Op: attribute 'a' must be within float32 (|x| <= 3.402823e+38), got float 1e+39",
    "{'n': 1, 'a': -3.4e+38, 'b': False, 's': '', 'v': [], 'f': [], 'r': 0.0}",
    "ValueError Op: attribute 'a' must be finite, got inf",
    "ValueError Op: attribute 'r' must be finite, got nan",
    "TypeError Op: attribute 'b' must be a bool, got NoneType None",
    "TypeError Op: attribute 'b' must be a bool, got int 1",
    "ValueError Op: attribute 's' must be at most 4096 characters, got 4097",
    "ValueError Op: attribute 's' must not contain NUL characters, got str 'a\\x00b'",
    "ValueError Op: attribute 'v' must be within int32 [-2147483647, 2147483647], got list [1, 2147483648]",
    "{'n': 1, 'a': 0.0, 'b': False, 's': '', 'v': [1, 2], 'f': [], 'r': 0.0}",
    "{'n': 1, 'a': 0.0, 'b': False, 's': '', 'v': [], 'f': [1.0, 2.5], 'r': 0.0}",
    "ValueError Op: attribute 'v' must have at most 1024 elements, got 1025",
    "TypeError Op: unknown attribute 'q'; attributes are ['a', 'b', 'f', 'n', 'r', 's', 'v']",
  ];
  assert.is(lines.length, expected.length, out);
  expected.forEach((e, i) => (typeof e === 'string' ? assert.is(lines[i], e) : assert.match(lines[i]!, e)));
});

test('attribute checks: an exclusive bound refuses the bound itself and takes the values inside (ints, floats, lists)', () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._attrs import check_attrs
A = lambda name, type, default, **k: N(name=name, type=type, required=False, default=default, enum=None, length=None,
          min=k.get("min"), max=k.get("max"), min_exclusive=k.get("min_exclusive", False), max_exclusive=k.get("max_exclusive", False))
op = N(name="Op", attributes=(A("eps", "float", 1e-5, min=0.0, min_exclusive=True), A("m", "float", 0.1, min=0.0, max=1.0, min_exclusive=True, max_exclusive=True),
       A("g", "int", 1, min=0, min_exclusive=True, max=8), A("r", "floats", [0.5], max=1.0, max_exclusive=True)))
for given in [dict(eps=0.0), dict(eps=1e-30), dict(m=1.0), dict(m=0.999), dict(m=0.0), dict(g=0), dict(g=8), dict(r=[0.25, 1.0]), dict(r=[0.25, 0.75])]:
    try:
        attrs = check_attrs(op, given)
        print(repr({k: attrs[k] for k in given}))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)`);
  assert.equal(out.trim().split('\n'), [
    "ValueError Op: attribute 'eps' must be > 0.0, got 0.0",
    "{'eps': 1e-30}",
    "ValueError Op: attribute 'm' must be < 1.0, got 1.0",
    "{'m': 0.999}",
    "ValueError Op: attribute 'm' must be > 0.0, got 0.0",
    "ValueError Op: attribute 'g' must be > 0, got 0",
    "{'g': 8}",
    "ValueError Op: attribute 'r' must be < 1.0, got 1.0",
    "{'r': [0.25, 0.75]}",
  ]);
});

test('attribute checks: a declared list length is exact, or one of several (default, given values); elements and len() evaluate', () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._attrs import check_attrs
from pkg._dims import evaluate
A = lambda name, type, **k: N(name=name, type=type, required=False, default=k.get("default"), enum=None, min=None, max=None, length=k.get("length"),
          min_exclusive=False, max_exclusive=False)
op = N(name="Op", attributes=(A("w", "ints", length=2, default=[1, 2]), A("f", "floats", length=0, default=[]),
                               A("p", "ints", length=(2, 4), default=[7, 8])))
for given in [dict(), dict(w=(4, 5)), dict(w=[1, 2, 3]), dict(w=[]), dict(f=[1.0]), dict(p=[1, 2, 3, 4]), dict(p=[1, 2, 3])]:
    try:
        attrs = check_attrs(op, given)
        print(repr(attrs), evaluate(("+", ("elem", "w", 1), ("len", "f")), [], attrs), evaluate(("elem", "p", -1), [], attrs))
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)`);
  assert.equal(out.trim().split('\n'), [
    "{'w': [1, 2], 'f': [], 'p': [7, 8]} 2 8",
    "{'w': [4, 5], 'f': [], 'p': [7, 8]} 5 8",
    "ValueError Op: attribute 'w' must have exactly 2 elements, got 3",
    "ValueError Op: attribute 'w' must have exactly 2 elements, got 0",
    "ValueError Op: attribute 'f' must have exactly 0 elements, got 1",
    "{'w': [1, 2], 'f': [], 'p': [1, 2, 3, 4]} 2 4",
    "ValueError Op: attribute 'p' must have 2 or 4 elements, got 3",
  ]);
});

test('shape checks: constraints, shaped-like, unknown (-1) dims skipped, output dims beyond int64 and byte sizes refused', () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._dims import check_shapes, output_dims, check_output_sizes
I = lambda name, rank, shape=None, src=None: N(name=name, rank=rank, shape=shape, shape_source=src, variadic=False)
op = N(name="Op", inputs=(I("x", 2, (None, ("*", ("attr", "k"), 2)), ("?", "k * 2")), I("y", None, 0)),
       outputs=(N(name="o", shape=(("dim", 0, 0), ("*", ("dim", 0, 1), ("attr", "k")))),))
def run(f):
    try:
        print(f())
    except ValueError as e:
        print("ValueError", e)
run(lambda: check_shapes(op, [(2, 6), (2, 6)], {"k": 3}))
run(lambda: check_shapes(op, [(2, 5), (2, 5)], {"k": 3}))
run(lambda: check_shapes(op, [(2, -1), (2, 7)], {"k": 3}))
run(lambda: check_shapes(op, [(2, 6), (2, 7)], {"k": 3}))
run(lambda: check_shapes(op, [(2, 6), (1,) * 9], {"k": 3}))
run(lambda: check_shapes(op, [(2, -2), None], {"k": 3}))
run(lambda: output_dims(op, [(2, 6), None], {"k": 3}))
run(lambda: output_dims(op, [(2, -1), None], {"k": 3}))
run(lambda: output_dims(op, [(2, 2**62), None], {"k": 3}))
run(lambda: output_dims(op, [(2, 6), None], {"k": -3}))
run(lambda: check_output_sizes(op, [(0, 2**62)], [2]))
run(lambda: check_output_sizes(op, [(0, 2**61)], [2]))`);
  assert.equal(out.trim().split('\n'), [
    'None',
    "ValueError Op: dim 1 of input 'x' must equal k * 2 (= 6), got 5",
    'None',
    "ValueError Op: input 'y' must have the shape of 'x' [2, 6], got [2, 7]",
    "ValueError Op: input 'y' has rank 9, at most 8 is supported",
    "ValueError Op: input 'x' has a negative dim: [2, -2]",
    '[(2, 18)]',
    '[(2, None)]',
    "ValueError Op: output 'o' would have dims [2, 13835058055282163712] for input dims [[2, 4611686018427387904], None] (beyond int64)",
    "ValueError Op: output 'o' would have dims [2, -18] for input dims [[2, 6], None] (a negative dim)",
    "ValueError Op: output 'o' would have dims [0, 4611686018427387904] of 2-byte elements (9223372036854775808 bytes, its zero dims counted as 1), more than int64 can index",
    'None',
  ]);
});

test('a variadic input: each member checked as the input and named by its place; count() and outputs read every member', () => {
  // WeightedSum's facts: xs (input 1, variadic) is shaped like bias; counts has count(xs) dims; a
  // check reads count(xs). The call's shapes are bias, then the members.
  const out = python(`from types import SimpleNamespace as N
from pkg._dims import check_shapes, output_dims
I = lambda name, rank, shape=None, variadic=False: N(name=name, rank=rank, shape=shape, shape_source=None, variadic=variadic)
op = N(name="Op", inputs=(I("bias", None), I("xs", None, 0, True)),
       outputs=(N(name="y", shape=0), N(name="counts", shape=(("count", 1),))),
       checks=((("==", ("len", "w"), ("count", 1)), "len(w) == count(xs)", None, (("w", "w"), ("count(xs)", ("count", 1)))),))
def run(f):
    try:
        print(f())
    except ValueError as e:
        print("ValueError", e)
run(lambda: check_shapes(op, [(3, 4), (3, 4), (3, 4), (3, 4)], {"w": [1, 2, 3]}))
run(lambda: output_dims(op, [(3, 4), (3, 4), (3, 4), (3, 4)], {"w": [1, 2, 3]}))
run(lambda: output_dims(op, [(3, 4), (3, 4)], {"w": [1]}))
run(lambda: check_shapes(op, [(3, 4), (3, 4), (3, 4), (3, 5)], {"w": [1, 2, 3]}))
run(lambda: check_shapes(op, [(3, 4), (3, 4), (3, -2)], {"w": [1, 2]}))
run(lambda: check_shapes(op, [(3, 4), (3, 4), (3, 4)], {"w": [1, 2, 3]}))`);
  assert.equal(out.trim().split('\n'), [
    'None',
    '[(3, 4), (3,)]',
    '[(3, 4), (1,)]',
    "ValueError Op: input 'xs' (member 2) must have the shape of 'bias' [3, 4], got [3, 5]",
    "ValueError Op: input 'xs' (member 1) has a negative dim: [3, -2]",
    "ValueError Op: check 'len(w) == count(xs)' failed (w = [1, 2, 3], count(xs) = 2)",
  ]);
});

test('shape checks: a constraint reads a later input, whose own checks (negative dims) come first', () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._dims import check_shapes
I = lambda name, rank, shape=None, src=None: N(name=name, rank=rank, shape=shape, shape_source=src, variadic=False)
op = N(name="Op", inputs=(I("offset", 2, (None, ("*", ("dim", 1, 2), 2)), ("?", "weight[2] * 2")), I("weight", 3)))
for shapes in [[(1, 6), (4, 4, 3)], [(1, 5), (4, 4, 3)], [(1, 6), (4, 4, -2)], [(1, 6), (4, 4, -1)]]:
    try:
        print(check_shapes(op, shapes, {}))
    except ValueError as e:
        print("ValueError", e)`);
  assert.equal(out.trim().split('\n'), [
    'None',
    "ValueError Op: dim 1 of input 'offset' must equal weight[2] * 2 (= 6), got 5",
    "ValueError Op: input 'weight' has a negative dim: [4, 4, -2]",
    'None',
  ]);
});

test('ranks: an int, None (any) or the tuple of allowed ranks, and how messages give them', () => {
  const out = python(`from pkg._dims import rank_ok, rank_text
print([rank_ok(4, 4), rank_ok(4, 5), rank_ok(None, 7), rank_ok((4, 5), 5), rank_ok((4, 5), 3)])
print(rank_text(4), "|", rank_text((4, 5)), "|", rank_text((1, 2, 3)))`);
  assert.equal(out.trim().split('\n'), ['[True, False, True, True, False]', '4 | 4 or 5 | 1, 2 or 3']);
});

test("errors the framework raises while running a call get the op's name, in front, raised from the original", () => {
  const out = python(`from types import SimpleNamespace as N
from pkg._dims import named_error
op = N(name="Op")
class NoMessage(Exception):
    def __init__(self):
        super().__init__("fixed")
for e in (MemoryError("can't allocate memory: you tried to allocate 8 bytes"), RuntimeError("Op: already named"), NoMessage()):
    n = named_error(op, e)
    print(type(n).__name__, "|", n, "|", n is e, "|", n.__cause__ is e)`);
  assert.equal(out.trim().split('\n'), [
    "MemoryError | Op: can't allocate memory: you tried to allocate 8 bytes | False | True",
    'RuntimeError | Op: already named | True | False',
    'NoMessage | fixed | True | False',
  ]);
});

test('messages give a torch.compile symbolic value by its type: dynamo cannot trace its repr', () => {
  const out = python(`from pkg._attrs import show
class SymInt:
    def __repr__(self):
        raise RuntimeError("repr_impl not implemented")
print(show(SymInt()), "|", show([1, SymInt()]), "|", show(7))
import sys, types
sys.modules["torch"] = types.SimpleNamespace(compiler=types.SimpleNamespace(is_compiling=lambda: True))
print(show(7))`);
  assert.equal(out.trim().split('\n'), [
    'SymInt (not shown while torch.compile traces) | list (not shown while torch.compile traces) | int 7',
    // Under dynamo a symbolic int is shown as a plain int: while it traces, no value is shown.
    'int (not shown while torch.compile traces)',
  ]);
});

test('while torch.compile traces, shape messages give dims as ?: dynamo cannot turn a symbolic int into text', () => {
  const out = python(`from types import SimpleNamespace as N
import sys, types
sys.modules["torch"] = types.SimpleNamespace(compiler=types.SimpleNamespace(is_compiling=lambda: True))
from pkg._dims import check_shapes
I = lambda name, rank, shape=None, src=None: N(name=name, rank=rank, shape=shape, shape_source=src, variadic=False)
op = N(name="Op", inputs=(I("a", 2), I("b", 2, 0)))
try:
    check_shapes(op, [(2, 3), (2, 4)], {})
except ValueError as e:
    print(e)`);
  assert.equal(out.trim(), "Op: input 'b' must have the shape of 'a' [?], got [?]");
});

test('float32() rounds as struct.pack("<f") does (ties to even, subnormals, -0.0, overflow) without struct, which torch.compile cannot trace', () => {
  const out = python(`
import math, random, struct
from pkg._dims import float32
def ref(f):
    try:
        return struct.unpack("<f", struct.pack("<f", f))[0]
    except OverflowError:
        return "overflow"
def got(f):
    try:
        return float32(f)
    except OverflowError:
        return "overflow"
rnd = random.Random(7)
cases = [0.1, -0.1, 1e-45, 7e-46, 2.1e-45, 3.4028235e38, 3.4028236e38, 3.40282357e38, 1e39, -1e39,
         1.1754942e-38, 5e-324, -5e-324, 0.0, -0.0, math.inf, -math.inf, 1.0000000596046448, 1.0000001788139343]
for _ in range(100000):
    b = struct.unpack("<f", rnd.getrandbits(32).to_bytes(4, "little"))[0]
    if math.isfinite(b) and b != 0:
        half = math.ldexp(1, math.frexp(b)[1] - 25)  # half a float32 step near b: the ties
        cases.append(b + rnd.choice((0, half, -half, math.ulp(b), -math.ulp(b))))
    cases.append(struct.unpack("<d", rnd.getrandbits(64).to_bytes(8, "little"))[0])
bad = [f for f in cases if not (ref(f) == got(f) or (f != f and got(f) != got(f)))
       or (ref(f) == 0 and math.copysign(1, ref(f)) != math.copysign(1, got(f)))]
print(len(cases), bad[:5])`);
  assert.match(out.trim(), /^\d+ \[\]$/, out);
});

test.run();
