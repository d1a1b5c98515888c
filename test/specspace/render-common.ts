// What every part of a rendered spec shares: the closed form's coefficients, literals, dims as
// YAML, Python and C++.

import type { AttrType } from '../../generator/model/type-table.js';
import type { AttrValue, ChoiceE, CondE, DimE } from './plan.js';

export const COEF = [0.125, 0.25, 0.5, 1];
export const q = (s: string): string => JSON.stringify(s); // valid in YAML double quotes, C++ needs its own
export const num = (v: number): string => (Number.isInteger(v) && Math.abs(v) < 1e15 ? v.toFixed(1) : String(v));

export interface RenderedSpec {
  snake: string;
  files: Record<string, string>;
}

export function yamlValue(type: AttrType, v: AttrValue): string {
  switch (type) {
    case 'bool':
      return String(v);
    case 'int':
      return String(v);
    case 'float':
      return num(v as number);
    case 'string':
      return q(v as string);
    case 'ints':
      return `[${(v as number[]).join(', ')}]`;
    case 'floats':
      return `[${(v as number[]).map(num).join(', ')}]`;
  }
}

export function dimText(e: DimE, top = true): string {
  switch (e.k) {
    case 'int':
      return String(e.v);
    case 'dim':
      return `${e.input}[${e.axis}]`;
    case 'attr':
      return e.name;
    case 'elem':
      return `${e.name}[${e.index}]`;
    case 'len':
      return `len(${e.name})`;
    case 'let':
      return e.name;
    case 'bin': {
      const s = `${dimText(e.l, false)} ${e.op} ${dimText(e.r, false)}`;
      return top ? s : `(${s})`;
    }
    case 'call':
      return `${e.fn}(${dimText(e.a)}, ${dimText(e.b)})`;
    case 'cond': {
      const s = `${dimText(e.a, false)} if ${condText(e.c)} else ${dimText(e.b, false)}`;
      return top ? s : `(${s})`;
    }
    case 'round':
      return `${e.fn}(${dimText(e.scale, false)} * ${e.name})`;
    case 'rank':
      return `rank(${e.input})`;
    case 'count':
      return `count(${e.input})`;
    case 'member':
      return 'member';
    case 'slice':
      return `${e.input}[${e.start ? dimText(e.start) : ''}:${e.end ? dimText(e.end) : ''}]`;
    case 'sizeof':
      return `sizeof(${e.type})`;
  }
}

export function condText(c: CondE): string {
  switch (c.k) {
    case 'cmp':
      return `${dimText(c.l, false)} ${c.op} ${dimText(c.r, false)}`;
    case 'flag':
      return c.name;
    case 'is':
      return `${c.name} == '${c.value}'`;
    case 'not':
      return `not (${condText(c.c)})`;
    case 'logic':
      return `(${condText(c.a)}) ${c.op} (${condText(c.b)})`;
  }
}

export function condPy(c: CondE): string {
  switch (c.k) {
    case 'cmp':
      return `(${dimPy(c.l)} ${c.op} ${dimPy(c.r)})`;
    case 'flag':
      return `bool(${c.name})`;
    case 'is':
      return `(${c.name} == ${q(c.value)})`;
    case 'not':
      return `(not ${condPy(c.c)})`;
    case 'logic':
      return `(${condPy(c.a)} ${c.op} ${condPy(c.b)})`;
  }
}

export function dimPy(e: DimE): string {
  switch (e.k) {
    case 'int':
      return String(e.v);
    case 'dim':
      return `int(${e.input}.shape[${e.axis}])`;
    case 'attr':
      return `int(${e.name})`;
    case 'elem':
      return `int(${e.name}[${e.index}])`;
    case 'len':
      return `len(${e.name})`;
    case 'let':
      return dimPy(e.e);
    case 'bin':
      return `(${dimPy(e.l)} ${e.op} ${dimPy(e.r)})`;
    case 'call':
      return e.fn === 'ceil_div' ? `(-((-${dimPy(e.a)}) // ${dimPy(e.b)}))` : `${e.fn}(${dimPy(e.a)}, ${dimPy(e.b)})`;
    case 'cond':
      return `(${dimPy(e.a)} if ${condPy(e.c)} else ${dimPy(e.b)})`;
    case 'round':
      return `_scaled(${q(e.fn)}, ${dimPy(e.scale)}, ${e.name})`;
    case 'rank':
      return `${e.input}.dim()`;
    case 'count':
      // The reference names a variadic input's list `<x>_all` and its first member `<x>`.
      return `len(${e.input}_all)`;
    case 'member':
      // The reference builds a variadic output's members in a loop over `member`.
      return 'member';
    case 'slice':
      // A tuple; a shape splices it: (a, *x[1:], b).
      return `tuple(int(d) for d in ${e.input}.shape[${e.start ? dimPy(e.start) : ''}:${e.end ? dimPy(e.end) : ''}])`;
    case 'sizeof':
      throw new Error('spec-space reads sizeof() in the workspace only');
  }
}

