// Dim-expression language of output shapes, input shape constraints, workspace sizes and checks:
//   integers, x[i] (dim i of input x, negative i from the end), rank(x), int attributes, elements
//   a[i] of `ints` attributes with a declared length, len(a) of list attributes,
//   + - * // % (floor division and modulo), ceil_div(a, b), max(a, b), min(a, b),
//   floor(e * f) / ceil(e * f) of a float attribute f, parentheses, unary minus; conditions:
//   == != < <= > >=, bool attributes, a string attribute == 'value', and / or / not, and
//   `a if cond else b` (Python's precedence throughout).
// A small hand-written recursive-descent parser: it must report exact columns, which
// general-purpose JS expression parsers do not give.

import type { Expr, FloatRef } from './ir.js';

export type RawBinaryOp = '+' | '-' | '*' | '//' | '%' | '==' | '!=' | '<' | '<=' | '>' | '>=' | 'and' | 'or';

export type RawExpr =
  | { kind: 'int'; value: number; pos: number }
  | { kind: 'str'; value: string; pos: number }
  | { kind: 'name'; name: string; pos: number }
  | { kind: 'index'; name: string; index: number; pos: number; indexPos: number }
  // `name[e]` with an index other than a literal: a variadic output's shape indexes by `member`
  // (`split[member]`, `sizes[2 * member + 1]`); the index must fold to an integer there.
  | { kind: 'at'; name: string; index: RawExpr; pos: number; indexPos: number }
  // `name[m][i]`: dim i of member m of a variadic input (`feats[member][2]`).
  | { kind: 'member'; name: string; member: RawExpr; index: number; pos: number; indexPos: number }
  | { kind: 'slice'; name: string; start: RawExpr | null; end: RawExpr | null; pos: number; colonPos: number }
  | { kind: 'binary'; op: RawBinaryOp; left: RawExpr; right: RawExpr; pos: number }
  | { kind: 'not'; arg: RawExpr; pos: number }
  | { kind: 'cond'; cond: RawExpr; yes: RawExpr; no: RawExpr; pos: number }
  | { kind: 'call'; fn: string; args: RawExpr[]; pos: number };

