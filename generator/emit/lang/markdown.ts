// Prints Markdown: a page is a static template (generator/static/md/) whose {{slots}} are filled
// with what differs per op, spec text escaped so it cannot open markup, and tables and fences
// built from rows.

import { readFileSync } from 'node:fs';
import { PKG_ROOT_URL } from '../../pkg-root.js';
import { commentText } from './literals.js';

/** Spec text as Markdown text: one line, and no character that would start markup. */
export function mdText(s: string): string {
  return commentText(s).replace(/([\\`*_[\]<>|])/g, '\\$1');
}

/** Inline code (names, paths: never spec prose). */
export function mdCode(s: string): string {
  return `\`${s}\``;
}

/** A table: the header row, the rule, a row per entry. */
export function mdTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const row = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`;
  return [row(header), `|${header.map(() => '---|').join('')}`, ...rows.map(row)].join('\n');
}

const templates = new Map<string, string>();

/**
 * The template `generator/static/md/<name>` with every `{{slot}}` replaced by its value. A slot the
 * template has and `slots` lacks, or the other way round, is an error: the two cannot drift apart.
 */
export function mdTemplate(name: string, slots: Readonly<Record<string, string>>): string {
  let text = templates.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`generator/static/md/${name}`, PKG_ROOT_URL), 'utf8');
    templates.set(name, text);
  }
  const unused = new Set(Object.keys(slots));
  const out = text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => {
    const v = slots[key];
    if (v === undefined) throw new Error(`${name}: no value for {{${key}}}`);
    unused.delete(key);
    return v;
  });
  if (unused.size) throw new Error(`${name}: no slot for ${[...unused].join(', ')}`);
  return out.endsWith('\n') ? out.slice(0, -1) : out;
}
