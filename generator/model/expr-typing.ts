// Types a parsed dim expression while resolving its names: integers, conditions (bool), floats that
// only floor() and ceil() turn into integers, and strings that only compare with a string attribute.
// Every misuse is reported once, at its column (a sub-expression that failed is poison above it).

import { didYouMean } from './diagnostics.js';
import { EXPR_FUNCTIONS, evalExpr, formatExpr, formatFloatRef, type RawExpr } from './expr.js';
import {
  type AttrReading,
  type ExprAttrs,
  elementIndex,
  outsideList,
  readAttrElement,
  readAttrLength,
  readAttrName,
} from './expr-attrs.js';
import { isCondition, type AttributeIR, type CmpOp, type Expr, type FloatRef, type InputIR } from './ir.js';
import { readInputDim, readInputRank } from './build-inputs.js';

/** What a sub-expression gives while it is typed. */
type Typed =
  | { t: 'int' | 'bool' | 'err'; e: Expr }
  | { t: 'dims'; e: Extract<Expr, { kind: 'slice' }> }
  | { t: 'real'; scale?: Expr; factor: FloatRef }
  | { t: 'str'; value: string }
  | { t: 'strattr'; name: string; values: string[] | undefined };

export interface TypingContext {
  /** The inputs this expression may read. */
  inputs: readonly InputIR[];
  attrs: ExprAttrs;
  /** A let's inlined expression, or undefined when `name` is no let. */
  readLet(name: string, pos: number): Expr | undefined;
  /** An attribute or dim reading's expression; reports its error (and gives a placeholder) when it has one. */
  reading(read: AttrReading, pos: number, indexPos: number): Expr;
  fail(message: string, pos: number, hint?: string): void;
  /** Whether slices of dims (compared with == or !=) may appear: in `checks:` only. */
  slices?: boolean;
  /** Whether a name is one of the op's `state` fields: asked on the error path only, for its own message. */
  isStateField?: (name: string) => boolean;
  /** Whether `name` is a dim the kernel decides (`data_dims:`), which expressions cannot read. */
  isDataDim?: (name: string) => boolean;
  /**
   * `sizeof(X)` of a type variable or dtype name: its expression, an error message, or undefined
   * where sizes are not read (anywhere but `workspace` and lets).
   */
  sizeOf?: (name: string) => SizeReading;
  /** Whether `numel(x)` may be read: in a Triton kernel's args and grid only. */
  numel?: boolean;
  /**
   * In the shape of a variadic output's member: `member` is its index, lists are indexed by
   * expressions of it (elements past a list's declared length too) and `x[member][i]` reads a
   * variadic input's member. Each such read is valid only while `guard`'s condition holds, which
   * the op checks for every member it has.
   */
  member?: { index: number; guard(cond: Expr, what: string): void };
}

/** What `sizeof(X)` reads: the expression, or why X has no size. */
export type SizeReading = Expr | { error: string; hint?: string | undefined };

const COMPARISONS: readonly string[] = ['==', '!=', '<', '<=', '>', '>='];

/** The name of a variadic output's member index in its shape. */
export const MEMBER = 'member';

/** The value of an expression of integers alone (undefined when it reads anything, or divides by zero). */
function constantValue(e: Expr): number | undefined {
  try {
    return evalExpr(e, [], {});
  } catch {
    return undefined;
  }
}

export class ExprTyper {
  constructor(private readonly cx: TypingContext) {}

  /** The whole expression, which must give `want`; a placeholder after an error (the context has it). */
  top(raw: RawExpr, want: 'int' | 'bool' | 'any'): Expr {
    const x = this.resolve(raw);
    if (x.t === 'err') return x.e;
    if (want !== 'any' && x.t !== want)
      return this.bad(...notAn(want === 'int' ? 'an integer' : 'a condition', x, 0)).e;
    if (x.t !== 'int' && x.t !== 'bool') return this.bad(...notAn('an integer or a condition', x, 0)).e;
    return x.e;
  }