/** Words the language keeps for itself: they cannot name an attribute read by an expression. */
export const EXPR_KEYWORDS = ['and', 'or', 'not', 'if', 'else'] as const;

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
  | { t: 'str'; v: string; pos: number }
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
    if (c === "'" || c === '"') {
      const end = src.indexOf(c, i + 1);
      if (end < 0) throw new ExprSyntaxError(`unterminated string: a closing ${c} is missing`, i);
      toks.push({ t: 'str', v: src.slice(i + 1, end), pos: i });
      i = end + 1;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (two === '//' || two === '==' || two === '!=' || two === '<=' || two === '>=') {
      toks.push({ t: 'op', v: two, pos: i });
      i += 2;
      continue;
    }
    if (c === '=') throw new ExprSyntaxError("'=' is not an operator: compare with '=='", i);
    if (c === '!') throw new ExprSyntaxError("'!' is not an operator: use 'not' or '!='", i);
    if (c === '&' || c === '|')
      throw new ExprSyntaxError(`'${c}' is not an operator: use '${c === '&' ? 'and' : 'or'}'`, i);
    if (c === '?')
      throw new ExprSyntaxError(
        "'?' (an unknown dim) is allowed only as a whole input dim, not inside an expression; an output dim must be computable",
        i,
      );
    if ('+-*%<>()[],:'.includes(c)) {
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

export const EXPR_FUNCTIONS = ['ceil_div', 'max', 'min', 'floor', 'ceil'] as const;

/** Parses a dim expression; throws ExprSyntaxError with the offending offset. */
export function parseExpr(src: string): RawExpr {
  return new ExprParser(tokenize(src)).parse();
}

/** Recursive descent, one method per precedence level (Python's order, loosest first). */
class ExprParser {
  private k = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  parse(): RawExpr {
    const e = this.conditional();
    const rest = this.peek();
    if (rest.t !== 'end') throw new ExprSyntaxError(`unexpected ${describe(rest)} after the expression`, rest.pos);
    return e;
  }

  private peek(): Tok {
    return this.toks[this.k]!;
  }
  private isOp(v: string): boolean {
    const t = this.peek();
    return t.t === 'op' && t.v === v;
  }
  private isWord(v: string): boolean {
    const t = this.peek();
    return t.t === 'id' && t.v === v;
  }
  private expect(v: string): void {
    const t = this.peek();
    if (t.t !== 'op' || t.v !== v) throw new ExprSyntaxError(`expected '${v}' but found ${describe(t)}`, t.pos);
    this.k++;
  }
  /** Runs `f` one level deeper; refuses nesting deeper than MAX_DEPTH. */
  private nested<T>(pos: number, f: () => T): T {
    if (++this.depth > MAX_DEPTH) throw new ExprSyntaxError(`expression nested deeper than ${MAX_DEPTH}`, pos);
    const r = f();
    this.depth--;
    return r;
  }

  private conditional(): RawExpr {
    const yes = this.orExpr();
    if (!this.isWord('if')) return yes;
    const t = this.peek();
    this.k++;
    return this.nested(t.pos, () => {
      const cond = this.orExpr();
      const e = this.peek();
      if (!this.isWord('else')) throw new ExprSyntaxError(`expected 'else' but found ${describe(e)}`, e.pos);
      this.k++;
      return { kind: 'cond', cond, yes, no: this.conditional(), pos: t.pos };
    });
  }
  /** A left-associative chain of `word` (and, or) over `next`. */
  private chain(word: 'and' | 'or', next: () => RawExpr): RawExpr {
    let left = next();
    while (this.isWord(word)) {
      const t = this.peek();
      this.k++;
      left = { kind: 'binary', op: word, left, right: next(), pos: t.pos };
    }
    return left;
  }
  private orExpr(): RawExpr {
    return this.chain('or', () => this.andExpr());
  }
  private andExpr(): RawExpr {
    return this.chain('and', () => this.notExpr());
  }
  private notExpr(): RawExpr {
    if (!this.isWord('not')) return this.comparison();
    const t = this.peek();
    this.k++;
    return this.nested(t.pos, () => ({ kind: 'not', arg: this.notExpr(), pos: t.pos }));
  }
  private comparison(): RawExpr {
    const left = this.arithmetic(0);
    const t = this.peek();
    if (t.t !== 'op' || !CMP_OPS.includes(t.v)) return left;
    this.k++;
    const e: RawExpr = { kind: 'binary', op: t.v as RawBinaryOp, left, right: this.arithmetic(0), pos: t.pos };
    const next = this.peek();
    if (next.t === 'op' && CMP_OPS.includes(next.v))
      throw new ExprSyntaxError(`comparisons do not chain: write \`a ${t.v} b and b ${next.v} c\``, next.pos);
    return e;
  }
  /** Level 0: + and -; level 1: *, // and %; then unary minus. */
  private arithmetic(level: 0 | 1): RawExpr {
    const ops = ARITHMETIC[level];
    const next = (): RawExpr => (level === 0 ? this.arithmetic(1) : this.unary());
    let left = next();
    for (;;) {
      const t = this.peek();
      if (t.t !== 'op' || !ops.includes(t.v)) return left;
      this.k++;
      left = { kind: 'binary', op: t.v as RawBinaryOp, left, right: next(), pos: t.pos };
    }
  }
  private unary(): RawExpr {
    const t = this.peek();
    if (!(t.t === 'op' && t.v === '-')) return this.primary();
    this.k++;
    const operand = this.nested(t.pos, () => this.unary());
    if (operand.kind === 'int') return { kind: 'int', value: -operand.value, pos: t.pos };
    return { kind: 'binary', op: '-', left: { kind: 'int', value: 0, pos: t.pos }, right: operand, pos: t.pos };
  }
  private primary(): RawExpr {
    const t = this.peek();
    if (t.t === 'int' || t.t === 'str') {
      this.k++;
      return t.t === 'int' ? { kind: 'int', value: t.v, pos: t.pos } : { kind: 'str', value: t.v, pos: t.pos };
    }
    if (t.t === 'op' && t.v === '(') {
      this.k++;
      const e = this.nested(t.pos, () => this.conditional());
      this.expect(')');
      return e;
    }
    if (t.t === 'id' && (EXPR_KEYWORDS as readonly string[]).includes(t.v))
      throw new ExprSyntaxError(`expected a number, a name, x[i] or '(' but found the keyword '${t.v}'`, t.pos);
    if (t.t !== 'id')
      throw new ExprSyntaxError(`expected a number, a name, x[i] or '(' but found ${describe(t)}`, t.pos);
    this.k++;
    if (this.isOp('[')) return this.index(t.v, t.pos);
    if (this.isOp('(')) return this.call(t.v, t.pos);
    return { kind: 'name', name: t.v, pos: t.pos };
  }
  /** `name[i]` after its name: an integer index, negative from the end; or a slice `name[a:b]`. */
  private index(name: string, pos: number): RawExpr {
    this.k++;
    const first = this.peek();
    const start = this.isOp(':') ? null : this.nested(first.pos, () => this.conditional());
    if (this.isOp(':')) {
      const colonPos = this.peek().pos;
      this.k++;
      const end = this.isOp(']') ? null : this.nested(colonPos, () => this.conditional());
      this.expect(']');
      return { kind: 'slice', name, start, end, pos, colonPos };
    }
    this.expect(']');
    if (start === null) throw new ExprSyntaxError(`expected an index but found ${describe(first)}`, first.pos);
    if (this.isOp('[')) {
      this.k++;
      const dim = this.peek();
      const inner = this.nested(dim.pos, () => this.conditional());
      if (inner.kind !== 'int')
        throw new ExprSyntaxError(`expected an integer dim index but found ${describe(dim)}`, dim.pos);
      this.expect(']');
      return { kind: 'member', name, member: start, index: inner.value, pos, indexPos: dim.pos };
    }
    if (start.kind !== 'int') return { kind: 'at', name, index: start, pos, indexPos: first.pos };
    return { kind: 'index', name, index: start.value, pos, indexPos: first.pos };
  }
  /** `fn(a, b, ...)` after its name. */
  private call(fn: string, pos: number): RawExpr {
    this.k++;
    return this.nested(pos, () => {
      const args: RawExpr[] = [this.conditional()];
      while (this.isOp(',')) {
        this.k++;
        args.push(this.conditional());
      }
      this.expect(')');
      return { kind: 'call', fn, args, pos };
    });
  }
}

const ARITHMETIC: readonly [readonly string[], readonly string[]] = [
  ['+', '-'],
  ['*', '//', '%'],
];

const CMP_OPS: readonly string[] = ['==', '!=', '<', '<=', '>', '>='];

function describe(t: Tok): string {
  if (t.t === 'end') return 'the end of the expression';
  if (t.t === 'str') return `'${t.v}'`;
  return `'${String(t.v)}'`;
}

/** Renders an expression tree in the spec's own syntax (for docs and messages). */
export function formatExpr(e: Expr): string {
  switch (e.kind) {
    case 'int':
      return String(e.value);
    case 'dim':
      return e.member ? `${e.input}[${e.member}][${e.axis}]` : `${e.input}[${e.axis}]`;
    case 'rank':
      return `rank(${e.input})`;
    case 'count':
      return `count(${e.input})`;
    case 'slice': {
      // A bound is written bare, as in the spec: `x[:rank(y) - 1]`.
      const bound = (b: Expr | null): string =>
        b === null ? '' : b.kind === 'binary' ? formatExpr(b).slice(1, -1) : formatExpr(b);
      return `${e.input}[${bound(e.start)}:${bound(e.end)}]`;
    }
    case 'attr':
    case 'flag':
      return e.name;
    case 'elem':
      return `${e.name}[${e.index}]`;
    case 'len':
      return `len(${e.name})`;
    case 'sizeof':
      return `sizeof(${e.typeVar})`;
    case 'numel':
      return `numel(${e.input})`;
    case 'binary':
    case 'cmp':
    case 'logic':
      return `(${formatExpr(e.left)} ${e.op} ${formatExpr(e.right)})`;
    case 'call':
      return `${e.fn}(${formatExpr(e.args[0])}, ${formatExpr(e.args[1])})`;
    case 'round':
      return `${e.fn}(${formatExpr(e.scale)} * ${formatFloatRef(e.factor)})`;
    case 'is':
      return `(${e.name} == '${e.value}')`;
    case 'not':
      return `(not ${formatExpr(e.arg)})`;
    case 'cond':
      return `(${formatExpr(e.yes)} if ${formatExpr(e.cond)} else ${formatExpr(e.no)})`;
  }
}

export function formatFloatRef(f: FloatRef): string {
  return f.index === undefined ? f.name : `${f.name}[${f.index}]`;
}

/** The float32 nearest to x (what the op core stores for a float attribute). */
export function toFloat32(x: number): number {
  return Math.fround(x);
}

/**
 * floor or ceil of scale * f, exactly: f's float32 is m * 2^e with an integer m, so the product is
 * a rational whose floor BigInt arithmetic gives without rounding.
 */
export function roundScaled(fn: 'floor' | 'ceil', scale: number, f: number): number {
  const x = toFloat32(f);
  if (!Number.isFinite(x)) throw new RangeError('a float attribute in a dim expression is not finite');
  if (x === 0 || scale === 0) return 0;
  // x = m / 2^k with m an integer (k >= 0): scale a float32 by powers of two until it is whole.
  let m = x;
  let k = 0n;
  while (!Number.isInteger(m)) {
    m *= 2;
    k++;
  }
  const num = BigInt(scale) * BigInt(m);
  const den = 1n << k;
  // BigInt division truncates toward zero; floor and ceil from it.
  let q = num / den;
  const exact = q * den === num;
  if (!exact && fn === 'floor' && num < 0n) q -= 1n;
  if (!exact && fn === 'ceil' && num > 0n) q += 1n;
  return Number(q);
}

type Values = Readonly<Record<string, number | boolean | string | readonly number[]>>;

/**
 * Evaluates an expression on concrete dims and attributes (used by tests and the TS runtime);
 * conditions give 1 or 0. `typeSizes`: the element bytes of each type variable's bound dtype (sizeof).
 */
export function evalExpr(
  e: Expr,
  dims: readonly (readonly number[])[],
  attrs: Values,
  typeSizes?: Readonly<Record<string, number>>,
): number {
  const ev = (x: Expr): number => evalExpr(x, dims, attrs, typeSizes);
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'dim': {
      const d = dims[e.inputIndex + (e.member ?? 0)]?.at(e.axis);
      if (d === undefined) throw new RangeError(`dim ${e.input}[${e.axis}] is not available`);
      return d;
    }
    case 'rank': {
      const s = dims[e.inputIndex];
      if (s === undefined) throw new RangeError(`input ${e.input} is not available`);
      return s.length;
    }
    case 'count':
      // The members are the tensors from the variadic input's index on.
      if (dims.length <= e.inputIndex) throw new RangeError(`input ${e.input} is not available`);
      return dims.length - e.inputIndex;
    case 'slice':
      throw new RangeError(`a slice (${formatExpr(e)}) has no single value: it is compared with another`);
    case 'numel': {
      const s = dims[e.inputIndex];
      if (s === undefined) throw new RangeError(`input ${e.input} is not available`);
      return s.reduce((a, b) => a * b, 1);
    }
    case 'sizeof': {
      const n = typeSizes?.[e.typeVar];
      if (n === undefined) throw new RangeError(`sizeof(${e.typeVar}) is not available (no dtype bound)`);
      return n;
    }
    case 'attr': {
      const v = attrs[e.name];
      if (typeof v !== 'number') throw new RangeError(`attribute ${e.name} is not available`);
      return v;
    }
    case 'flag': {
      const v = attrs[e.name];
      if (typeof v !== 'boolean' && typeof v !== 'number') throw new RangeError(`attribute ${e.name} is not available`);
      return v ? 1 : 0;
    }
    case 'is': {
      const v = attrs[e.name];
      if (typeof v !== 'string') throw new RangeError(`attribute ${e.name} is not available`);
      return v === e.value ? 1 : 0;
    }
    case 'elem':
    case 'len': {
      const v = attrs[e.name];
      if (!Array.isArray(v)) throw new RangeError(`list attribute ${e.name} is not available`);
      if (e.kind === 'len') return v.length;
      const x = v.at(e.index);
      if (x === undefined && e.guarded) return 0;
      if (x === undefined) throw new RangeError(`${e.name}[${e.index}] is outside its ${v.length} elements`);
      return x;
    }
    case 'round': {
      const v = attrs[e.factor.name];
      const f = e.factor.index === undefined ? v : Array.isArray(v) ? v.at(e.factor.index) : undefined;
      if (typeof f !== 'number') throw new RangeError(`float attribute ${formatFloatRef(e.factor)} is not available`);
      return roundScaled(e.fn, ev(e.scale), f);
    }
    case 'binary': {
      const a = ev(e.left);
      const b = ev(e.right);
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
        case '%':
          if (b === 0) throw new RangeError('division by zero in a shape expression');
          return a - b * Math.floor(a / b);
      }
      break;
    }
    case 'call': {
      const a = ev(e.args[0]);
      const b = ev(e.args[1]);
      switch (e.fn) {
        case 'max':
          return Math.max(a, b);
        case 'min':
          return Math.min(a, b);
        case 'ceil_div':
          if (b === 0) throw new RangeError('division by zero in a shape expression');
          return Math.ceil(a / b);
      }
      break;
    }
    case 'cmp': {
      if (e.left.kind === 'slice' && e.right.kind === 'slice') {
        const [x, y] = [evalSlice(e.left, dims, attrs), evalSlice(e.right, dims, attrs)];
        if (x === undefined || y === undefined) return 0;
        const same = x.length === y.length && x.every((d, k) => d === y[k]);
        return (e.op === '==') === same ? 1 : 0;
      }
      const a = ev(e.left);
      const b = ev(e.right);
      const r = { '==': a === b, '!=': a !== b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[e.op];
      return r ? 1 : 0;
    }
    case 'logic':
      // Short-circuit as C++ and Python do: the right side may divide by zero where the left decides.
      if (e.op === 'and') return ev(e.left) ? (ev(e.right) ? 1 : 0) : 0;
      return ev(e.left) ? 1 : ev(e.right) ? 1 : 0;
    case 'not':
      return ev(e.arg) ? 0 : 1;
    case 'cond':
      return ev(e.cond) ? ev(e.yes) : ev(e.no);
  }
  throw new Error('unreachable');
}

/** `[start:end]` of `rank` dims, bounds already evaluated (null: missing); 'out' outside the dims
 * (a missing bound is the start or the end; a negative one counts from the end, as in Python). */
export function sliceRange(start: number | null, end: number | null, rank: number): [number, number] | 'out' {
  const s = start === null ? 0 : start < 0 ? rank + start : start;
  const e = end === null ? rank : end < 0 ? rank + end : end;
  if (s < 0 || e > rank || e < s) return 'out';
  return [s, e];
}

/** The dims a slice takes; undefined when its bounds fall outside the input's dims. */
export function evalSlice(
  e: Extract<Expr, { kind: 'slice' }>,
  dims: readonly (readonly number[])[],
  attrs: Values,
): number[] | undefined {
  const s = dims[e.inputIndex];
  if (s === undefined) throw new RangeError(`input ${e.input} is not available`);
  const bound = (b: Expr | null): number | null => (b === null ? null : evalExpr(b, dims, attrs));
  const span = sliceRange(bound(e.start), bound(e.end), s.length);
  return span === 'out' ? undefined : s.slice(span[0], span[1]);
}

/** The sub-expressions of a node, in order. */
export function exprChildren(e: Expr): Expr[] {
  switch (e.kind) {
    case 'binary':
    case 'cmp':
    case 'logic':
      return [e.left, e.right];
    case 'call':
      return [e.args[0], e.args[1]];
    case 'round':
      return [e.scale];
    case 'not':
      return [e.arg];
    case 'cond':
      return [e.cond, e.yes, e.no];
    case 'slice':
      return [e.start, e.end].filter((x): x is Expr => x !== null);
    default:
      return [];
  }
}

/** Walks every node of an expression tree. */
export function visitExpr(e: Expr, f: (e: Expr) => void): void {
  f(e);
  for (const c of exprChildren(e)) visitExpr(c, f);
}
