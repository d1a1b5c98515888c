// Identifier rules shared by the validator and every emitter. Names from specs land in C++,
// Python and TypeScript unchanged, so a name that is a keyword in any of them is rejected
// (docs/decisions.md: rejecting beats mangling because ONNX attribute names and Python
// keyword arguments must stay exactly as the user wrote them).

import type { Idents } from './ir.js';

export const IDENT_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;

const CPP_KEYWORDS = `alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t
char32_t class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend goto if
inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private protected public
register reinterpret_cast requires return short signed sizeof static static_assert static_cast struct switch
template this thread_local throw true try typedef typeid typename union unsigned using virtual void volatile
wchar_t while xor xor_eq final override import module NULL`;
const PY_KEYWORDS = `False None True and as assert async await break class continue def del elif else except
finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case
type self cls torch g`;
const TS_KEYWORDS = `break case catch class const continue debugger default delete do else enum export extends
false finally for function if import in instanceof new null return super switch this throw true try typeof var
void while with implements interface let package private protected public static yield undefined arguments eval
await`;
// Names the generated code itself uses in the scopes where spec names appear.
const GENERATED = `attrs state io ctx stream workspace inputs outputs status opforge std nvinfer1 Ort Attrs State Io
kNumInputs kNumOutputs serialize deserialize validate _rt _OP`;

const RESERVED = new Set(
  [CPP_KEYWORDS, PY_KEYWORDS, TS_KEYWORDS, GENERATED].flatMap((s) => s.split(/\s+/)).filter(Boolean),
);

/** Why a name cannot be used, or undefined when it can. */
export function identProblem(name: string): string | undefined {
  if (!IDENT_RE.test(name)) return 'must be an identifier: a letter or _, then letters, digits or _ (ASCII)';
  if (name.length > 64) return 'must be at most 64 characters';
  if (RESERVED.has(name) || RESERVED.has(toSnake(name)) || RESERVED.has(toCamel(name))) {
    return 'is a keyword or reserved name in a generated language (C++, Python, TypeScript)';
  }
  if (name.startsWith('__') || /^_[A-Z]/.test(name) || name.includes('__'))
    return 'double underscores and _Capital are reserved in C++';
  return undefined;
}

/**
 * snake_case that keeps acronym runs together (DynamicTRTResize -> dynamic_trt_resize, KNNQuery ->
 * knn_query) and a digit run attached to the word before it, with a single capital that closes
 * that word (Pad2D -> pad2d, Conv3DTranspose -> conv3d_transpose), as PyTorch and ONNX name such
 * ops. The table of examples is in docs/spec.md ("Names").
 */
export function toSnake(name: string): string {
  return (
    name
      // 2D, 3D, 1D: the capital closes the digits' word when the word ends there (end of name, a
      // non-letter, or a capital that starts a word: Conv3DTranspose).
      .replace(/([0-9])([A-Z])(?=$|[^A-Za-z]|[A-Z][a-z])/g, (_, d: string, c: string) => d + c.toLowerCase())
      .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
      .toLowerCase()
  );
}

export function toPascal(name: string): string {
  return toSnake(name)
    .split('_')
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

export function toCamel(name: string): string {
  const p = toPascal(name);
  return p.length ? p[0]!.toLowerCase() + p.slice(1) : p;
}

export function idents(name: string): Idents {
  return { raw: name, snake: toSnake(name), camel: toCamel(name), pascal: toPascal(name) };
}

/**
 * An op's names: derived from `name`, or with the spec's `snake:` override the words it gives
 * (RoIAlign with `snake: roi_align`: roi_align, roiAlign, RoiAlign). ONNX, TensorRT and Paddle
 * types keep `name` itself.
 */
export function opIdents(name: string, snake?: string): Idents {
  if (snake === undefined) return idents(name);
  return { raw: name, snake, camel: toCamel(snake), pascal: toPascal(snake) };
}

export const SNAKE_RE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/** Why a `snake:` override cannot be used, or undefined when it can. */
export function snakeProblem(snake: string): string | undefined {
  if (!SNAKE_RE.test(snake))
    return 'must be snake_case: lowercase ASCII letters and digits in words joined by single underscores, starting with a letter';
  return identProblem(snake);
}
