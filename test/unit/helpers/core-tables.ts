// Reads back the constexpr tables of an op core header (include/opforge/ops/<op>.h) and the
// switch-statement mappings of the backends' dtype headers, so a backend test checks the values a
// backend reads (an attribute's type and required flag, a port's dtype under a binding) where they
// now live: in the op core, turned into the backend's types by a mapping the backend emits.

import * as assert from 'uvu/assert';
import { coreEmitter } from '../../../generator/emit/core/index.js';
import type { ProjectIR } from '../../../generator/model/ir.js';
import { file } from './emitted.js';

/** A braced initializer: scalars as their trimmed source text, nested braces as arrays. */
export type Init = string | Init[];

/** The op core header of the op named `snake` (snake_case), as the core emitter writes it. */
export function coreHeader(project: ProjectIR, snake: string): string {
  return file(coreEmitter.emit(project), `include/opforge/ops/${snake}.h`);
}

/** `text` with `//` and block comments blanked out (string and char literals are kept whole). */
function stripComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) =>
    m.startsWith('/') ? ' ' : m,
  );
}

/** The initializer of the array or constant `name` (`name[...] = {...}` or `name = {...}`), parsed. */
export function cppInit(text: string, name: string): Init[] {
  const src = stripComments(text);
  const head = new RegExp(`(?<![\\w:])${name}\\s*(?:\\[[^\\]=;]*\\]\\s*)*=\\s*\\{`).exec(src);
  assert.ok(head, `no initializer of ${name}`);
  const tokens = src
    .slice(head.index + head[0].length - 1)
    .match(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|[{},]|[^{},"']+/g);
  assert.ok(tokens, `empty initializer of ${name}`);
  let i = 0;
  // Parses the list opening at tokens[i] ('{') up to its '}'.
  const list = (): Init[] => {
    i++;
    const items: Init[] = [];
    let cur = '';
    let nested: Init[] | undefined;
    const push = (): void => {
      if (nested) items.push(nested);
      else if (cur.trim() !== '') items.push(cur.trim());
      cur = '';
      nested = undefined;
    };
    while (i < tokens.length) {
      const t = tokens[i]!;
      if (t === '{') {
        nested = list();
        continue;
      }
      i++;
      if (t === '}') break;
      if (t === ',') push();
      else cur += t;
    }
    push();
    return items;
  };
  return list();
}

/** A scalar of an initializer (a nested list is a test failure). */
function scalar(v: Init | undefined, what: string): string {
  assert.ok(typeof v === 'string', `${what}: expected a scalar, got ${JSON.stringify(v)}`);
  return v;
}

/** A C++ string literal of the tables (plain names: JSON's escapes suffice). */
function cString(v: Init | undefined, what: string): string {
  const s = scalar(v, what);
  assert.match(s, /^"(?:[^"\\]|\\.)*"$/, `${what}: not a string literal`);
  return JSON.parse(s) as string;
}

/** An integer constant `name = N` of the header. */
export function cppInt(text: string, name: string): number {
  const m = new RegExp(`(?<![\\w:])${name}\\s*=\\s*(-?\\d+)`).exec(text);
  assert.ok(m, `no constant ${name}`);
  return Number(m[1]);
}

/** One row of the op core's kAttributes: what every backend reads an attribute by. */
export interface AttrRow {
  name: string;
  /** The AttrType enumerator without its scope: kFloat, kInts, ... */
  type: string;
  required: boolean;
}

/** The op core's kAttributes rows, in table order. */
export function attrRows(header: string): AttrRow[] {
  return cppInit(header, 'kAttributes').map((row, k) => {
    assert.ok(Array.isArray(row) && row.length === 3, `kAttributes[${k}]: ${JSON.stringify(row)}`);
    const type = scalar(row[1], `kAttributes[${k}].type`);
    const required = scalar(row[2], `kAttributes[${k}].required`);
    assert.ok(required === 'true' || required === 'false', `kAttributes[${k}].required: ${required}`);
    return {
      name: cString(row[0], `kAttributes[${k}].name`),
      type: type.replace(/^AttrType::/, ''),
      required: required === 'true',
    };
  });
}

/** The attribute names visitFields() visits, in order (serialization and the generic readers follow it). */
export function visitedFields(header: string): string[] {
  return [...header.matchAll(/\bf\(\s*attrs\.(\w+)\s*,\s*"(\w+)"\s*\)/g)].map((m) => {
    assert.is(m[1], m[2], `visitFields names attrs.${m[1]} "${m[2]}"`);
    return m[1]!;
  });
}

/** The op core's dtype bindings: each binding's name and every port's DType (inputs, then outputs). */
export function bindingRows(header: string): { name: string; dtypes: string[] }[] {
  const ports = cppInt(header, 'kNumInputs') + cppInt(header, 'kNumOutputs');
  const names = cppInit(header, 'kBindingNames').map((n, b) => cString(n, `kBindingNames[${b}]`));
  const flat = cppInit(header, 'kBindingDtypes').map((d, k) => scalar(d, `kBindingDtypes[${k}]`));
  assert.is(flat.length, names.length * ports, 'kBindingDtypes: one dtype per binding and port');
  return names.map((name, b) => ({ name, dtypes: flat.slice(b * ports, (b + 1) * ports) }));
}

/**
 * The `case X: return Y;` pairs of the function `fn` (its body up to the first line that closes a
 * top-level brace): a switch that maps one type to another, e.g. AttrType to a TensorRT field type.
 */
export function switchMap(text: string, fn: string): Map<string, string> {
  const start = new RegExp(`\\b${fn}\\s*\\([^)]*\\)\\s*\\{`).exec(text);
  assert.ok(start, `no function ${fn}`);
  const end = text.indexOf('\n}', start.index);
  const body = text.slice(start.index, end < 0 ? undefined : end);
  const map = new Map<string, string>();
  for (const m of body.matchAll(/case\s+([\w:]+)\s*:\s*return\s+([^;]+);/g)) map.set(m[1]!, m[2]!.trim());
  assert.ok(map.size > 0, `${fn}: no case maps a value`);
  return map;
}
