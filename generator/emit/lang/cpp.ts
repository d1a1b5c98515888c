// Typed printers for the C++ every emitter writes: a unit (leading comment, `#pragma once`,
// sorted include groups, nested namespaces), doc comments, constexpr scalars and tables, enums.
// Emitters describe what differs per op; the punctuation and layout live here, once.

import { lines } from '../emitter.js';
import { commentText } from './literals.js';

/** Lines as `lines()` takes them: null/false entries are dropped, one level of arrays flattened. */
export type Line = string | null | undefined | false;
export type Body = Line | readonly Line[];

/**
 * Include groups, printed in this order with a blank line between them, each sorted and deduplicated.
 * `system` and `external` (a third-party library's headers) print as `<path>`, `project` as `"path"`.
 * A path already written with its delimiters (`'"paddle/extension.h"'`) is printed as given.
 */
export interface Includes {
  system?: readonly string[];
  external?: readonly string[];
  project?: readonly string[];
}

export interface CppUnit {
  /** Leading comment lines (after the generated-file line), each made comment-safe. */
  comment?: string | readonly string[];
  /** A header: `#pragma once` after the comment. */
  header?: boolean;
  includes?: Includes;
  /** Nested namespaces the body is in: `'opforge::ops::x'` or `['opforge', 'ops', 'x']`. */
  namespace?: string | readonly string[];
  body: Body | readonly Body[];
}

