// Static text with slots: a file under generator/static/ whose `{{slot}}` markers are replaced by
// what differs per project or op. What is the same every time stays a real file; the emitter
// prints only the slots' values.

import { staticText } from '../emitter.js';

const cache = new Map<string, string>();

/**
 * The template `source` (relative to the package root) with every `{{slot}}` replaced by its value,
 * without its final newline. A slot the template has and `slots` lacks, or the other way round, is
 * an error: the two cannot drift apart.
 */
export function fillTemplate(source: string, slots: Readonly<Record<string, string>>): string {
  let text = cache.get(source);
  if (text === undefined) {
    text = staticText(source);
    cache.set(source, text);
  }
  const unused = new Set(Object.keys(slots));
  const out = text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = slots[key];
    if (v === undefined) throw new Error(`${source}: no value for {{${key}}}`);
    unused.delete(key);
    return v;
  });
  if (unused.size) throw new Error(`${source}: no slot for ${[...unused].join(', ')}`);
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}
