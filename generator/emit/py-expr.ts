// Prints IR dim-expression trees as Python integer arithmetic (custom_shape_inference.py for
// PopRT). Python's // is floor division, as in the spec; ceil_div(a, b) is -((-a) // b). Division
// by zero raises ZeroDivisionError, which the generated code treats as "cannot infer".

import type { Expr } from '../ir.js';

export interface PyExprEnv {
  /** Python expression for dim `axis` of input `inputIndex`. */
  dim(inputIndex: number, axis: number): string;
  /** Python expression for an int attribute. */
  attr(name: string): string;
}

export function pyExpr(e: Expr, env: PyExprEnv): string {
  switch (e.kind) {
    case 'int': return e.value < 0 ? `(${e.value})` : String(e.value);
    case 'dim': return env.dim(e.inputIndex, e.axis);
    case 'attr': return env.attr(e.name);
    case 'binary': return `(${pyExpr(e.left, env)} ${e.op} ${pyExpr(e.right, env)})`;
    case 'call': {
      const a = pyExpr(e.args[0], env);
      const b = pyExpr(e.args[1], env);
      if (e.fn === 'ceil_div') return `(-((-${a}) // ${b}))`;
      return `${e.fn}(${a}, ${b})`;
    }
  }
}
