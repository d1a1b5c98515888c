// Compiles IR dim-expression trees to C++ int64 arithmetic (the op core's shape inference).

import type { Expr } from '../../model/ir.js';

export interface CppExprEnv {
  /** C++ expression for dim `axis` of input `inputIndex`. */
  dim(inputIndex: number, axis: number): string;
  /** C++ expression for an int attribute. */
  attr(name: string): string;
  /** C++ expression of a list attribute's std::vector (validate() has checked its declared length). */
  attrList(name: string): string;
  /** Name of the `bool` that division by zero clears. */
  okVar: string;
}

export function cppExpr(e: Expr, env: CppExprEnv): string {
  switch (e.kind) {
    case 'int':
      return e.value < 0 ? `int64_t{${e.value}}` : `int64_t{${e.value}}`;
    case 'dim':
      return env.dim(e.inputIndex, e.axis);
    case 'attr':
      return env.attr(e.name);
    case 'elem':
      return `static_cast<int64_t>(${env.attrList(e.name)}[${e.index}])`;
    case 'len':
      return `static_cast<int64_t>(${env.attrList(e.name)}.size())`;
    case 'binary': {
      const a = cppExpr(e.left, env);
      const b = cppExpr(e.right, env);
      if (e.op === '//') return `opforge::floorDiv(${a}, ${b}, ${env.okVar})`;
      return `(${a} ${e.op} ${b})`;
    }
    case 'call': {
      const a = cppExpr(e.args[0], env);
      const b = cppExpr(e.args[1], env);
      if (e.fn === 'ceil_div') return `opforge::ceilDiv(${a}, ${b}, ${env.okVar})`;
      return `opforge::${e.fn === 'max' ? 'maxDim' : 'minDim'}(${a}, ${b})`;
    }
  }
}

export function exprUsesDivision(e: Expr): boolean {
  if (e.kind === 'binary') return e.op === '//' || exprUsesDivision(e.left) || exprUsesDivision(e.right);
  if (e.kind === 'call') return e.fn === 'ceil_div' || exprUsesDivision(e.args[0]) || exprUsesDivision(e.args[1]);
  return false;
}
