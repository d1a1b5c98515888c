// Prints CMake: commands whose arguments are either plain words (names the spec validated, keywords)
// or quoted arguments escaped by literals.ts (paths, descriptions), `if()` blocks and source lists.
// The generated CMake lists facts (ops, kernels, sources); what it does lives in the static
// modules under generator/static/cmake/.

import { cmakeQuotedText, commentText } from './literals.js';

/** A quoted argument, printed with `"` and its text escaped (read literally: no `${}` expansion). */
export class CMakeQuoted {
  constructor(readonly text: string) {}
}

/**
 * A quoted argument that starts with a variable reference: `"${VAR}/rest"`, `rest` escaped
 * (the one place a `$` is meant as CMake's).
 */
export class CMakeVarPath {
  constructor(
    readonly variable: string,
    readonly rest: string,
  ) {}
}

/** An argument: a plain word, or quoted; false/null/undefined leave it out (optional keywords). */
export type CMakeArg = string | number | CMakeQuoted | CMakeVarPath | false | null | undefined;

export function quoted(text: string): CMakeQuoted {
  return new CMakeQuoted(text);
}

/** `"${variable}"` followed by `/rest` when rest is given. */
export function varPath(variable: string, rest = ''): CMakeVarPath {
  return new CMakeVarPath(variable, rest);
}

/** Characters a plain (unquoted) argument may hold without CMake splitting or expanding it. */
const PLAIN = /^[A-Za-z0-9_.+\-/:=<>]+$/;

function arg(a: Exclude<CMakeArg, false | null | undefined>): string {
  if (a instanceof CMakeQuoted) return `"${cmakeQuotedText(a.text)}"`;
  if (a instanceof CMakeVarPath) return `"\${${a.variable}}${a.rest ? `/${cmakeQuotedText(a.rest)}` : ''}"`;
  const s = String(a);
  if (!PLAIN.test(s)) throw new Error(`not a plain CMake argument: ${JSON.stringify(s)} (quote it)`);
  return s;
}

/** `name(arg ...)`, with a trailing `# comment` when given. */
export function cmakeCommand(name: string, args: readonly CMakeArg[] = [], comment?: string): string {
  const printed = args.filter(
    (a): a is Exclude<CMakeArg, false | null | undefined> => a !== false && a != null && a !== '',
  );
  return `${name}(${printed.map(arg).join(' ')})${comment ? `  # ${commentText(comment)}` : ''}`;
}

/** `if(condition)` around `body` (indented two spaces), `endif()`. */
export function cmakeIf(condition: readonly CMakeArg[], body: readonly string[]): string {
  return [cmakeCommand('if', condition), ...body.map((l) => `  ${l}`), cmakeCommand('endif')].join('\n');
}

/** `include("${CMAKE_CURRENT_SOURCE_DIR}/<path>")`: a module relative to the including file. */
export function cmakeInclude(path: string): string {
  return cmakeCommand('include', [varPath('CMAKE_CURRENT_SOURCE_DIR', path)]);
}

/** `name(target` and one quoted source a line `)`: a list of sources for a target command. */
export function cmakeSources(command: string, target: string, sources: readonly string[]): string {
  return [`${command}(${arg(target)}`, ...sources.map((s) => `  ${arg(quoted(s))}`), ')'].join('\n');
}

/** `# text` comment lines. */
export function cmakeComment(...text: readonly string[]): string {
  return text.map((t) => (t ? `# ${t}` : '#')).join('\n');
}