  private bad(message: string, pos: number, hint?: string): Typed & { e: Expr } {
    this.cx.fail(message, pos, hint);
    return { t: 'err', e: { kind: 'int', value: 0 } };
  }
  private asInt(x: Typed, pos: number): Expr {
    return x.t === 'int' || x.t === 'err' ? x.e : this.bad(...notAn('an integer', x, pos)).e;
  }
  private int(r: RawExpr): Expr {
    return this.asInt(this.resolve(r), r.pos);
  }
  private bool(r: RawExpr): Expr {
    const x = this.resolve(r);
    return x.t === 'bool' || x.t === 'err' ? x.e : this.bad(...notAn('a condition', x, r.pos)).e;
  }

  private resolve(r: RawExpr): Typed {
    switch (r.kind) {
      case 'int':
        return { t: 'int', e: { kind: 'int', value: r.value } };
      case 'str':
        return { t: 'str', value: r.value };
      case 'name':
        return this.name(r.name, r.pos);
      case 'index':
        return this.index(r);
      case 'at':
        return this.at(r);
      case 'member':
        return this.memberDim(r);
      case 'slice':
        return this.slice(r);
      case 'not':
        return { t: 'bool', e: { kind: 'not', arg: this.bool(r.arg) } };
      case 'cond':
        return this.cond(r);
      case 'binary':
        if (r.op === 'and' || r.op === 'or')
          return { t: 'bool', e: { kind: 'logic', op: r.op, left: this.bool(r.left), right: this.bool(r.right) } };
        if (COMPARISONS.includes(r.op)) return this.compare(r as RawBinary, r.op as CmpOp);
        if (r.op === '*') return this.product(r as RawBinary);
        return {
          t: 'int',
          e: { kind: 'binary', op: r.op as '+' | '-' | '//' | '%', left: this.int(r.left), right: this.int(r.right) },
        };
      case 'call':
        return this.call(r);
    }
  }

  /** A name alone: a let, or an attribute by its type (a float waits for floor or ceil). */
  private name(name: string, pos: number): Typed {
    if (name === MEMBER && this.cx.member) return { t: 'int', e: { kind: 'int', value: this.cx.member.index } };
    const let_ = this.cx.readLet(name, pos);
    if (let_) return { t: isCondition(let_) ? 'bool' : 'int', e: let_ };
    const a = this.cx.attrs.get(name);
    if (a?.type === 'bool') return { t: 'bool', e: { kind: 'flag', name } };
    if (a?.type === 'float') return { t: 'real', factor: { name } };
    if (a?.type === 'string') return { t: 'strattr', name, values: a.enum?.map(String) };
    const read = readAttrName(name, this.cx.attrs);
    if (read) return { t: 'int', e: this.cx.reading(read, pos, pos) };
    return this.bad(
      this.cx.inputs.some((x) => x.name === name)
        ? `\`${name}\` is an input; use ${name}[i] for one of its dims`
        : this.cx.isStateField?.(name)
          ? `\`${name}\` is a state field, which configure() fills at run time; expressions read attributes, dims and lets (state it as a let)`
          : this.cx.isDataDim?.(name)
            ? `\`${name}\` is a dim the kernel decides (\`data_dims\`): an output's dims list names it as a whole entry, and no expression reads it (its bound is known, its value only after the kernel has run)`
            : `\`${name}\` is not an attribute`,
      pos,
      didYouMean(
        name,
        [...this.cx.attrs.values()].map((x) => x.name),
      ),
    );
  }

