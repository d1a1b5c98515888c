// Spec test cases as dumped by test/python/dump_cases.py (inputs and the spec reference's outputs),
// and the comparison every backend's outputs go through.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { DType } from '../../generator/type-table.js';
import { bf16ToNumber, halfToNumber } from '../helpers/half.js';

export type Data = Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array | Int32Array | BigInt64Array;
export interface Tensor { dtype: DType; dims: number[]; data: Data }

interface TensorFile { dtype: DType; dims: number[]; file: string }
interface CaseDoc {
  attributes: Record<string, unknown>;
  given: Record<string, unknown>;
  rtol: number;
  atol: number;
  inputs: Record<string, TensorFile | null>;
  outputs: Record<string, TensorFile>;
}

export interface DumpedCase {
  index: number;
  /** Every attribute (defaults filled in), as the reference saw them. */
  attributes: Record<string, unknown>;
  /** The attributes the case sets; a backend must supply the defaults of the rest itself. */
  given: Record<string, unknown>;
  rtol: number;
  atol: number;
  /** In spec order; undefined for an absent optional input. */
  inputs: (Tensor | undefined)[];
  inputNames: string[];
  outputs: Record<string, Tensor>;
}

const ARRAYS: Record<DType, new (b: ArrayBuffer) => Data> = {
  float32: Float32Array, float16: Uint16Array, bfloat16: Uint16Array, float64: Float64Array,
  int8: Int8Array, uint8: Uint8Array, int32: Int32Array, int64: BigInt64Array, bool: Uint8Array,
};

function readTensor(dir: string, f: TensorFile): Tensor {
  const bytes = readFileSync(path.join(dir, f.file));
  const copy = new ArrayBuffer(bytes.byteLength);  // aligned for the typed array
  new Uint8Array(copy).set(bytes);
  return { dtype: f.dtype, dims: f.dims, data: new ARRAYS[f.dtype](copy) };
}

export function readCase(casesDir: string, snake: string, index: number): DumpedCase {
  const dir = path.join(casesDir, snake);
  const doc = JSON.parse(readFileSync(path.join(dir, `${index}.json`), 'utf8')) as CaseDoc;
  return {
    index,
    attributes: doc.attributes,
    given: doc.given,
    rtol: doc.rtol,
    atol: doc.atol,
    inputNames: Object.keys(doc.inputs),
    inputs: Object.values(doc.inputs).map((f) => (f ? readTensor(dir, f) : undefined)),
    outputs: Object.fromEntries(Object.entries(doc.outputs).map(([k, f]) => [k, readTensor(dir, f)])),
  };
}

function values(t: Tensor): (number | bigint)[] {
  if (t.dtype === 'float16') return Array.from(t.data as Uint16Array, halfToNumber);
  if (t.dtype === 'bfloat16') return Array.from(t.data as Uint16Array, bf16ToNumber);
  return Array.from(t.data as ArrayLike<number | bigint>);
}

/** The first difference between a backend's outputs and the reference's, named by output and element; undefined when all agree. */
export function compareOutputs(got: Record<string, { dtype: string; dims: readonly number[]; data: unknown }>, c: DumpedCase): string | undefined {
  for (const [name, want] of Object.entries(c.outputs)) {
    const g = got[name];
    if (!g) return `output ${name} missing (got ${Object.keys(got).join(', ')})`;
    if (g.dtype !== want.dtype) return `output ${name} has dtype ${g.dtype}, reference ${want.dtype}`;
    if (JSON.stringify([...g.dims]) !== JSON.stringify(want.dims)) return `output ${name} has dims [${g.dims.join(', ')}], reference [${want.dims.join(', ')}]`;
    const gv = values(g as Tensor), wv = values(want);
    if (gv.length !== wv.length) return `output ${name} has ${gv.length} elements, reference ${wv.length}`;
    for (let i = 0; i < gv.length; i++) {
      const a = gv[i]!, b = wv[i]!;
      if (typeof a === 'bigint' || typeof b === 'bigint') { if (a !== b) return `output ${name}[${i}] = ${a}, reference ${b}`; continue; }
      const isFloat = /^(b?float)/.test(want.dtype);
      const ok = a === b || (Number.isNaN(a) && Number.isNaN(b)) || (isFloat && Math.abs(a - b) <= c.atol + c.rtol * Math.abs(b));
      if (!ok) return `output ${name}[${i}] = ${a}, reference ${b} (rtol ${c.rtol}, atol ${c.atol})`;
    }
  }
  return undefined;
}
