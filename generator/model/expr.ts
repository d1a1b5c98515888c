// Dim-expression language of output shapes, input shape constraints and workspace sizes:
//   integers, x[i] (dim i of input x, negative i from the end), int attributes, elements
//   a[i] of `ints` attributes with a declared length, len(a) of list attributes,
//   + - * // (floor division), ceil_div(a, b), max(a, b), min(a, b), parentheses, unary minus.
// A small hand-written recursive-descent parser: it must report exact columns, which
// general-purpose JS expression parsers do not give.

import type { Expr } from './ir.js';

export type RawExpr =
  | { kind: 'int'; value: number; pos: number }
  | { kind: 'name'; name: string; pos: number }
  | { kind: 'index'; name: string; index: number; pos: number; indexPos: number }
  | { kind: 'binary'; op: '+' | '-' | '*' | '//'; left: RawExpr; right: RawExpr; pos: number }
  | { kind: 'call'; fn: string; args: RawExpr[]; pos: number };

export class ExprSyntaxError extends Error {
  constructor(
    message: string,
    /** 0-based offset in the expression text. */
    readonly pos: number,
  ) {
    super(message);
  }
}

type Tok =
  | { t: 'int'; v: number; pos: number }
  | { t: 'id'; v: string; pos: number }
  | { t: 'op'; v: string; pos: number }
  | { t: 'end'; pos: number };

const MAX_LEN = 1000;
const MAX_DEPTH = 64;

function tokenize(src: string): Tok[] {
  if (src.length > MAX_LEN) throw new ExprSyntaxError(`expression longer than ${MAX_LEN} characters`, 0);
  const toks: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (/[0-9]/.test(c)) {
      let j = i;
      while (j < src.length && /[0-9]/.test(src[j]!)) j++;
      const text = src.slice(i, j);
      const v = Number(text);
      if (!Number.isSafeInteger(v) || v > 2 ** 31 - 1)
        throw new ExprSyntaxError(`integer ${text} is out of range (max 2147483647)`, i);
      toks.push({ t: 'int', v, pos: i });
      i = j;
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < src.length && /[A-Za-z0-9_]/.test(src[j]!)) j++;
      toks.push({ t: 'id', v: src.slice(i, j), pos: i });
      i = j;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      toks.push({ t: 'op', v: '//', pos: i });
      i += 2;
      continue;
    }
    if ('+-*()[],'.includes(c)) {
      toks.push({ t: 'op', v: c, pos: i });
      i++;
      continue;
    }
    if (c === '/') throw new ExprSyntaxError("'/' is not supported: use '//' (floor division) or ceil_div(a, b)", i);
    throw new ExprSyntaxError(`unexpected character ${JSON.stringify(c)}`, i);
  }
  toks.push({ t: 'end', pos: src.length });
  return toks;
}

export const EXPR_FUNCTIONS = ['ceil_div', 'max', 'min'] as const;

/** Parses a dim expression; throws ExprSyntaxError with the offending offset. */
export function parseExpr(src: string): RawExpr {
  const toks = tokenize(src);
  let k = 0;
  let depth = 0;
  const peek = (): Tok => toks[k]!;
  const isOp = (v: string): boolean => {
    const t = peek();
    return t.t === 'op' && t.v === v;
  };
  const expect = (v: string): Tok => {
    const t = peek();
    if (t.t !== 'op' || t.v !== v) throw new ExprSyntaxError(`expected '${v}' but found ${describe(t)}`, t.pos);
    k++;
    return t;
  };
  const enter = (pos: number): void => {
    if (++depth > MAX_DEPTH) throw new ExprSyntaxError(`expression nested deeper than ${MAX_DEPTH}`, pos);
  };

  function additive(): RawExpr {
    let left = multiplicative();
    for (;;) {
      const t = peek();
      if (t.t === 'op' && (t.v === '+' || t.v === '-')) {
        k++;
        left = { kind: 'binary', op: t.v, left, right: multiplicative(), pos: t.pos };
      } else return left;
    }
  }
  function multiplicative(): RawExpr {
    let left = unary();
    for (;;) {
      const t = peek();
      if (t.t === 'op' && (t.v === '*' || t.v === '//')) {
        k++;
        left = { kind: 'binary', op: t.v, left, right: unary(), pos: t.pos };
      } else return left;
    }
  }
  function unary(): RawExpr {
    const t = peek();
    if (t.t === 'op' && t.v === '-') {
      k++;
      enter(t.pos);
      const operand = unary();
      depth--;
      if (operand.kind === 'int') return { kind: 'int', value: -operand.value, pos: t.pos };
      return { kind: 'binary', op: '-', left: { kind: 'int', value: 0, pos: t.pos }, right: operand, pos: t.pos };
    }
    return primary();
  }
  function primary(): RawExpr {
    const t = peek();
    if (t.t === 'int') {
      k++;
      return { kind: 'int', value: t.v, pos: t.pos };
    }
    if (t.t === 'op' && t.v === '(') {
      k++;
      enter(t.pos);
      const e = additive();
      depth--;
      expect(')');
      return e;
    }
    if (t.t === 'id') {
      k++;
      if (isOp('[')) {
        k++;
        const neg = isOp('-');
        if (neg) k++;
        const it = peek();
        if (it.t !== 'int')
          throw new ExprSyntaxError(`expected an integer dim index but found ${describe(it)}`, it.pos);
        k++;
        expect(']');
        return { kind: 'index', name: t.v, index: neg ? -it.v : it.v, pos: t.pos, indexPos: it.pos };
      }
      if (isOp('(')) {
        k++;
        enter(t.pos);
        const args: RawExpr[] = [additive()];
        while (isOp(',')) {
          k++;
          args.push(additive());
        }
        expect(')');
        depth--;
        return { kind: 'call', fn: t.v, args, pos: t.pos };
      }
      return { kind: 'name', name: t.v, pos: t.pos };
    }
    throw new ExprSyntaxError(`expected a number, a name, x[i] or '(' but found ${describe(t)}`, t.pos);
  }

  const e = additive();
  const rest = peek();
  if (rest.t !== 'end') throw new ExprSyntaxError(`unexpected ${describe(rest)} after the expression`, rest.pos);
  return e;
}

