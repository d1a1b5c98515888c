// Prints Python source: values as literals (strings through literals.ts's pyString), calls, def
// signatures with typed keyword-only arguments, docstrings, and a module whose imports are grouped
// and sorted the way isort does. Emitters hand it facts (JS values); the quoting and layout are
// decided here once.

import { pyString } from './literals.js';

/** Python source already printed (a name, an expression); `print` lays out multi-line values at `indent`. */
export class PyCode {
  constructor(readonly print: (indent: string) => string) {}
}

/**
 * What the printer takes as a Python value: a JS string is a str literal, a number an int (or float,
 * as JS spells it), a boolean True/False, null/undefined None, an array a tuple, a plain object a
 * dict (its keys are identifiers, printed as str literals) and a PyCode itself.
 */
export type PyValue = PyCode | string | number | boolean | null | undefined | readonly PyValue[] | PyDict;
export interface PyDict {
  readonly [key: string]: PyValue;
}

const INDENT = '    ';

/** Raw Python source: a name or an expression printed elsewhere. */
export function pyCode(text: string): PyCode {
  return new PyCode(() => text);
}

/** A number as Python spells it; JS's NaN and Infinity have no literal there. */
function pyNumber(v: number): string {
  if (!Number.isFinite(v)) throw new Error(`no Python literal for ${v}`);
  return String(v);
}

/** A float literal that stays a float in Python (`1.0`, not `1`). */
export function pyFloat(v: number): PyCode {
  return pyCode(Number.isInteger(v) ? `${pyNumber(v)}.0` : pyNumber(v));
}

/** A value printed as Python source at `indent` (what its continuation lines start with). */
export function pyLit(v: PyValue, indent = ''): string {
  if (v instanceof PyCode) return v.print(indent);
  if (v === null || v === undefined) return 'None';
  if (typeof v === 'string') return pyString(v);
  if (typeof v === 'number') return pyNumber(v);
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (Array.isArray(v)) return pyTuple(v).print(indent);
  return pyDict(Object.entries(v as PyDict)).print(indent);
}

interface Layout {
  /** One item a line, each followed by a comma (and its comment, if any). */
  multiline?: boolean;
  /** Per item, a trailing `# ...` comment (multi-line layout only). */
  comments?: readonly (string | undefined)[];
}

/** Items between brackets: inline `(a, b)`, or one a line at `indent` + 4 with the closer at `indent`. */
function bracketed(
  open: string,
  close: string,
  items: readonly ((indent: string) => string)[],
  layout: Layout,
): PyCode {
  return new PyCode((indent) => {
    if (!layout.multiline || items.length === 0) return `${open}${items.map((f) => f(indent)).join(', ')}${close}`;
    const inner = indent + INDENT;
    const rows = items.map((f, i) => {
      const comment = layout.comments?.[i];
      return `${inner}${f(inner)},${comment ? `  # ${comment}` : ''}`;
    });
    return `${open}\n${rows.join('\n')}\n${indent}${close}`;
  });
}

const item =
  (v: PyValue) =>
  (indent: string): string =>
    pyLit(v, indent);

/** A tuple; one item inline gets its trailing comma (`(a,)`). */
export function pyTuple(items: readonly PyValue[], layout: Layout = {}): PyCode {
  if (items.length === 1 && !layout.multiline) return new PyCode((indent) => `(${pyLit(items[0], indent)},)`);
  return bracketed('(', ')', items.map(item), layout);
}

export function pyList(items: readonly PyValue[], layout: Layout = {}): PyCode {
  return bracketed('[', ']', items.map(item), layout);
}

/** A dict from entries in order; keys are str literals unless given as PyCode. */
export function pyDict(entries: readonly (readonly [string | PyCode, PyValue])[], layout: Layout = {}): PyCode {
  return bracketed(
    '{',
    '}',
    entries.map(
      ([k, v]) =>
        (indent: string) =>
          `${pyLit(k, indent)}: ${pyLit(v, indent)}`,
    ),
    layout,
  );
}

/** `callee(args..., key=value...)`; multi-line puts each argument on its own line. */
export function pyCall(
  callee: string,
  args: readonly PyValue[],
  kwargs: PyDict = {},
  layout: { multiline?: boolean } = {},
): PyCode {
  const parts = [
    ...args.map(item),
    ...Object.entries(kwargs).map(
      ([k, v]) =>
        (indent: string) =>
          `${k}=${pyLit(v, indent)}`,
    ),
  ];
  return bracketed(`${callee}(`, ')', parts, layout);
}

/** One parameter of a def: annotated ones print `name: type = default`, others `name=default`. */
export interface PyParam {
  name: string;
  type?: string;
  /** Absent: no default. */
  default?: PyValue;
}

