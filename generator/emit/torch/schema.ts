// The TORCH_LIBRARY schema of an op, shared by the C++ extension (m.def) and the Python package
// (torch.library.custom_op), so both define exactly the same operator.

import type { AttrValue, AttributeIR, OpIR } from '../../model/ir.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { plainFloat } from '../lang/literals.js';

/** A default value in schema syntax (Python-like literals). */
function schemaDefault(a: AttributeIR, v: AttrValue): string {
  switch (a.type) {
    case 'bool':
      return v ? 'True' : 'False';
    case 'int':
      return String(v);
    case 'float':
      return plainFloat(v as number);
    case 'string':
      return JSON.stringify(v);
    case 'ints':
      return `[${(v as number[]).join(', ')}]`;
    case 'floats':
      return `[${(v as number[]).map(plainFloat).join(', ')}]`;
  }
}

/**
 * `(Tensor x, *, float alpha=0.0) -> Tensor`: inputs positional, attributes keyword-only, so
 * every caller (eager, fake, reference) passes attributes by name.
 */
export function torchSchemaArgs(op: OpIR): string {
  const args = op.inputs.map((i) => `Tensor${i.variadic ? '[]' : i.optional ? '?' : ''} ${i.name}`);
  if (op.attributes.length > 0) {
    args.push('*');
    for (const a of op.attributes) {
      const def = a.default === undefined ? '' : `=${schemaDefault(a, a.default)}`;
      args.push(`${ATTR_INFO[a.type].torchSchema} ${a.name}${def}`);
    }
  }
  const ret = op.outputs.length === 1 ? 'Tensor' : `(${op.outputs.map(() => 'Tensor').join(', ')})`;
  return `(${args.join(', ')}) -> ${ret}`;
}

export function torchSchema(op: OpIR): string {
  return `${op.ident.snake}${torchSchemaArgs(op)}`;
}
