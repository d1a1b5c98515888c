// Prints IR dim-expression trees as Python: plain integer arithmetic by default (PopRT's
// custom_shape_inference.py; Python's // and % are floor division and modulo, as in the spec;
// ceil_div(a, b) is -((-a) // b); division by zero raises ZeroDivisionError, "cannot infer"), or
// calls of helpers an environment names (opforge_ops, whose dims may be SymInts, ONNX dim names or
// unknown). Conditions print as Python's own `and`, `or`, `not` and `a if c else b`.

import type { Expr, FloatRef } from '../../model/ir.js';
import { workspaceOnly } from '../../model/ir-helpers.js';
import { type PyValue, pyTuple } from './python.js';

export type PyHelperOp =
  | '+'
  | '-'
  | '*'
  | '//'
  | '%'
  | 'ceil_div'
  | 'max'
  | 'min'
  | 'floor'
  | 'ceil'
  | 'cmp'
  | 'and'
  | 'or'
  | 'not'
  | 'if';

export interface PyExprEnv {
  /** Python expression for dim `axis` of input `inputIndex` (negative: from the end). */
  dim(inputIndex: number, axis: number): string;
  /** Python expression for the rank of input `inputIndex`. */
  rank(inputIndex: number): string;
  /** Python expression for the member count of the variadic input at `inputIndex`. */
  count(inputIndex: number): string;
  /** Python expression for an attribute (an int, bool, str, float, or a list that elem/len read). */
  attr(name: string): string;
  /**
   * When set, every operation becomes a call of the helper this returns a name for; `and`, `or`
   * and `if` take their lazy operands as lambdas (an untaken side may divide by zero).
   */
  helper?(op: PyHelperOp): string;
  /** Without helpers: the name of a function `(fn, scale, f)` giving floor/ceil of scale * float32(f). */
  scaled?: string;
}

export function pyExpr(e: Expr, env: PyExprEnv): string {
  const p = (x: Expr): string => pyExpr(x, env);
  const h = env.helper;
  switch (e.kind) {
    case 'int':
      return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'dim':
      if (e.member)
        return `(${env.dim(e.inputIndex + e.member, e.axis)} if ${env.count(e.inputIndex)} > ${e.member} else 0)`;
      return env.dim(e.inputIndex, e.axis);
    case 'rank':
      return env.rank(e.inputIndex);
    case 'count':
      return env.count(e.inputIndex);
    case 'slice':
      throw new Error('slices of dims are compared in checks only, which the Python packages evaluate as data');
    case 'sizeof':
      return workspaceOnly(e);
    case 'numel':
      throw new Error(
        `numel(${e.input}) is read in a Triton kernel's args and grid only, which Python never evaluates`,
      );
    case 'attr':
    case 'flag':
      return env.attr(e.name);
    case 'is':
      return `(${env.attr(e.name)} == ${JSON.stringify(e.value)})`;
    case 'elem':
      if (e.guarded) return `(${env.attr(e.name)}[${e.index}] if len(${env.attr(e.name)}) > ${e.index} else 0)`;
      return `${env.attr(e.name)}[${e.index}]`;
    case 'len':
      return `len(${env.attr(e.name)})`;
    case 'round':
      if (h) return `${h(e.fn)}(${p(e.scale)}, ${pyFloat(e.factor, env)})`;
      return `${env.scaled ?? '_scaled'}(${JSON.stringify(e.fn)}, ${p(e.scale)}, ${pyFloat(e.factor, env)})`;
    case 'binary':
      if (h) return `${h(e.op)}(${p(e.left)}, ${p(e.right)})`;
      return `(${p(e.left)} ${e.op} ${p(e.right)})`;
    case 'call': {
      const a = p(e.args[0]);
      const b = p(e.args[1]);
      if (h) return `${h(e.fn)}(${a}, ${b})`;
      if (e.fn === 'ceil_div') return `(-((-${a}) // ${b}))`;
      return `${e.fn}(${a}, ${b})`;
    }
    case 'cmp':
      if (h) return `${h('cmp')}(${JSON.stringify(e.op)}, ${p(e.left)}, ${p(e.right)})`;
      return `(${p(e.left)} ${e.op} ${p(e.right)})`;
    case 'logic':
      if (h) return `${h(e.op)}(${p(e.left)}, lambda: ${p(e.right)})`;
      return `(${p(e.left)} ${e.op} ${p(e.right)})`;
    case 'not':
      if (h) return `${h('not')}(${p(e.arg)})`;
      return `(not ${p(e.arg)})`;
    case 'cond':
      if (h) return `${h('if')}(${p(e.cond)}, lambda: ${p(e.yes)}, lambda: ${p(e.no)})`;
      return `(${p(e.yes)} if ${p(e.cond)} else ${p(e.no)})`;
  }
}

function pyFloat(f: FloatRef, env: PyExprEnv): string {
  return f.index === undefined ? env.attr(f.name) : `${env.attr(f.name)}[${f.index}]`;
}

/**
 * A dim expression as the data the shared evaluator (generator/static/python/shared/_dims.py)
 * reads: an int, ('dim', input, axis), ('rank', input), ('slice', input, start, end) (a check's
 * == or != operand), ('attr', name), ('elem', name, index), ('len', name),
 * ('flag', name), ('is', name, value), ('floor' | 'ceil', scale, name, index or None),
 * ('not', a), ('if', cond, a, b) or (operator, a, b) for + - * // % ceil_div max min, the
 * comparisons, and, or.
 */
export function pyExprData(e: Expr): PyValue {
  // Each tuple is tagged with the IR node's own kind, except where the evaluator names it otherwise.
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'dim':
      return pyTuple([e.kind, e.inputIndex + (e.member ?? 0), e.axis]);
    case 'rank':
    case 'count':
      return pyTuple([e.kind, e.inputIndex]);
    case 'slice':
      return pyTuple([
        e.kind,
        e.inputIndex,
        e.start === null ? null : pyExprData(e.start),
        e.end === null ? null : pyExprData(e.end),
      ]);
    case 'attr':
    case 'flag':
    case 'len':
      return pyTuple([e.kind, e.name]);
    case 'is':
      return pyTuple([e.kind, e.name, e.value]);
    case 'elem':
      return pyTuple([e.kind, e.name, e.index]);
    case 'sizeof':
      return workspaceOnly(e);
    case 'numel':
      throw new Error(
        `numel(${e.input}) is read in a Triton kernel's args and grid only, which Python never evaluates`,
      );
    case 'round':
      return pyTuple([e.fn, pyExprData(e.scale), e.factor.name, e.factor.index ?? null]);
    case 'binary':
    case 'cmp':
    case 'logic':
      return pyTuple([e.op, pyExprData(e.left), pyExprData(e.right)]);
    case 'call':
      return pyTuple([e.fn, pyExprData(e.args[0]), pyExprData(e.args[1])]);
    case 'not':
      return pyTuple([e.kind, pyExprData(e.arg)]);
    case 'cond':
      return pyTuple(['if', pyExprData(e.cond), pyExprData(e.yes), pyExprData(e.no)]);
  }
}
