// The one comparison every backend's outputs go through: dtype, dims, then every element within
// the case's tolerance (|got - want| <= atol + rtol * |want|; integers and bools exactly; NaN
// matches NaN). Reports the largest error, and the first element out of tolerance by name and index.

import { elements, type HostTensor } from './cases.js';

export interface Comparison {
  /** Largest |got - want| over every output (0 for exact matches; NaN when dims or dtypes differ). */
  maxError: number;
  /** The first difference, named by output and element; undefined when everything agrees. */
  mismatch?: string;
}

export interface Tolerance {
  rtol: number;
  atol: number;
}

/** A tensor as a backend returns it (data may be any typed array). */
export interface GotTensor {
  dtype: string;
  dims: readonly number[];
  data: unknown;
}

export function compareOutputs(
  got: Readonly<Record<string, GotTensor>>,
  want: Readonly<Record<string, HostTensor>>,
  tol: Tolerance,
): Comparison {
  let maxError = 0;
  let mismatch: string | undefined;
  // An output the reference leaves out (`present:`) must be left out too.
  const extra = Object.keys(got).filter((name) => !(name in want));
  if (extra.length) return { maxError: NaN, mismatch: `output ${extra.join(', ')} given, but the reference has none` };
  for (const [name, w] of Object.entries(want)) {
    const g = got[name];
    if (!g) return { maxError: NaN, mismatch: `output ${name} missing (got ${Object.keys(got).join(', ') || 'none'})` };
    if (g.dtype !== w.dtype)
      return { maxError: NaN, mismatch: `output ${name} has dtype ${g.dtype}, expected ${w.dtype}` };
    if (g.dims.length !== w.dims.length || g.dims.some((d, i) => d !== w.dims[i])) {
      return {
        maxError: NaN,
        mismatch: `output ${name} has dims [${g.dims.join(', ')}], expected [${w.dims.join(', ')}]`,
      };
    }
    const gv = elements(g as HostTensor);
    const wv = elements(w);
    if (gv.length !== wv.length)
      return { maxError: NaN, mismatch: `output ${name} has ${gv.length} elements, expected ${wv.length}` };
    const isFloat = /float/.test(w.dtype);
    for (let i = 0; i < gv.length; i++) {
      const a = gv[i]!;
      const b = wv[i]!;
      if (typeof a === 'bigint' || typeof b === 'bigint') {
        if (a !== b) {
          maxError = Math.max(maxError, Math.abs(Number(BigInt(a) - BigInt(b))));
          mismatch ??= `output ${name}[${i}] = ${a}, expected ${b}`;
        }
        continue;
      }
      if (a === b || (Number.isNaN(a) && Number.isNaN(b))) continue;
      const err = Math.abs(a - b);
      if (!Number.isNaN(err)) maxError = Math.max(maxError, err);
      const ok = isFloat && err <= tol.atol + tol.rtol * Math.abs(b);
      if (!ok)
        mismatch ??= `output ${name}[${i}] = ${a}, expected ${b}${isFloat ? ` (rtol ${tol.rtol}, atol ${tol.atol})` : ''}`;
    }
  }
  return mismatch === undefined ? { maxError } : { maxError, mismatch };
}
