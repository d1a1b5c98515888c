// Prints IR dim-expression trees as Python: plain integer arithmetic by default (PopRT's
// custom_shape_inference.py; Python's // is floor division, as in the spec; ceil_div(a, b) is
// -((-a) // b); division by zero raises ZeroDivisionError, "cannot infer"), or calls of helpers
// an environment names (opforge_ops, whose dims may be SymInts, ONNX dim names or unknown).

import type { Expr } from '../../model/ir.js';
import { type PyValue, pyTuple } from './python.js';

export interface PyExprEnv {
  /** Python expression for dim `axis` of input `inputIndex`. */
  dim(inputIndex: number, axis: number): string;
  /** Python expression for an attribute (an int, or a list that elem/len read). */
  attr(name: string): string;
  /** When set, every operation becomes a call of the helper this returns a name for. */
  helper?(op: '+' | '-' | '*' | '//' | 'ceil_div' | 'max' | 'min'): string;
}

export function pyExpr(e: Expr, env: PyExprEnv): string {
  switch (e.kind) {
    case 'int':
      return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'dim':
      return env.dim(e.inputIndex, e.axis);
    case 'attr':
      return env.attr(e.name);
    case 'elem':
      return `${env.attr(e.name)}[${e.index}]`;
    case 'len':
      return `len(${env.attr(e.name)})`;
    case 'binary': {
      if (env.helper) return `${env.helper(e.op)}(${pyExpr(e.left, env)}, ${pyExpr(e.right, env)})`;
      return `(${pyExpr(e.left, env)} ${e.op} ${pyExpr(e.right, env)})`;
    }
    case 'call': {
      const a = pyExpr(e.args[0], env);
      const b = pyExpr(e.args[1], env);
      if (env.helper) return `${env.helper(e.fn)}(${a}, ${b})`;
      if (e.fn === 'ceil_div') return `(-((-${a}) // ${b}))`;
      return `${e.fn}(${a}, ${b})`;
    }
  }
}

/**
 * A dim expression as the data the shared evaluator (generator/static/python/shared/_dims.py)
 * reads: an int, ('dim', input, axis), ('attr', name), ('elem', name, index), ('len', name) or
 * (operator, a, b).
 */
export function pyExprData(e: Expr): PyValue {
  switch (e.kind) {
    case 'int':
      return e.value;
    case 'dim':
      return pyTuple(['dim', e.inputIndex, e.axis]);
    case 'attr':
      return pyTuple(['attr', e.name]);
    case 'elem':
      return pyTuple(['elem', e.name, e.index]);
    case 'len':
      return pyTuple(['len', e.name]);
    case 'binary':
      return pyTuple([e.op, pyExprData(e.left), pyExprData(e.right)]);
    case 'call':
      return pyTuple([e.fn, pyExprData(e.args[0]), pyExprData(e.args[1])]);
  }
}
