// How spec values are spelled in each language (generator/emit/lang/): string literals read back
// to the same string, comments that cannot be closed from inside, float32 literals that round-trip,
// and dim expressions printed as C++ and Python that evaluate as the spec's do.

import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cppExpr } from '../../generator/emit/lang/cpp-expr.js';
import {
  cmakeQuotedText,
  commentText,
  cppAttrValue,
  cppFloat,
  cppInt,
  cppString,
  plainFloat,
  pyString,
  tomlString,
  tsString,
} from '../../generator/emit/lang/literals.js';
import { pyExpr } from '../../generator/emit/lang/py-expr.js';
import { evalExpr, parseExpr, type RawExpr } from '../../generator/model/expr.js';
import type { Expr } from '../../generator/model/ir.js';
import { HOSTILE } from './helpers/fixture-specs.js';
import { decodeCpp, decodePython } from './helpers/string-literals.js';

const ascii = (s: string): boolean => /^[\x20-\x7e]*$/.test(s);
const samples = [HOSTILE, '', 'plain', '\0x', '\u2028\u2029', 'a\r\nb', '\'\'\'"""', '??( ??) ??/'];

test('C++, Python and JS string literals are ASCII and read back to the same string', () => {
  for (const s of samples.filter((x) => !x.includes('\0'))) {
    assert.ok(ascii(cppString(s)) && ascii(pyString(s)) && ascii(tsString(s)), JSON.stringify(s));
    assert.is(decodeCpp(cppString(s)), s);
    assert.is(decodePython(pyString(s)), s);
    assert.is(JSON.parse(tsString(s)), s);
  }
  assert.not.match(cppString('??='), /\?\?/, 'no trigraph survives');
});

test('TOML strings are ASCII and read back to the same string (Python tomllib reads them)', () => {
  const strings = [...samples.filter((x) => !x.includes('\0')), 'x\u007fy', 'astral \u{1F600} and \u00e9'];
  const doc = strings.map((s, i) => `k${i} = ${tomlString(s)}`).join('\n');
  assert.ok(ascii(doc.replace(/\n/g, ' ')), doc);
  const r = spawnSync(
    'python3',
    ['-c', 'import json, sys, tomllib; print(json.dumps(tomllib.loads(sys.stdin.read())))'],
    {
      input: doc,
      encoding: 'utf8',
    },
  );
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), Object.fromEntries(strings.map((s, i) => [`k${i}`, s])));
});

test('comment text: one ASCII line that closes no comment and continues no line', () => {
  for (const s of samples) {
    const c = commentText(s);
    assert.ok(ascii(c), JSON.stringify(c));
    for (const bad of ['*/', '\\', '"', '??']) assert.not.ok(c.includes(bad), `${JSON.stringify(s)} -> ${c}`);
  }
  assert.is(commentText('a */ b\nc'), 'a * / b c');
});

test('CMake quoted text escapes what CMake would expand', () => {
  assert.is(cmakeQuotedText('k $dir/"x"\\y\n'), 'k \\$dir/\\"x\\"\\\\y\\n');
});

test('float32 literals: shortest that round-trips, never an integer', () => {
  assert.is(cppFloat(2.5), '2.5f');
  assert.is(cppFloat(0.01), '0.01f');
  assert.is(cppFloat(2), '2.0f');
  assert.is(cppFloat(-1e-30), '-1e-30f');
  assert.is(plainFloat(0.1), '0.1');
  assert.is(plainFloat(3), '3.0');
  for (const v of [0.1, 1 / 3, 3.4e38, 1.17549435e-38, 16777217])
    assert.is(Math.fround(Number(cppFloat(v).slice(0, -1))), Math.fround(v), String(v));
  assert.throws(() => cppFloat(Number.POSITIVE_INFINITY));
});

