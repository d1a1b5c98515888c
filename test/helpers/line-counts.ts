// Code lines of a TypeScript source, and those holding a string literal: what
// test/unit/emitter-size.test.ts measures the emitters by.

export interface LineCounts {
  /** Lines with code: not blank, not only comment. */
  code: number;
  /** Code lines on which some string literal ('...', "...", `...`) lies, in part or whole. */
  withString: number;
}

/**
 * Counts a TypeScript source's code lines and those holding a string literal. A small scanner:
 * comments, the three string forms (template literals across lines, with nested `${...}`) and
 * regular expression literals (so a quote inside one is no string).
 */
export function countLines(text: string): LineCounts {
  return linesOf(text).counts;
}

/** countLines, with the 0-based numbers of the lines holding a string literal. */
export function linesOf(text: string): { counts: LineCounts; stringLines: number[] } {
  const code = new Set<number>();
  const str = new Set<number>();
  // The stack of open template literals: the brace depth of the `${` each is waiting to close.
  const templates: number[] = [];
  let depth = 0;
  let line = 0;
  let prev = ''; // last code character, to tell a regex `/` from a division
  let i = 0;
  const n = text.length;
  const markString = (from: number, to: number): void => {
    let l = line;
    for (let k = from; k < to; k++) {
      str.add(l);
      code.add(l);
      if (text[k] === '\n') l++;
    }
    line = l;
  };
  /** Index after the end of the string starting with quote `q` at `start` (template: up to `${` or the closing backtick). */
  const scanString = (start: number, q: string): number => {
    let k = start + 1;
    while (k < n) {
      const c = text[k];
      if (c === '\\') k += 2;
      else if (c === q) return k + 1;
      else if (q === '`' && c === '$' && text[k + 1] === '{') return k + 2;
      else if (q !== '`' && c === '\n')
        return k; // unterminated: stop at the line end
      else k++;
    }
    return n;
  };
  const enterTemplatePart = (start: number, q: string): void => {
    const end = scanString(start, q);
    markString(start, end);
    if (q === '`' && text.slice(end - 2, end) === '${') {
      templates.push(depth);
      depth++;
    }
    i = end;
    prev = q;
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '\n') {
      line++;
      i++;
    } else if (c === ' ' || c === '\t' || c === '\r') {
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < n && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? n : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop;
    } else if (c === "'" || c === '"' || c === '`') {
      enterTemplatePart(i, c);
    } else if (c === '}' && templates.length && depth - 1 === templates[templates.length - 1]) {
      // The `}` closing a template's `${`: the template literal resumes.
      templates.pop();
      depth--;
      code.add(line);
      enterTemplatePart(i, '`');
    } else if (c === '/' && (prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev))) {
      // A regular expression literal: up to the closing `/` outside a character class.
      let k = i + 1;
      let inClass = false;
      while (k < n && text[k] !== '\n') {
        if (text[k] === '\\') k++;
        else if (text[k] === '[') inClass = true;
        else if (text[k] === ']') inClass = false;
        else if (text[k] === '/' && !inClass) break;
        k++;
      }
      code.add(line);
      i = k + 1;
      prev = 'x';
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      code.add(line);
      // Keywords after which a `/` starts a regex end in a letter: treat `return /x/` as code.
      prev = /[A-Za-z0-9_$)\]]/.test(c) ? (text.slice(i - 5, i + 1).endsWith('return') ? '(' : c) : c;
      i++;
    }
  }
  return { counts: { code: code.size, withString: str.size }, stringLines: [...str].sort((a, b) => a - b) };
}