const delimited = (p: string): boolean => /^[<"]/.test(p);

function includeGroup(paths: readonly string[] | undefined, open: string, close: string): string[] {
  const set = [...new Set(paths ?? [])].sort();
  return set.map((p) => `#include ${delimited(p) ? p : `${open}${p}${close}`}`);
}

/** `#include` lines: the groups of `inc`, sorted and deduplicated, a blank line between non-empty groups. */
export function includeLines(inc: Includes): string[] {
  const groups = [
    includeGroup(inc.system, '<', '>'),
    includeGroup(inc.external, '<', '>'),
    includeGroup(inc.project, '"', '"'),
  ].filter((g) => g.length > 0);
  return groups.flatMap((g, i) => (i === 0 ? g : ['', ...g]));
}

function namespaceParts(ns: string | readonly string[] | undefined): readonly string[] {
  if (ns === undefined) return [];
  // '' alone is the anonymous namespace; 'a::b' nests, and a leading '::' (a qualified name) adds none.
  return typeof ns === 'string' ? (ns === '' ? [''] : ns.split('::').filter(Boolean)) : ns;
}

/** `body` inside nested namespaces; an empty name is the anonymous namespace. Closers name what they close. */
export function namespaceBlock(ns: string | readonly string[], ...body: (Body | readonly Body[])[]): string {
  const parts = namespaceParts(ns);
  const open = parts.map((n) => (n ? `namespace ${n} {` : 'namespace {'));
  const close = [...parts].reverse().map((n) => (n ? `}  // namespace ${n}` : '}  // namespace'));
  return lines(open, '', flat(body), '', close);
}

/** A whole C++ file body (the generated-file line is prepended by opFile/projectFile). */
export function cppUnit(u: CppUnit): string {
  const comment = u.comment === undefined ? [] : typeof u.comment === 'string' ? [u.comment] : u.comment;
  const inc = u.includes ? includeLines(u.includes) : [];
  const body = flat([u.body]);
  const parts = namespaceParts(u.namespace);
  return lines(
    comment.map((c) => `// ${commentText(c)}`),
    u.header ? '#pragma once' : null,
    inc.length ? ['', ...inc] : null,
    '',
    parts.length ? namespaceBlock(parts, body) : body,
  );
}

function flat(body: readonly (Body | readonly Body[])[]): string {
  const out: Line[] = [];
  const add = (b: Body | readonly Body[]): void => {
    if (Array.isArray(b)) for (const x of b as readonly (Body | readonly Body[])[]) add(x);
    else out.push(b as Line);
  };
  for (const b of body) add(b);
  return lines(out);
}

/** A doc comment: `/** text *\/` on one line when it fits, else a block; text is made comment-safe. */
export function docComment(text: string | readonly string[], indent = ''): string {
  const rows = (typeof text === 'string' ? [text] : text).map(commentText).filter(Boolean);
  if (rows.length === 1 && indent.length + rows[0]!.length <= 110) return `${indent}/** ${rows[0]} */`;
  return lines(
    `${indent}/**`,
    rows.map((r) => `${indent} * ${r}`),
    `${indent} */`,
  );
}

/** A trailing `  // text` (comment-safe), or nothing when the text is empty. */
export function trailing(text: string | undefined): string {
  const t = text ? commentText(text) : '';
  return t ? `  // ${t}` : '';
}

export interface Constant {
  type: string;
  name: string;
  /** A C++ expression, already spelled (see literals.ts). */
  value: string;
  comment?: string;
}

/** `constexpr T name = value;  // comment` lines; `prefix` e.g. `static ` inside a struct. */
export function constants(list: readonly Constant[], prefix = '', indent = ''): string[] {
  return list.map((c) => `${indent}${prefix}constexpr ${c.type} ${c.name} = ${c.value};${trailing(c.comment)}`);
}

export interface TableRow {
  /** The row's initializer, already spelled: `"x"`, `{1, 2}`, `DType::kFloat32`. */
  value: string;
  comment?: string;
}

export interface Table {
  /** Element type, e.g. `const char*` or `PortType`. */
  type: string;
  name: string;
  rows: readonly (TableRow | string)[];
  /** The bound: a constant's name (`kNumInputs`) or, by default, the row count. */
  size?: string;
  /** A second bound, for a table of arrays (`kMaxRank`). */
  inner?: string;
  /** `static ` (in a struct or for internal linkage), `inline ` ..., printed before `constexpr`. */
  prefix?: string;
  indent?: string;
}

/**
 * `constexpr T name[N] = {...};`. Rows without comments stay on one line while it is short, else
 * wrap several to a line; with comments, one row a line. C++ has no zero-length arrays: an empty table is one value-initialized
 * element, so readers must bound loops by their count constant, never by the array's size.
 */
export function table(t: Table): string {
  const rows = t.rows.map((r) => (typeof r === 'string' ? { value: r } : r));
  const indent = t.indent ?? '';
  const bounds = `[${rows.length ? (t.size ?? rows.length) : 1}]${t.inner ? `[${t.inner}]` : ''}`;
  const decl = `${indent}${t.prefix ?? ''}constexpr ${t.type} ${t.name}${bounds} = {`;
  if (!rows.length) return `${decl}};  // empty`;
  const inline = `${decl}${rows.map((r) => r.value).join(', ')}};`;
  if (!rows.some((r) => r.comment))
    return inline.length <= 120
      ? inline
      : initializer(
          decl.slice(0, -4),
          rows.map((r) => r.value),
          110,
          indent,
        );
  return lines(
    decl,
    rows.map((r) => `${indent}    ${r.value},${trailing(r.comment)}`),
    `${indent}};`,
  );
}

export interface EnumValue {
  name: string;
  /** Explicit value, already spelled; omitted: the previous plus one. */
  value?: string;
  comment?: string;
}

/** `enum class Name : T { A = 0,  // comment ... };` (a plain `enum` when `scoped` is false). */
export function cppEnum(e: {
  name: string;
  underlying?: string;
  scoped?: boolean;
  values: readonly EnumValue[];
  indent?: string;
}): string {
  const indent = e.indent ?? '';
  const head = `${indent}enum ${e.scoped === false ? '' : 'class '}${e.name}${e.underlying ? ` : ${e.underlying}` : ''} {`;
  return lines(
    head,
    e.values.map((v) => `${indent}  ${v.name}${v.value !== undefined ? ` = ${v.value}` : ''},${trailing(v.comment)}`),
    `${indent}};`,
  );
}

/**
 * `decl = {a, b, ...};` with rows of values at most `width` characters (not counting their indent),
 * indented four spaces: long aggregate initializers.
 */
export function initializer(decl: string, values: readonly string[], width = 110, indent = ''): string {
  const rows: string[] = [];
  let row = '';
  for (const v of values) {
    if (row && row.length + v.length + 2 > width) {
      rows.push(`${indent}    ${row},`);
      row = '';
    }
    row = row ? `${row}, ${v}` : v;
  }
  return lines(`${decl} = {`, rows, `${indent}    ${row}};`);
}

/** A brace initializer `{a, b, c}` of already-spelled values. */
export function braced(values: readonly string[]): string {
  return `{${values.join(', ')}}`;
}
