// Reads back the string literals emitters print, so a test checks that a hostile spec string
// survives as the same string in each language whatever escapes the emitter chooses.

import * as assert from 'uvu/assert';

const SIMPLE: Record<string, string> = {
  n: '\n',
  t: '\t',
  r: '\r',
  '"': '"',
  "'": "'",
  '\\': '\\',
  '?': '?',
  '0': '\0',
};

/** A C++ narrow string literal ("..."), its bytes read as UTF-8. */
export function decodeCpp(literal: string): string {
  assert.ok(literal.startsWith('"') && literal.endsWith('"'), `not a C++ string literal: ${literal}`);
  const bytes: number[] = [];
  const body = literal.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      bytes.push(...Buffer.from(c, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{1,3}/.exec(body.slice(i + 1));
    const hex = /^x([0-9a-fA-F]+)/.exec(body.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += octal[0].length;
    } else if (hex) {
      bytes.push(Number.parseInt(hex[1]!, 16));
      i += hex[0].length;
    } else {
      const e = SIMPLE[body[i + 1]!];
      assert.ok(e !== undefined, `unknown C++ escape \\${body[i + 1]} in ${literal}`);
      bytes.push(e.charCodeAt(0));
      i++;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A Python (or TorchScript schema) string literal, '...' or "...". */
export function decodePython(literal: string): string {
  const q = literal[0];
  assert.ok((q === "'" || q === '"') && literal.endsWith(q), `not a Python string literal: ${literal}`);
  let out = '';
  const body = literal.slice(1, -1);
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const rest = body.slice(i + 1);
    const hex = /^(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|U([0-9a-fA-F]{8}))/.exec(rest);
    if (hex) {
      out += String.fromCodePoint(Number.parseInt(hex[1] ?? hex[2] ?? hex[3]!, 16));
      i += hex[0].length;
    } else {
      const e = SIMPLE[rest[0]!];
      assert.ok(e !== undefined && rest[0] !== '?', `unknown Python escape \\${rest[0]} in ${literal}`);
      out += e;
      i++;
    }
  }
  return out;
}

/**
 * The first string literal (quoted by one of `quote`) on the line after a match of `after`, a
 * regex source (a name, or what precedes the literal in a table row) matched as a whole word.
 */
export function literalAfter(text: string, after: string, quote: '"' | "'" | `"'` = '"'): string {
  const q = quote.split('').map((c) => `${c}(?:[^${c}\\\\\\n]|\\\\.)*${c}`);
  const re = new RegExp(`(?<![\\w.])(?:${after})(?!\\w)[^\\n]{0,60}?(${q.join('|')})`);
  const m = re.exec(text);
  assert.ok(m, `no string literal after ${after}`);
  return m[1]!;
}
