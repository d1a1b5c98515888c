// The dim-expression parser: precedence, functions, indexing, and located syntax errors.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ExprSyntaxError, evalExpr, parseExpr, type RawExpr } from '../../generator/model/expr.js';
import type { Expr } from '../../generator/model/ir.js';

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
      return { kind: 'binary', op: r.op, left: resolve(r.left), right: resolve(r.right) };
    case 'call':
      return { kind: 'call', fn: r.fn as 'max', args: [resolve(r.args[0]!), resolve(r.args[1]!)] };
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
  assert.is(syntaxError('a[x]').pos, 2);
  assert.is(syntaxError('(1 + 2').pos, 6);
  assert.is(syntaxError('1 2').pos, 2);
  assert.is(syntaxError('a[0] $ 1').pos, 5);
  assert.match(syntaxError('99999999999').message, /out of range/);
});

test('hostile input is bounded', () => {
  assert.match(syntaxError(`${'('.repeat(200)}1${')'.repeat(200)}`).message, /nested deeper/);
  assert.match(syntaxError(`${'1+'.repeat(600)}1`).message, /longer than/);
});

test.run();