/** A parameter list: the positional ones, then `*` and the keyword-only ones. */
export function pyParams(positional: readonly PyParam[], keywordOnly: readonly PyParam[] = []): string {
  const one = (p: PyParam): string => {
    const hasDefault = 'default' in p;
    if (p.type === undefined) return hasDefault ? `${p.name}=${pyLit(p.default)}` : p.name;
    return `${p.name}: ${p.type}${hasDefault ? ` = ${pyLit(p.default)}` : ''}`;
  };
  return [...positional.map(one), ...(keywordOnly.length ? ['*', ...keywordOnly.map(one)] : [])].join(', ');
}

/**
 * A docstring at `indent`: the first line after the opening quotes, the others indented (blank ones
 * left blank); a last line '' puts the closing quotes on a line of their own.
 */
export function pyDocstring(doc: readonly string[], indent = ''): string {
  const body = doc.map((l, i) => (i === 0 || l === '' ? l : indent + l)).join('\n');
  return `${indent}"""${body}${doc.length > 1 && doc[doc.length - 1] === '' ? indent : ''}"""`;
}

export interface PyDef {
  name: string;
  params: string;
  returns?: string;
  doc?: readonly string[];
  /** Statements, each line relative to the body's indent. */
  body: readonly string[];
}

/** A top-level def. */
export function pyDef(d: PyDef): string {
  const head = `def ${d.name}(${d.params})${d.returns ? ` -> ${d.returns}` : ''}:`;
  return [head, ...(d.doc ? [pyDocstring(d.doc, INDENT)] : []), ...indented(d.body)].join('\n');
}

export interface PyClass {
  name: string;
  bases?: readonly string[];
  decorators?: readonly string[];
  doc?: readonly string[];
  /** Class-level blocks (assignments, method defs printed by pyDef), a blank line apart. */
  body: readonly string[];
}

/** A top-level class. */
export function pyClass(c: PyClass): string {
  const head = `class ${c.name}${c.bases?.length ? `(${c.bases.join(', ')})` : ''}:`;
  const blocks = [...(c.doc ? [pyDocstring(c.doc)] : []), ...c.body];
  return [...(c.decorators ?? []).map((d) => `@${d}`), head, ...indented([blocks.join('\n\n')])].join('\n');
}

/** Lines indented one level (multi-line strings line by line; blank lines stay blank). */
export function indented(body: readonly string[], by = INDENT): string[] {
  return body.flatMap((s) => s.split('\n')).map((l) => (l === '' ? l : by + l));
}

/** `name[: type] = value`, after a `#: doc` comment (Sphinx's attribute comment). */
export function pyAssign(
  name: string,
  value: PyValue,
  opts: { doc?: string; type?: string; comment?: string } = {},
): string {
  const line = `${name}${opts.type ? `: ${opts.type}` : ''} = ${pyLit(value)}${opts.comment ? `  # ${opts.comment}` : ''}`;
  return opts.doc ? `#: ${opts.doc}\n${line}` : line;
}

/** One import statement: `import module` or `from module import names` (each name may be `x as y`). */
export interface PyImport {
  module: string;
  names?: readonly string[];
  comment?: string;
}

/** Modules of the standard library the generated code imports (isort's second section). */
const STDLIB = new Set(['typing', 'os', 'sys', 'ctypes', 'importlib', 'pathlib', 'shutil', 'tempfile', 'types']);

function section(m: string): number {
  if (m === '__future__') return 0;
  if (m.startsWith('.')) return 3;
  return STDLIB.has(m.split('.')[0]!) ? 1 : 2;
}

const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Import statements in isort's sections (future, stdlib, third party, local), sorted, a blank line between sections. */
export function pyImports(imports: readonly PyImport[]): string {
  const sorted = [...imports].sort((a, b) => section(a.module) - section(b.module) || byCodeUnit(a.module, b.module));
  const out: string[] = [];
  let last = -1;
  for (const imp of sorted) {
    const s = section(imp.module);
    if (last !== -1 && s !== last) out.push('');
    last = s;
    const stmt = imp.names
      ? `from ${imp.module} import ${[...imp.names].sort(byCodeUnit).join(', ')}`
      : `import ${imp.module}`;
    out.push(imp.comment ? `${stmt}  # ${imp.comment}` : stmt);
  }
  return out.join('\n');
}

export interface PyModule {
  doc: readonly string[];
  imports: readonly PyImport[];
  /** Top-level blocks, two blank lines apart (PEP 8); each may span lines. */
  blocks: readonly string[];
}

/** A module: its docstring, its imports, its blocks; ends with a newline. */
export function pyModule(m: PyModule): string {
  const head = [pyDocstring(m.doc), ...(m.imports.length ? [pyImports(m.imports)] : [])].join('\n\n');
  return `${[head, ...m.blocks].join('\n\n\n')}\n`;
}
