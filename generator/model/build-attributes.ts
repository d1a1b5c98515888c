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
  if ((a.min !== undefined || a.max !== undefined) && !numeric)
    err([...p, a.min !== undefined ? 'min' : 'max'], `\`min\`/\`max\` apply to numeric attributes, not ${a.type}`);
  if (a.min !== undefined && a.max !== undefined && a.min > a.max)
    err([...p, 'min'], `min ${a.min} is greater than max ${a.max}`);
  const intLike = a.type === 'int' || a.type === 'ints' || a.type === 'bool';
  if (intLike)
    for (const k of ['min', 'max'] as const) {
      const v = a[k];
      if (v !== undefined && (!Number.isSafeInteger(v) || Math.abs(v) > INT32_MAX))
        err([...p, k], `\`${k}\` of an ${a.type} attribute must be an integer within int32, got ${shown(v)}`);
    }
  if (a.length !== undefined && !info.isList)
    err([...p, 'length'], `\`length: ${shown(a.length)}\` applies to list attributes (ints, floats), not ${a.type}`);
  else if (a.length !== undefined && (!Number.isSafeInteger(a.length) || a.length < 0 || a.length > MAX_LIST))
    err([...p, 'length'], `\`length\` must be an integer from 0 to ${MAX_LIST}, got ${shown(a.length)}`);
  const length = info.isList ? a.length : undefined;
  let def: AttrValue | undefined;
  if (a.default !== undefined) {
    const problem = checkAttrValue(a.default, { type: a.type, enum: a.enum, min: a.min, max: a.max, length });
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
    min: a.min,
    max: a.max,
    length,
    description: a.description ?? '',
  };
}

// Values land in C++, Python and TS literals and in 32-bit TensorRT fields: keep them in range (limits.ts).

/** Checks a value against an attribute's type and constraints; returns the problem or undefined. */
export function checkAttrValue(
  v: unknown,
  a: {
    type: AttrType;
    enum?: (string | number)[] | undefined;
    min?: number | undefined;
    max?: number | undefined;
    length?: number | undefined;
  },
): string | undefined {
  const inRange = (x: number): string | undefined => {
    if (a.min !== undefined && x < a.min) return `${x} is below the minimum ${a.min}`;
    if (a.max !== undefined && x > a.max) return `${x} is above the maximum ${a.max}`;
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
      if (a.length !== undefined && v.length !== a.length)
        return `must have exactly ${a.length} elements (its length), got ${v.length}`;
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

export function normalizeAttrValue(v: unknown, type: AttrType): AttrValue {
  if (type === 'ints' || type === 'floats') return [...(v as number[])];
  return v as AttrValue;
}
