// The conversions between a framework's dtype enum and opforge::DType that each backend's dtype.h
// holds, printed from the type table: `from<X>` (false for the framework's dtypes opforge has no
// counterpart for) and, where the backend needs it, `to<X>`.

import { DTYPES, type DType, DTYPE_INFO } from '../../model/type-table.js';
import { lines, paragraphs } from '../emitter.js';
import { docComment } from './cpp.js';

export interface DtypeMap {
  /** The framework's name in the functions: `Paddle` gives fromPaddle / toPaddle. */
  name: string;
  /** Its dtype type, e.g. `::paddle::DataType`. */
  type: string;
  /** Its enumerator for each dtype. */
  of: (d: DType) => string;
  /** What its dtypes without a counterpart are, for fromX's comment. */
  unmatched: string;
  /** toX's value after the switch (every DType is a case; the compiler wants a return), when toX is printed. */
  undefinedValue?: string;
}

const ours = (d: DType): string => `DType::${DTYPE_INFO[d].cppEnum}`;

/** `switch (t) { case ...: statement ... }` over every dtype, `after` closing it. */
export function dtypeSwitch(
  label: (d: DType) => string,
  statement: (d: DType) => string,
  after: readonly string[],
): string[] {
  return ['  switch (t) {', ...DTYPES.map((d) => `    case ${label(d)}: ${statement(d)}`), ...after];
}

/** fromX and, with `undefinedValue`, toX. */
export function dtypeMapFunctions(m: DtypeMap): string {
  return paragraphs(
    [
      docComment(`The opforge dtype of a ${m.type}; false for ${m.unmatched}.`),
      `inline bool from${m.name}(${m.type} t, DType* out) {`,
      ...dtypeSwitch(m.of, (d) => `*out = ${ours(d)}; return true;`, ['    default: return false;', '  }']),
      '}',
    ],
    m.undefinedValue !== undefined &&
      lines(
        docComment(`The ${m.type} of an opforge dtype.`),
        `inline ${m.type} to${m.name}(DType t) {`,
        dtypeSwitch(ours, (d) => `return ${m.of(d)};`, ['  }', `  return ${m.undefinedValue};`]),
        '}',
      ),
  );
}
