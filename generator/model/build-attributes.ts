import type { KeyPath } from './diagnostics.js';
import { shown } from './diagnostics.js';
import type { AttrValue, AttributeIR } from './ir.js';
import { FLOAT32_MAX, INT32_MAX, MAX_LIST, MAX_STRING } from './limits.js';
import { idents } from './names.js';
import { ATTR_INFO, type AttrType } from './type-table.js';
import type { ErrFn, RawAttr } from './build-ir.js';

export function buildAttribute(a: RawAttr, p: KeyPath, err: ErrFn): AttributeIR {
  const info = ATTR_INFO[a.type];
  const required = a.required ?? false;
  if (required && a.default !== undefined)
    err([...p, 'default'], 'an attribute cannot be both required and have a default');
  if (!required && a.default === undefined)
    err([...p, 'name'], `attribute \`${a.name}\` needs a \`default\` or \`required: true\``);
  if (a.enum && a.type !== 'string' && a.type !== 'int')
    err([...p, 'enum'], `\`enum\` applies to string and int attributes, not ${a.type}`);
  if (a.enum)
    a.enum.forEach((v, k) => {
      if (a.type === 'string' && typeof v !== 'string')
        err([...p, 'enum', k], `expected a string (the attribute is a string), got ${shown(v)}`);
      if (a.type === 'int' && !Number.isSafeInteger(v))
        err([...p, 'enum', k], `expected an integer (the attribute is an int), got ${shown(v)}`);
    });
  const numeric = a.type === 'int' || a.type === 'float' || a.type === 'ints' || a.type === 'floats';
  const boundKeys = (['min', 'max', 'exclusive_min', 'exclusive_max'] as const).filter((k) => a[k] !== undefined);
  if (boundKeys.length && !numeric)
    err(
      [...p, boundKeys[0]!],
      `\`${boundKeys[0]}: ${shown(a[boundKeys[0]!])}\` applies to numeric attributes, not ${a.type}`,
    );
  for (const side of ['min', 'max'] as const)
    if (a[side] !== undefined && a[`exclusive_${side}`] !== undefined)
      err(
        [...p, `exclusive_${side}`],
        `\`${side}: ${shown(a[side])}\` and \`exclusive_${side}: ${shown(a[`exclusive_${side}`])}\` both bound the value ${side === 'min' ? 'from below' : 'from above'}: keep one`,
      );
  const bounds = attrBounds(a);
  if (bounds.min !== undefined && bounds.max !== undefined) {
    const empty = bounds.minExclusive || bounds.maxExclusive ? bounds.min >= bounds.max : bounds.min > bounds.max;
    if (empty)
      err(
        [...p, bounds.minExclusive ? 'exclusive_min' : 'min'],
        `no value lies between ${boundText(bounds, 'min')} and ${boundText(bounds, 'max')}`,
      );
  }
  const intLike = a.type === 'int' || a.type === 'ints' || a.type === 'bool';
  if (intLike)
    for (const k of ['min', 'max', 'exclusive_min', 'exclusive_max'] as const) {
      const v = a[k];
      if (v !== undefined && (!Number.isSafeInteger(v) || Math.abs(v) > INT32_MAX))
        err([...p, k], `\`${k}\` of an ${a.type} attribute must be an integer within int32, got ${shown(v)}`);
    }
  const counts = a.length === undefined ? undefined : Array.isArray(a.length) ? a.length : [a.length];
  if (counts !== undefined && !info.isList)
    err([...p, 'length'], `\`length: ${shown(a.length)}\` applies to list attributes (ints, floats), not ${a.type}`);
  else if (counts?.some((n) => !Number.isSafeInteger(n) || n < 0 || n > MAX_LIST))
    err(
      [...p, 'length'],
      `\`length\` must be an integer from 0 to ${MAX_LIST} (or a list of them), got ${shown(a.length)}`,
    );
  else if (counts && new Set(counts).size !== counts.length)
    err([...p, 'length'], `\`length\` lists a count twice: ${shown(a.length)}`);
  const length = info.isList && counts ? [...counts].sort((x, y) => x - y) : undefined;
  let def: AttrValue | undefined;
  if (a.default !== undefined) {
    const problem = checkAttrValue(a.default, { type: a.type, enum: a.enum, ...bounds, length });
    if (problem) err([...p, 'default'], `default ${problem}`);
    else def = normalizeAttrValue(a.default, a.type);
  }
  return {
    name: a.name,
    ident: idents(a.name),
    type: a.type,
    required,
    default: def,
    enum: a.enum ? [...a.enum] : undefined,
    ...bounds,
    length,
    description: a.description ?? '',
  };
}