function describe(t: Tok): string {
  if (t.t === 'end') return 'the end of the expression';
  return `'${String(t.v)}'`;
}

/** Renders an expression tree in the spec's own syntax (for docs and messages). */
export function formatExpr(e: Expr): string {
  switch (e.kind) {
    case 'int':
      return String(e.value);
    case 'dim':
      return `${e.input}[${e.axis}]`;
    case 'attr':
      return e.name;
    case 'elem':
      return `${e.name}[${e.index}]`;
    case 'len':
      return `len(${e.name})`;
    case 'binary':
      return `(${formatExpr(e.left)} ${e.op} ${formatExpr(e.right)})`;
    case 'call':
      return `${e.fn}(${formatExpr(e.args[0])}, ${formatExpr(e.args[1])})`;
  }
}

/** Evaluates an expression on concrete dims and attributes (used by tests and the TS runtime). */
export function evalExpr(
  e: Expr,
  dims: readonly (readonly number[])[],
  attrs: Readonly<Record<string, number | readonly number[]>>,
): number {
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'dim': {
      const d = dims[e.inputIndex]?.[e.axis];
      if (d === undefined) throw new RangeError(`dim ${e.input}[${e.axis}] is not available`);
      return d;
    }
    case 'attr': {
      const v = attrs[e.name];
      if (typeof v !== 'number') throw new RangeError(`attribute ${e.name} is not available`);
      return v;
    }
    case 'elem':
    case 'len': {
      const v = attrs[e.name];
      if (!Array.isArray(v)) throw new RangeError(`list attribute ${e.name} is not available`);
      if (e.kind === 'len') return v.length;
      const x = v[e.index];
      if (x === undefined) throw new RangeError(`${e.name}[${e.index}] is outside its ${v.length} elements`);
      return x;
    }
    case 'binary': {
      const a = evalExpr(e.left, dims, attrs);
      const b = evalExpr(e.right, dims, attrs);
      switch (e.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '//':
          if (b === 0) throw new RangeError('division by zero in a shape expression');
          return Math.floor(a / b);
      }
      break;
    }
    case 'call': {
      const a = evalExpr(e.args[0], dims, attrs);
      const b = evalExpr(e.args[1], dims, attrs);
      switch (e.fn) {
        case 'max':
          return Math.max(a, b);
        case 'min':
          return Math.min(a, b);
        case 'ceil_div':
          if (b === 0) throw new RangeError('division by zero in a shape expression');
          return Math.ceil(a / b);
      }
    }
  }
  throw new Error('unreachable');
}

/** Walks every node of an expression tree. */
export function visitExpr(e: Expr, f: (e: Expr) => void): void {
  f(e);
  if (e.kind === 'binary') {
    visitExpr(e.left, f);
    visitExpr(e.right, f);
  } else if (e.kind === 'call') {
    visitExpr(e.args[0], f);
    visitExpr(e.args[1], f);
  }
}