  /** `name[i]`: a dim of an input, or an element of a list attribute (a floats element waits for floor or ceil). */
  private index(r: Extract<RawExpr, { kind: 'index' }>): Typed {
    const inp = this.cx.inputs.find((x) => x.name === r.name);
    if (inp) return { t: 'int', e: this.cx.reading(readInputDim(inp, r.index), r.pos, r.indexPos) };
    const a = this.cx.attrs.get(r.name);
    if (a?.type === 'floats') {
      const read = readFloatElement(a, r.index);
      if ('factor' in read) return { t: 'real', factor: read.factor };
      return this.bad(read.error, read.atIndex ? r.indexPos : r.pos, read.hint);
    }
    const guarded = this.memberElement(r.name, r.index, r.indexPos);
    if (guarded) return guarded;
    const element = readAttrElement(r.name, r.index, this.cx.attrs);
    if (element) return { t: 'int', e: this.cx.reading(element, r.pos, r.indexPos) };
    return this.bad(
      `\`${r.name}\` is not an input that can be read here (an input that is always present; an input's own constraint also reads earlier optional ones, not itself), nor a list attribute`,
      r.pos,
      didYouMean(r.name, [
        ...this.cx.inputs.map((x) => x.name),
        ...[...this.cx.attrs.values()].filter((x) => x.type === 'ints' || x.type === 'floats').map((x) => x.name),
      ]),
    );
  }

  /**
   * Element `index` of an `ints` attribute without a declared length, in a member's shape: valid
   * while the list is long enough, which the op checks for every member it has.
   */
  private memberElement(name: string, index: number, pos: number): Typed | undefined {
    const a = this.cx.attrs.get(name);
    if (!this.cx.member || a?.type !== 'ints' || a.length !== undefined) return undefined;
    if (index < 0)
      return this.bad(`index ${index} of \`${name}\`: a list without a declared length is indexed from 0`, pos);
    this.cx.member.guard(
      { kind: 'cmp', op: '>', left: { kind: 'len', name }, right: { kind: 'int', value: index } },
      `reads ${name}[${index}]`,
    );
    return { t: 'int', e: { kind: 'elem', name, index, guarded: true } };
  }

  /** The integer a member's index expression folds to (`2 * member + 1`), or undefined after its error. */
  private folded(r: RawExpr, pos: number): number | undefined {
    if (!this.cx.member) {
      this.bad(
        `expected an integer dim index but found ${r.kind === 'name' ? `'${r.name}'` : 'an expression'}`,
        pos,
        r.kind === 'name' && r.name === MEMBER ? "`member` indexes in a variadic output's shape only" : undefined,
      );
      return undefined;
    }
    const x = this.resolve(r);
    if (x.t === 'err') return undefined;
    if (x.t !== 'int') {
      this.bad(...notAn('an integer', x, pos));
      return undefined;
    }
    const v = constantValue(x.e);
    if (v === undefined) this.bad('an index folds to an integer: integers and `member` only', pos);
    return v;
  }

  /** `name[e]`: an index that is an expression of `member`. */
  private at(r: Extract<RawExpr, { kind: 'at' }>): Typed {
    const index = this.folded(r.index, r.indexPos);
    if (index === undefined) return { t: 'err', e: { kind: 'int', value: 0 } };
    return this.index({ kind: 'index', name: r.name, index, pos: r.pos, indexPos: r.indexPos });
  }

  /** `x[m][i]`: dim i of member m of the variadic input x, in a member's shape. */
  private memberDim(r: Extract<RawExpr, { kind: 'member' }>): Typed {
    const m = this.folded(r.member, r.pos + r.name.length + 1);
    if (m === undefined) return { t: 'err', e: { kind: 'int', value: 0 } };
    const inp = this.cx.inputs.find((x) => x.name === r.name);
    if (!inp?.variadic)
      return this.bad(
        `\`${r.name}[${m}][${r.index}]\` reads a member of a variadic input; \`${r.name}\` is not one`,
        r.pos,
      );
    if (m < 0) return this.bad(`member ${m} of \`${r.name}\`: members are counted from 0`, r.pos);
    const read = this.cx.reading(readInputDim(inp, r.index), r.pos, r.indexPos);
    if (read.kind !== 'dim' || m === 0) return { t: 'int', e: read };
    this.cx.member!.guard(
      {
        kind: 'cmp',
        op: '>',
        left: { kind: 'count', input: inp.name, inputIndex: inp.index },
        right: { kind: 'int', value: m },
      },
      `reads ${r.name}[${m}][${r.index}]`,
    );
    return { t: 'int', e: { ...read, member: m } };
  }