/** The spec's bounds as the IR holds them: one lower and one upper, each inclusive or not. */
function attrBounds(a: RawAttr): Pick<AttributeIR, 'min' | 'minExclusive' | 'max' | 'maxExclusive'> {
  return {
    min: a.min ?? a.exclusive_min,
    minExclusive: a.min === undefined && a.exclusive_min !== undefined,
    max: a.max ?? a.exclusive_max,
    maxExclusive: a.max === undefined && a.exclusive_max !== undefined,
  };
}

/** A bound as a condition on the value: `>= 1`, `> 0`. */
function boundText(a: Pick<AttributeIR, 'min' | 'minExclusive' | 'max' | 'maxExclusive'>, side: 'min' | 'max'): string {
  return side === 'min' ? `${a.minExclusive ? '>' : '>='} ${a.min}` : `${a.maxExclusive ? '<' : '<='} ${a.max}`;
}

// Values land in C++, Python and TS literals and in 32-bit TensorRT fields: keep them in range (limits.ts).

/** Checks a value against an attribute's type and constraints; returns the problem or undefined. */
export function checkAttrValue(
  v: unknown,
  a: {
    type: AttrType;
    enum?: (string | number)[] | undefined;
    min?: number | undefined;
    minExclusive?: boolean;
    max?: number | undefined;
    maxExclusive?: boolean;
    length?: readonly number[] | undefined;
  },
): string | undefined {
  const inRange = (x: number): string | undefined => {
    if (a.min !== undefined && (x < a.min || (a.minExclusive && x === a.min)))
      return a.minExclusive ? `${x} is not above the exclusive minimum ${a.min}` : `${x} is below the minimum ${a.min}`;
    if (a.max !== undefined && (x > a.max || (a.maxExclusive && x === a.max)))
      return a.maxExclusive ? `${x} is not below the exclusive maximum ${a.max}` : `${x} is above the maximum ${a.max}`;
    return undefined;
  };
  const isInt = (x: unknown): x is number =>
    typeof x === 'number' && Number.isSafeInteger(x) && Math.abs(x) <= INT32_MAX;
  const isFloat = (x: unknown): x is number =>
    typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= FLOAT32_MAX;
  switch (a.type) {
    case 'bool':
      return typeof v === 'boolean' ? undefined : `must be true or false, got ${shown(v)}`;
    case 'int':
      if (!isInt(v)) return `must be an integer within int32, got ${shown(v)}`;
      if (a.enum && !a.enum.includes(v)) return `must be one of ${a.enum.join(', ')}, got ${shown(v)}`;
      return inRange(v);
    case 'float':
      if (!isFloat(v)) return `must be a finite number within float32, got ${shown(v)}`;
      return inRange(v);
    case 'string':
      if (typeof v !== 'string') return `must be a string, got ${shown(v)}`;
      if (v.length > MAX_STRING) return `must be at most ${MAX_STRING} characters, got ${v.length}`;
      if (v.includes('\0')) return `must not contain NUL characters, got ${shown(v)}`;
      if (a.enum && !a.enum.includes(v)) return `must be one of ${a.enum.join(', ')}, got ${shown(v)}`;
      return undefined;
    case 'ints':
    case 'floats': {
      if (!Array.isArray(v)) return `must be a list of ${a.type === 'ints' ? 'integers' : 'numbers'}, got ${shown(v)}`;
      if (v.length > MAX_LIST) return `must have at most ${MAX_LIST} elements, got ${v.length}`;
      if (a.length !== undefined && !a.length.includes(v.length))
        return `must have ${lengthText(a.length)} elements (its length), got ${v.length}`;
      for (const x of v) {
        if (a.type === 'ints' ? !isInt(x) : !isFloat(x))
          return `must be a list of ${a.type === 'ints' ? 'integers within int32' : 'finite float32 numbers'}, got ${shown(x)} in it`;
        const r = inRange(x as number);
        if (r) return r;
      }
      return undefined;
    }
  }
}

/** Allowed element counts as messages give them: `exactly 2`, `2 or 4`. */
export function lengthText(counts: readonly number[]): string {
  if (counts.length === 1) return `exactly ${counts[0]}`;
  return `${counts.slice(0, -1).join(', ')} or ${counts[counts.length - 1]}`;
}

export function normalizeAttrValue(v: unknown, type: AttrType): AttrValue {
  if (type === 'ints' || type === 'floats') return [...(v as number[])];
  return v as AttrValue;
}
