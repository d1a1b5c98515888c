// Compiles IR dim-expression trees to Python over the runtime's dim helpers, which accept ints,
// torch SymInts (fake tensors), ONNX dim_param names and unknown (None) dims alike.

import type { Expr } from '../../ir.js';

const BINARY: Record<'+' | '-' | '*' | '//', string> = { '+': 'add', '-': 'sub', '*': 'mul', '//': 'floordiv' };
const CALL: Record<'ceil_div' | 'max' | 'min', string> = { ceil_div: 'ceil_div', max: 'max_', min: 'min_' };

/** Python expression for a dim; `shapes` and `attrs` are the shape function's parameters. */
export function pyExpr(e: Expr): string {
  switch (e.kind) {
    case 'int': return String(e.value);
    case 'dim': return `_rt.dim(shapes, ${e.inputIndex}, ${e.axis})`;
    case 'attr': return `attrs[${JSON.stringify(e.name)}]`;
    case 'binary': return `_rt.${BINARY[e.op]}(${pyExpr(e.left)}, ${pyExpr(e.right)})`;
    case 'call': return `_rt.${CALL[e.fn]}(${pyExpr(e.args[0])}, ${pyExpr(e.args[1])})`;
  }
}