  private cond(r: Extract<RawExpr, { kind: 'cond' }>): Typed {
    const cond = this.bool(r.cond);
    const yes = this.resolve(r.yes);
    const no = this.resolve(r.no);
    if (yes.t === 'err' || no.t === 'err') return yes.t === 'err' ? yes : no;
    if ((yes.t === 'int' || yes.t === 'bool') && no.t === yes.t)
      return { t: yes.t, e: { kind: 'cond', cond, yes: yes.e, no: no.e } };
    return this.bad(
      `both sides of \`if ... else\` must be integers, or both conditions (got ${typeName(yes)} and ${typeName(no)})`,
      r.pos,
      yes.t === 'real' || no.t === 'real' ? 'round a float: floor(x[2] * scale) or ceil(...)' : undefined,
    );
  }

  /** `x[a:b]`: the dims of an input, compared with another slice in a check. */
  private slice(r: Extract<RawExpr, { kind: 'slice' }>): Typed {
    if (!this.cx.slices)
      return this.bad(
        `a slice of dims (\`${r.name}[a:b]\`) is an output shape's entry, or one side of == or != in \`checks:\``,
        r.pos,
      );
    const inp = this.cx.inputs.find((x) => x.name === r.name);
    if (!inp)
      return this.bad(
        `\`${r.name}\` is not an input whose dims a slice can read (an input that is always present)`,
        r.pos,
        didYouMean(
          r.name,
          this.cx.inputs.map((x) => x.name),
        ),
      );
    const start = r.start ? this.int(r.start) : null;
    const end = r.end ? this.int(r.end) : null;
    return { t: 'dims', e: { kind: 'slice', input: inp.name, inputIndex: inp.index, start, end } };
  }

  /** Integers compare with each other; a string attribute with one of its values (== and != only); slices of dims with each other. */
  private compare(r: RawBinary, op: CmpOp): Typed {
    const left = this.resolve(r.left);
    const right = this.resolve(r.right);
    if (left.t === 'err' || right.t === 'err') return left.t === 'err' ? left : right;
    if (left.t === 'dims' || right.t === 'dims') {
      if (left.t !== 'dims' || right.t !== 'dims')
        return this.bad(
          `a slice of dims compares with another slice (got ${typeName(left)} and ${typeName(right)})`,
          r.pos,
        );
      if (op !== '==' && op !== '!=') return this.bad(`slices of dims compare with == or != only, not ${op}`, r.pos);
      return { t: 'bool', e: { kind: 'cmp', op, left: left.e, right: right.e } };
    }
    const attr = left.t === 'strattr' ? left : right.t === 'strattr' ? right : undefined;
    const lit = left.t === 'str' ? left : right.t === 'str' ? right : undefined;
    if (attr && lit) {
      if (op !== '==' && op !== '!=')
        return this.bad(`a string attribute is compared with == or != only, not ${op}`, r.pos);
      if (attr.values && !attr.values.includes(lit.value))
        return this.bad(
          `'${lit.value}' is not a value of attribute \`${attr.name}\` (one of ${attr.values.map((v) => `'${v}'`).join(', ')})`,
          left.t === 'str' ? r.left.pos : r.right.pos,
          didYouMean(lit.value, attr.values),
        );
      const is: Expr = { kind: 'is', name: attr.name, value: lit.value };
      return { t: 'bool', e: op === '==' ? is : { kind: 'not', arg: is } };
    }
    if (left.t !== 'int' || right.t !== 'int')
      return this.bad(
        `${op} compares integers, or a string attribute with one of its values (got ${typeName(left)} and ${typeName(right)})`,
        r.pos,
      );
    return { t: 'bool', e: { kind: 'cmp', op, left: left.e, right: right.e } };
  }