test('attribute values as C++ expressions of the op core types', () => {
  assert.is(cppInt(-3), '(-3LL)');
  assert.is(cppAttrValue({ type: 'bool' }, false), 'false');
  assert.is(cppAttrValue({ type: 'int' }, 7), '7LL');
  assert.is(cppAttrValue({ type: 'float' }, 0.5), '0.5f');
  assert.is(cppAttrValue({ type: 'ints' }, [1, -2]), 'std::vector<int64_t>{1LL, (-2LL)}');
  assert.is(cppAttrValue({ type: 'floats' }, [1, 0.25]), 'std::vector<float>{1.0f, 0.25f}');
  assert.is(decodeCpp(/\((".*")\)/.exec(cppAttrValue({ type: 'string' }, HOSTILE))![1]!), HOSTILE);
});

/** Resolves a raw expression over inputs a (index 0) and b (index 1), each of rank 3, and attribute k. */
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
        axis: r.index < 0 ? 3 + r.index : r.index,
      };
    case 'binary':
      return { kind: 'binary', op: r.op as '+', left: resolve(r.left), right: resolve(r.right) };
    case 'call':
      return { kind: 'call', fn: r.fn as 'max', args: [resolve(r.args[0]!), resolve(r.args[1]!)] };
    default:
      throw new Error(`${r.kind}: integer expressions only here`);
  }
}

test('dim expressions print as C++ and Python that compute what the spec says', () => {
  const dims = [
    [7, -3, 10],
    [2, 5, 9],
  ];
  const k = 4;
  const cases = [
    'a[0] * k + 1',
    '-a[1] // 2',
    'ceil_div(a[2], b[0])',
    'max(a[0], b[-1]) - min(3, k)',
    '(a[0] - b[1]) // 3',
  ];
  for (const src of cases) {
    const e = resolve(parseExpr(src));
    const want = evalExpr(e, dims, { k });
    // Python: plain arithmetic, // floors as the spec's does.
    const py = pyExpr(e, { dim: (i, x) => `d${i}_${x}`, rank: (i) => `r${i}`, count: (i) => `c${i}`, attr: (n) => n });
    const pyVal = evalPython(py, dims, k);
    assert.is(pyVal, want, `${src} -> ${py}`);
    // C++: the shape helpers by name, each dim and attribute read through the environment.
    const cpp = cppExpr(e, {
      dim: (i, x) => `in[${i}].dims[${x}]`,
      rank: (i) => `in[${i}].rank`,
      count: (i) => `c${i}`,
      attr: (n) => `attrs.${n}`,
      attrList: (n) => `attrs.${n}`,
      okVar: 'ok',
    });
    for (const [i, x] of [...src.matchAll(/([ab])\[(-?\d)\]/g)].map((m) => [
      m[1] === 'a' ? 0 : 1,
      (3 + Number(m[2])) % 3,
    ]))
      assert.ok(cpp.includes(`in[${i}].dims[${x}]`), `${src} -> ${cpp}`);
    if (src.includes('//')) assert.match(cpp, /opforge::floorDiv\(/);
    if (src.includes('ceil_div')) assert.match(cpp, /opforge::ceilDiv\(/);
  }
});

/** Evaluates the Python arithmetic pyExpr prints (+ - * // max min, parentheses) with JS numbers. */
function evalPython(src: string, dims: number[][], k: number): number {
  const js = src
    .replace(/d(\d)_(\d)/g, (_m, i: string, x: string) => String(dims[Number(i)]![Number(x)]))
    .replace(/\bk\b/g, String(k))
    .replace(/\bmax\(/g, 'Math.max(')
    .replace(/\bmin\(/g, 'Math.min(');
  // Python's a // b floors: rewrite each `X // Y` innermost-first as fdiv(X, Y).
  let s = js;
  const re = /(\([^()]*\)|-?\d+)\s*\/\/\s*(\([^()]*\)|-?\d+)/;
  while (re.test(s)) s = s.replace(re, (_m, a: string, b: string) => `fdiv(${a}, ${b})`);
  const fdiv = (a: number, b: number): number => Math.floor(a / b);
  return new Function('fdiv', `return ${s};`)(fdiv) as number;
}

test.run();
