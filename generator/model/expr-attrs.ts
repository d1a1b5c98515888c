// How dim expressions read attributes: an int attribute by name, an element `a[i]` of an `ints`
// attribute with a declared `length` (so every index is checked before anything runs), and
// `len(a)` of a list attribute. Kept apart from compileDim so each reading has one rule.

import { didYouMean } from './diagnostics.js';
import type { AttributeIR, Expr } from './ir.js';

/** The attributes an op's dim expressions may name, by name. */
export type ExprAttrs = ReadonlyMap<string, AttributeIR>;

export function exprAttrs(attributes: readonly AttributeIR[]): ExprAttrs {
  return new Map(attributes.map((a) => [a.name, a]));
}

/** What a reading resolves to: the expression, or the problem and the hint of a static error. */
export type AttrReading = { expr: Expr } | { error: string; hint?: string; atIndex?: boolean };

/** `name` alone: an int attribute. */
export function readAttrName(name: string, attrs: ExprAttrs): AttrReading | undefined {
  const a = attrs.get(name);
  if (!a) return undefined;
  if (a.type === 'int') return { expr: { kind: 'attr', name } };
  if (a.type === 'ints' || a.type === 'floats')
    return { error: `\`${name}\` is not an int attribute (a list: use ${name}[i] for an element, or len(${name}))` };
  return { error: `\`${name}\` is not an int attribute (a ${a.type})` };
}

/** `name[index]`: an element of an `ints` attribute (undefined when `name` is no attribute). */
export function readAttrElement(name: string, index: number, attrs: ExprAttrs): AttrReading | undefined {
  const a = attrs.get(name);
  if (!a) return undefined;
  if (a.type !== 'ints')
    return {
      error:
        a.type === 'floats'
          ? `\`${name}\` is a floats attribute; a dim expression reads integers`
          : `\`${name}\` is a ${a.type} attribute, not a list that can be indexed`,
    };
  if (a.length === undefined)
    return {
      error: `list attribute \`${name}\` has no declared length, so its elements cannot be indexed`,
      hint: `add \`length: N\` to attribute \`${name}\``,
    };
  const k = elementIndex(a.length, index);
  if (k === undefined) return { error: outsideList(name, a.length, index), atIndex: true };
  return { expr: { kind: 'elem', name, index: k } };
}

/**
 * Element `index` of a list of the declared element counts: normalized to >= 0 for one count,
 * kept negative (from the end at run time) for several; undefined outside the smallest count.
 */
export function elementIndex(counts: readonly number[], index: number): number | undefined {
  const least = counts[0]!;
  if (index < -least || index >= least) return undefined;
  return index < 0 && counts.length === 1 ? least + index : index;
}

/** Why `name[index]` lies outside a list attribute of the declared counts. */
export function outsideList(name: string, counts: readonly number[], index: number): string {
  if (counts.length === 1) return `index ${index} is outside attribute \`${name}\` of length ${counts[0]}`;
  return `index ${index} is outside the ${counts[0]} elements every length of attribute \`${name}\` (${counts.join(' or ')}) has`;
}

/** `len(arg)`: the element count of a list attribute. */
export function readAttrLength(arg: string | undefined, attrs: ExprAttrs): AttrReading {
  const a = arg === undefined ? undefined : attrs.get(arg);
  if (!a || (a.type !== 'ints' && a.type !== 'floats')) {
    const lists = [...attrs.values()].filter((x) => x.type === 'ints' || x.type === 'floats').map((x) => x.name);
    return {
      error: 'len() takes the name of a list (ints or floats) attribute',
      hint: arg === undefined ? undefined : didYouMean(arg, lists),
    };
  }
  return { expr: { kind: 'len', name: a.name } };
}