  /** `a * b`: integers, or one float and integers (a product floor() or ceil() rounds). */
  private product(r: RawBinary): Typed {
    const left = this.resolve(r.left);
    const right = this.resolve(r.right);
    if (left.t === 'err' || right.t === 'err') return left.t === 'err' ? left : right;
    const real = left.t === 'real' ? left : right.t === 'real' ? right : undefined;
    if (!real)
      return {
        t: 'int',
        e: { kind: 'binary', op: '*', left: this.asInt(left, r.left.pos), right: this.asInt(right, r.right.pos) },
      };
    const other = real === left ? right : left;
    if (other.t !== 'int')
      return this.bad(
        'a float attribute may be multiplied only by an integer expression (one float per floor() or ceil())',
        r.pos,
      );
    const scale: Expr = real.scale ? { kind: 'binary', op: '*', left: real.scale, right: other.e } : other.e;
    return { t: 'real', scale, factor: real.factor };
  }

  private call(r: Extract<RawExpr, { kind: 'call' }>): Typed {
    if (r.fn === 'rank') return this.rank(r);
    if (r.fn === 'count') return this.count(r);
    if (r.fn === 'sizeof') return this.sizeOf(r);
    if (r.fn === 'numel') return this.numel(r);
    if (r.fn === 'len') {
      const arg = r.args.length === 1 && r.args[0]!.kind === 'name' ? r.args[0]!.name : undefined;
      return { t: 'int', e: this.cx.reading(readAttrLength(arg, this.cx.attrs), r.args[0]?.pos ?? r.pos, r.pos) };
    }
    if (!(EXPR_FUNCTIONS as readonly string[]).includes(r.fn))
      return this.bad(
        `unknown function \`${r.fn}\`; expected ${[...EXPR_FUNCTIONS, 'count', 'len', 'rank', 'sizeof'].join(', ')}`,
        r.pos,
        didYouMean(r.fn, [...EXPR_FUNCTIONS, 'count', 'len', 'rank', 'sizeof']),
      );
    if (r.fn === 'floor' || r.fn === 'ceil') {
      if (r.args.length !== 1) return this.bad(`${r.fn}() takes 1 argument, got ${r.args.length}`, r.pos);
      const x = this.resolve(r.args[0]!);
      if (x.t === 'int' || x.t === 'err') return x;
      if (x.t !== 'real')
        return this.bad(`${r.fn}() takes an integer times a float attribute, got ${typeName(x)}`, r.args[0]!.pos);
      return {
        t: 'int',
        e: { kind: 'round', fn: r.fn, scale: x.scale ?? { kind: 'int', value: 1 }, factor: x.factor },
      };
    }
    if (r.args.length !== 2) return this.bad(`${r.fn}() takes 2 arguments, got ${r.args.length}`, r.pos);
    return {
      t: 'int',
      e: { kind: 'call', fn: r.fn as 'ceil_div' | 'max' | 'min', args: [this.int(r.args[0]!), this.int(r.args[1]!)] },
    };
  }

  /** `sizeof(T)`: element bytes of a type variable's bound dtype (or of a dtype), in a workspace size. */
  private sizeOf(r: Extract<RawExpr, { kind: 'call' }>): Typed {
    const arg = r.args[0];
    if (r.args.length !== 1 || arg?.kind !== 'name')
      return this.bad('sizeof() takes one type variable or dtype: sizeof(T), sizeof(float32)', r.pos);
    if (!this.cx.sizeOf)
      return this.bad(
        'sizeof() is read in `workspace` only (and the lets it reads): shapes do not depend on dtypes',
        r.pos,
      );
    const read = this.cx.sizeOf(arg.name);
    return 'error' in read ? this.bad(read.error, arg.pos, read.hint) : { t: 'int', e: read };
  }

  /** `numel(x)`: the element count of an always-present input, in a Triton kernel's args and grid. */
  private numel(r: Extract<RawExpr, { kind: 'call' }>): Typed {
    const arg = r.args[0];
    if (r.args.length !== 1 || arg?.kind !== 'name')
      return this.bad('numel() takes the name of one input: numel(x)', r.pos);
    if (!this.cx.numel)
      return this.bad(
        "numel() is read in a Triton kernel's `args` and `grid` only (kernels.triton); elsewhere write the dims' product",
        r.pos,
      );
    const inp = this.cx.inputs.find((x) => x.name === arg.name && !x.variadic);
    if (inp) return { t: 'int', e: { kind: 'numel', input: inp.name, inputIndex: inp.index } };
    return this.bad(
      `\`${arg.name}\` is not an input numel() can read (an always-present input that is not variadic)`,
      arg.pos,
      didYouMean(
        arg.name,
        this.cx.inputs.map((x) => x.name),
      ),
    );
  }