export function dimCpp(e: DimE, shapeOf: (input: string) => string): string {
  switch (e.k) {
    case 'int':
      return `int64_t{${e.v}}`;
    case 'dim':
      return `${shapeOf(e.input)}.dims[${e.axis < 0 ? `${shapeOf(e.input)}.rank - ${-e.axis}` : e.axis}]`;
    case 'attr':
      return `attrs.${e.name}`;
    case 'elem':
      // From the end of the node's list: a list of two lengths has either.
      return e.index < 0 ? `attrs.${e.name}[attrs.${e.name}.size() - ${-e.index}]` : `attrs.${e.name}[${e.index}]`;
    case 'len':
      return `static_cast<int64_t>(attrs.${e.name}.size())`;
    case 'let':
      return dimCpp(e.e, shapeOf);
    case 'bin':
      return e.op === '//' || e.op === '%'
        ? `opforge::${e.op === '//' ? 'floorDiv' : 'floorMod'}(${dimCpp(e.l, shapeOf)}, ${dimCpp(e.r, shapeOf)}, ok)`
        : `(${dimCpp(e.l, shapeOf)} ${e.op} ${dimCpp(e.r, shapeOf)})`;
    case 'call':
      return e.fn === 'ceil_div'
        ? `opforge::ceilDiv(${dimCpp(e.a, shapeOf)}, ${dimCpp(e.b, shapeOf)}, ok)`
        : `std::${e.fn}<int64_t>(${dimCpp(e.a, shapeOf)}, ${dimCpp(e.b, shapeOf)})`;
    case 'cond':
      throw new Error('spec-space draws no condition in a workspace');
    case 'round':
      return `opforge::${e.fn}Scaled(${dimCpp(e.scale, shapeOf)}, attrs.${e.name}, ok)`;
    case 'rank':
      return `int64_t{${shapeOf(e.input)}.rank}`;
    case 'count':
      throw new Error('spec-space reads count() in checks and output dims only');
    case 'member':
      throw new Error("spec-space reads `member` in a variadic output's dims only");
    case 'slice':
      throw new Error('spec-space draws no slice in a workspace');
    case 'sizeof':
      // In workspaceBytes(attrs, io), inside namespace form.
      return e.input ? `static_cast<int64_t>(sizeof(elem_t<decltype(io.${e.input})>))` : `int64_t{${e.bytes}}`;
  }
}

/** A dims list as users write it: a flow list (calls with commas inside) or a block list. */
export function dimsYaml(dims: (DimE | '?')[], flow: boolean, indent: string): string {
  const items = dims.map((d) => (d === '?' ? "'?'" : dimText(d)));
  if (flow || !items.length) return ` [${items.join(', ')}]`;
  return items.map((s) => `\n${indent}  - ${/^[0-9]+$/.test(s) || !/[:#]/.test(s) ? s : q(s)}`).join('');
}

/** A dtype choice as the spec writes it: `float16 if fsel else float32`. */
export function choiceText(c: ChoiceE): string {
  return c.k === 'dtype'
    ? c.d
    : `${c.a.k === 'if' ? `(${choiceText(c.a)})` : choiceText(c.a)} if ${condText(c.c)} else ${choiceText(c.b)}`;
}

/** A dtype choice as the reference's torch dtype. */
export function choicePy(c: ChoiceE): string {
  return c.k === 'dtype' ? `torch.${c.d}` : `(${choicePy(c.a)} if ${condPy(c.c)} else ${choicePy(c.b)})`;
}
