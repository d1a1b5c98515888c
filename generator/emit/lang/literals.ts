// How spec values are spelled in each target language: escaping of spec strings, numbers and
// attribute values, shared by the emitters and the test drivers opforge test compiles. Names are validated identifiers and
// are emitted as-is; every other string (descriptions, enum strings, string defaults) goes
// through one of these.

import type { AttrValue, AttributeIR } from '../../model/ir.js';

/** A C++ string literal; non-ASCII and control characters as escapes, so sources stay ASCII. */
export function cppString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b === 0x3f)
      out += '\\?'; // no trigraphs
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** A Python string literal (ASCII only). */
export function pyString(s: string): string {
  let out = "'";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "'") out += "\\'";
    else if (ch === '\\') out += '\\\\';
    else if (c >= 0x20 && c < 0x7f) out += ch;
    else if (c <= 0xff) out += `\\x${c.toString(16).padStart(2, '0')}`;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return `${out}'`;
}

/** A JS/TS string literal (ASCII only; JSON escapes plus the line separators). */
export function tsString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A TOML basic string ("..."): JSON's escapes are TOML's, but TOML also refuses DEL and takes a
 * character beyond the BMP as one \UXXXXXXXX, not as a surrogate pair, so everything non-ASCII is escaped by code point.
 */
export function tomlString(s: string): string {
  let out = '';
  for (const ch of JSON.stringify(s)) {
    const c = ch.codePointAt(0)!;
    if (c < 0x7f) out += ch;
    else if (c <= 0xffff) out += `\\u${c.toString(16).padStart(4, '0')}`;
    else out += `\\U${c.toString(16).padStart(8, '0')}`;
  }
  return out;
}

/**
 * Text safe inside a comment of C++/TS/Python/CMake: one line, ASCII, no comment terminators,
 * no backslashes or trigraphs (line continuation) and no double quotes, so it can never close anything.
 */
export function commentText(s: string): string {
  return s
    .replace(/[\r\n\u2028\u2029]+/g, ' ')
    .replace(/[^\x20-\x7e]/g, '?')
    .replace(/\*\//g, '* /')
    .replace(/\\/g, '/')
    .replace(/"/g, "'")
    .replace(/\?\?/g, '? ?') // trigraphs, for compilers that still honour them
    .trim();
}

/**
 * The inside of a CMake quoted argument ("..."): backslash, double quote, `$` (a variable
 * reference) and line breaks escaped, so a path is read literally. (A `;` stays: CMake would
 * take it as a list separator where the value becomes a list, escaped or not.)
 */
export function cmakeQuotedText(s: string): string {
  return s
    .replace(/[\\"$]/g, (c) => `\\${c}`)
    .replace(/\r/g, '\\r')
    .replace(/\n/g, '\\n');
}

/** Shortest round-trip float32 literal for C++ (`0.01f`). */
export function cppFloat(v: number): string {
  // Checked first: 'Infinity' has no '.', so it would become `Infinity.0f` below.
  if (!Number.isFinite(Math.fround(v))) throw new Error(`non-finite float ${v}`);
  const f = Math.fround(v);
  let s = String(f);
  // Prefer the shortest decimal that round-trips through float32.
  for (let p = 1; p <= 9; p++) {
    const t = f.toPrecision(p);
    if (Math.fround(Number(t)) === f) {
      s = String(Number(t));
      break;
    }
  }
  if (!/[.eE]/.test(s)) s += '.0';
  return `${s}f`;
}

/** A float for Python/TS (shortest round-trip through float32). */
export function plainFloat(v: number): string {
  return cppFloat(v).slice(0, -1);
}

/** int64 literal for C++. */
export function cppInt(v: number): string {
  return v < 0 ? `(${v}LL)` : `${v}LL`;
}

/** An attribute value as a C++ expression of the op core's attribute type. */
export function cppAttrValue(a: { type: AttributeIR['type'] }, v: AttrValue): string {
  switch (a.type) {
    case 'bool':
      return v ? 'true' : 'false';
    case 'int':
      return cppInt(v as number);
    case 'float':
      return cppFloat(v as number);
    case 'string':
      return `std::string(${cppString(v as string)})`;
    case 'ints':
      return `std::vector<int64_t>{${(v as number[]).map(cppInt).join(', ')}}`;
    case 'floats':
      return `std::vector<float>{${(v as number[]).map(cppFloat).join(', ')}}`;
  }
}