  /** `count(x)`: the number of members of the variadic input x (its tensors in this call). */
  private count(r: Extract<RawExpr, { kind: 'call' }>): Typed {
    const arg = r.args[0];
    if (r.args.length !== 1 || arg?.kind !== 'name')
      return this.bad('count() takes the name of the variadic input: count(x)', r.pos);
    const inp = this.cx.inputs.find((x) => x.name === arg.name);
    if (inp?.variadic) return { t: 'int', e: { kind: 'count', input: inp.name, inputIndex: inp.index } };
    if (inp) return this.bad(`\`${arg.name}\` is not variadic: count() reads a variadic input's members`, arg.pos);
    return this.bad(
      `\`${arg.name}\` is not an input that can be read here`,
      arg.pos,
      didYouMean(
        arg.name,
        this.cx.inputs.filter((x) => x.variadic).map((x) => x.name),
      ),
    );
  }

  /** `rank(x)`: the rank of an input this expression may read. */
  private rank(r: Extract<RawExpr, { kind: 'call' }>): Typed {
    const arg = r.args[0];
    if (r.args.length !== 1 || arg?.kind !== 'name')
      return this.bad('rank() takes the name of one input: rank(x)', r.pos);
    const inp = this.cx.inputs.find((x) => x.name === arg.name);
    if (inp) return { t: 'int', e: this.cx.reading(readInputRank(inp), arg.pos, arg.pos) };
    return this.bad(
      `\`${arg.name}\` is not an input that can be read here (an input that is always present; an input's own constraint also reads earlier optional ones, not itself)`,
      arg.pos,
      didYouMean(
        arg.name,
        this.cx.inputs.map((x) => x.name),
      ),
    );
  }
}

type RawBinary = Extract<RawExpr, { kind: 'binary' }>;

function typeName(x: Typed): string {
  switch (x.t) {
    case 'int':
    case 'err':
      return 'an integer';
    case 'bool':
      return 'a condition';
    case 'real':
      return x.scale ? 'a float product' : `float attribute \`${formatFloatRef(x.factor)}\``;
    case 'str':
      return 'a string';
    case 'dims':
      return `the dims ${formatExpr(x.e)}`;
    case 'strattr':
      return `string attribute \`${x.name}\``;
  }
}

/** The message and hint for `x` where `wanted` is needed. */
function notAn(wanted: string, x: Typed, pos: number): [string, number, string | undefined] {
  const hint =
    x.t === 'bool'
      ? 'a condition gives no number: write `a if cond else b`'
      : x.t === 'real'
        ? 'round a float attribute: floor(x[2] * scale) or ceil(x[2] * scale)'
        : x.t === 'strattr'
          ? `compare it with one of its values: ${x.name} == '...'`
          : wanted === 'a condition'
            ? 'compare it: `x[0] % 2 == 0`, `k > 0`'
            : undefined;
  return [`expected ${wanted}, got ${typeName(x)}`, pos, hint];
}

/** `name[index]` of a `floats` attribute: an element, which must be within its declared length. */
function readFloatElement(
  a: AttributeIR,
  index: number,
): { factor: FloatRef } | { error: string; hint?: string; atIndex?: boolean } {
  if (a.length === undefined)
    return {
      error: `list attribute \`${a.name}\` has no declared length, so its elements cannot be indexed`,
      hint: `add \`length: N\` to attribute \`${a.name}\``,
    };
  const k = elementIndex(a.length, index);
  if (k === undefined) return { error: outsideList(a.name, a.length, index), atIndex: true };
  return { factor: { name: a.name, index: k } };
}
