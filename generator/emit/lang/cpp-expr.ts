// Compiles IR dim-expression trees to C++ int64 arithmetic and bool conditions (the op core's
// shape inference and checks).

import type { Expr, FloatRef } from '../../model/ir.js';
import { exprChildren } from '../../model/expr.js';
import { cppString } from './literals.js';
import { workspaceOnly } from '../../model/ir-helpers.js';

export interface CppExprEnv {
  /** C++ expression for dim `axis` of input `inputIndex` (negative: from the end). */
  dim(inputIndex: number, axis: number): string;
  /** C++ expression for the rank of input `inputIndex`, an int64_t. */
  rank(inputIndex: number): string;
  /** C++ expression for the member count of the variadic input at `inputIndex`, an int64_t. */
  count(inputIndex: number): string;
  /** C++ expression for the Shape of input `inputIndex` (checks' slices); absent where no check is compiled. */
  shape?(inputIndex: number): string;
  /** C++ expression for an int attribute. */
  attr(name: string): string;
  /** C++ expression of an attribute's field as stored (bool, float, std::string, std::vector). */
  attrList(name: string): string;
  /** C++ expression for the element count of input `inputIndex` (a Triton launch); absent elsewhere. */
  numel?(inputIndex: number): string;
  /** C++ expression for the DType of input `inputIndex` (sizeof in the workspace); absent elsewhere. */
  dtype?(inputIndex: number): string;
  /** Name of the `bool` that division by zero (or a rounded float out of int64) clears. */
  okVar: string;
}

export function cppExpr(e: Expr, env: CppExprEnv): string {
  const c = (x: Expr): string => cppExpr(x, env);
  switch (e.kind) {
    case 'int':
      return `int64_t{${e.value}}`;
    case 'dim':
      // A member other than the first exists where the count says so (a guard checks it; this
      // keeps the unchecked evaluation in bounds).
      if (e.member)
        return `(${env.count(e.inputIndex)} > ${e.member} ? ${env.dim(e.inputIndex + e.member, e.axis)} : int64_t{0})`;
      return env.dim(e.inputIndex, e.axis);
    case 'rank':
      return env.rank(e.inputIndex);
    case 'count':
      return env.count(e.inputIndex);
    case 'slice': {
      if (!env.shape) throw new Error('slices of dims are compiled in checks only');
      const bound = (b: Expr | null): string => (b === null ? 'opforge::kNoBound' : c(b));
      return `opforge::dimsSlice(${env.shape(e.inputIndex)}, ${bound(e.start)}, ${bound(e.end)})`;
    }
    case 'attr':
      return env.attr(e.name);
    case 'flag':
      return env.attrList(e.name);
    case 'is':
      return `(${env.attrList(e.name)} == ${cppString(e.value)})`;
    case 'elem':
      if (e.guarded) return `opforge::elementOr0(${env.attrList(e.name)}, ${e.index})`;
      return `static_cast<int64_t>(${cppElement(env.attrList(e.name), e.index)})`;
    case 'len':
      return `static_cast<int64_t>(${env.attrList(e.name)}.size())`;
    case 'numel':
      if (!env.numel) throw new Error(`numel(${e.input}) is read in a Triton kernel's args and grid only`);
      return env.numel(e.inputIndex);
    case 'sizeof':
      if (!env.dtype) return workspaceOnly(e);
      return `static_cast<int64_t>(opforge::dtypeSize(${env.dtype(e.inputIndex)}))`;
    case 'round':
      return `opforge::${e.fn}Scaled(${c(e.scale)}, ${cppFloatRef(e.factor, env)}, ${env.okVar})`;
    case 'binary': {
      if (e.op === '//') return `opforge::floorDiv(${c(e.left)}, ${c(e.right)}, ${env.okVar})`;
      if (e.op === '%') return `opforge::floorMod(${c(e.left)}, ${c(e.right)}, ${env.okVar})`;
      return `(${c(e.left)} ${e.op} ${c(e.right)})`;
    }
    case 'call': {
      const a = c(e.args[0]);
      const b = c(e.args[1]);
      if (e.fn === 'ceil_div') return `opforge::ceilDiv(${a}, ${b}, ${env.okVar})`;
      return `opforge::${e.fn === 'max' ? 'maxDim' : 'minDim'}(${a}, ${b})`;
    }
    case 'cmp':
      if (e.left.kind === 'slice') return `opforge::sameDims(${c(e.left)}, ${c(e.right)}, ${e.op === '=='})`;
      return `(${c(e.left)} ${e.op} ${c(e.right)})`;
    case 'logic':
      return `(${c(e.left)} ${e.op === 'and' ? '&&' : '||'} ${c(e.right)})`;
    case 'not':
      return `!${c(e.arg)}`;
    case 'cond':
      return `(${c(e.cond)} ? ${c(e.yes)} : ${c(e.no)})`;
  }
}

/** A float attribute or element as the op core stores it (float32). */
export function cppFloatRef(f: FloatRef, env: Pick<CppExprEnv, 'attrList'>): string {
  return f.index === undefined ? env.attrList(f.name) : cppElement(env.attrList(f.name), f.index);
}

/** Element `index` of a list attribute's vector (negative: from the end, for a list of several lengths). */
export function cppElement(list: string, index: number): string {
  return index < 0 ? `${list}[${list}.size() - ${-index}]` : `${list}[${index}]`;
}

/** Whether evaluating the expression can fail (division by zero, a rounded float out of int64): it needs `ok`. */
export function exprUsesDivision(e: Expr): boolean {
  if (e.kind === 'binary' && (e.op === '//' || e.op === '%')) return true;
  if (e.kind === 'call' && e.fn === 'ceil_div') return true;
  if (e.kind === 'round') return true;
  return exprChildren(e).some(exprUsesDivision);
}
