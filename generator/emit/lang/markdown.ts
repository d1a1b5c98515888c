// Prints Markdown: a page is a static template (generator/static/md/) whose {{slots}} are filled
// with what differs per op, spec text escaped so it cannot open markup, and tables and fences
// built from rows.

import { commentText } from './literals.js';
import { fillTemplate } from './template.js';

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

/** The page `generator/static/md/<name>` with its `{{slots}}` filled (template.ts). */
export function mdTemplate(name: string, slots: Readonly<Record<string, string>>): string {
  return fillTemplate(`generator/static/md/${name}`, slots);
}
