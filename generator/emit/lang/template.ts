// Static text with slots: a file under generator/static/ whose `{{slot}}` markers are replaced by
// what differs per project or op. What is the same every time stays a real file; the emitter
// prints only the slots' values.

import { staticText } from '../emitter.js';

const cache = new Map<string, string>();

/** A slot's value: text, or null to drop the slot's line (the slot must stand alone on it). */
export type SlotValue = string | null;

/**
 * The template `source` (relative to the package root) with every `{{slot}}` replaced by its value,
 * without its final newline. A slot the template has and `slots` lacks, or the other way round, is
 * an error: the two cannot drift apart. A null value removes the line its slot stands alone on, so
 * an optional block leaves no blank line.
 */
export function fillTemplate(source: string, slots: Readonly<Record<string, SlotValue>>): string {
  let text = cache.get(source);
  if (text === undefined) {
    text = staticText(source);
    cache.set(source, text);
  }
  const unused = new Set(Object.keys(slots));
  const value = (key: string): string => {
    const v = slots[key];
    if (v === undefined) throw new Error(`${source}: no value for {{${key}}}`);
    if (v === null) throw new Error(`${source}: {{${key}}} is null but shares its line`);
    unused.delete(key);
    return v;
  };
  const out = text
    .replace(/^[ \t]*\{\{(\w+)\}\}\n/gm, (line, key: string) => {
      if (slots[key] !== null) return line;
      unused.delete(key);
      return '';
    })
    .replace(/\{\{(\w+)\}\}/g, (_, key: string) => value(key));
  if (unused.size) throw new Error(`${source}: no slot for ${[...unused].join(', ')}`);
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}

/** Lines as one slot value; null (the slot's line dropped) when there are none. */
export const block = (xs: readonly (string | null | false | undefined)[]): SlotValue => {
  const kept = xs.filter((x): x is string => typeof x === 'string');
  return kept.length ? kept.join('\n') : null;
};
