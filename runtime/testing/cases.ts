// The inputs of a spec's `tests:` cases, made once in TS so that every backend (the Node addon,
// the PyTorch reference and extension, ONNX Runtime) runs on the same bytes, with or without torch.
// Random inputs come from a seeded PRNG over the case's range; explicit values are converted as
// torch's `.to(dtype)` converts (round to nearest for floats, truncation for ints, != 0 for bool).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { caseInputDtype } from '../../generator/model/ir-helpers.js';
import type { AttrValue, OpIR, TestCaseIR } from '../../generator/model/ir.js';
import { DTYPE_INFO, type DType } from '../../generator/model/type-table.js';
import { bf16ToNumber, halfToNumber, numberToBf16, numberToHalf } from './half.js';

export type Data = Float32Array | Float64Array | Uint16Array | Int8Array | Uint8Array | Int32Array | BigInt64Array;
/** A dense row-major host tensor, laid out as the Node binding and ONNX Runtime take it. */
export interface HostTensor {
  dtype: DType;
  dims: number[];
  data: Data;
}

const ARRAYS: Record<DType, new (n: number | ArrayBuffer) => Data> = {
  float32: Float32Array,
  float16: Uint16Array,
  bfloat16: Uint16Array,
  float64: Float64Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int32: Int32Array,
  int64: BigInt64Array,
  bool: Uint8Array,
};

/** mulberry32: small, seedable, and the same on every machine. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Stores a number as an element of dtype, the way torch's `.to(dtype)` converts a float64. */
function store(data: Data, i: number, dtype: DType, v: number): void {
  switch (dtype) {
    case 'float16':
      data[i] = numberToHalf(v);
      return;
    case 'bfloat16':
      data[i] = numberToBf16(v);
      return;
    case 'bool':
      data[i] = v !== 0 ? 1 : 0;
      return;
    case 'int64':
      (data as BigInt64Array)[i] = BigInt(Math.trunc(v));
      return;
    case 'float32':
    case 'float64':
      data[i] = v;
      return;
    default:
      data[i] = Math.trunc(v); // the typed array wraps int8/uint8/int32 as a C cast would
  }
}

/** One input of a case: a tensor, a variadic input's members, or undefined for an absent optional input. */
export type CaseInput = HostTensor | HostTensor[] | undefined;

/** The tensors of a case's inputs in call order: the inputs, a variadic input's members in its place. */
export function caseTensors(inputs: readonly CaseInput[]): (HostTensor | undefined)[] {
  return inputs.flatMap((x) => (Array.isArray(x) ? x : [x]));
}

/** The case's inputs in spec order (undefined for an absent optional input; a variadic input: its members). */
export function makeInputs(op: OpIR, t: TestCaseIR): CaseInput[] {
  const rnd = prng(t.seed);
  return op.inputs.map((inp): CaseInput => {
    const given = t.inputs.filter((x) => x.name === inp.name);
    if (!given.length) return undefined;
    const made = given.map((g) => makeTensor(g, caseInputDtype(op, t, g), rnd));
    return inp.variadic ? made : made[0];
  });
}

/** One tensor of a case from its dims and explicit values or range (random draws from `rnd`, in order). */
function makeTensor(given: TestCaseIR['inputs'][number], dtype: DType, rnd: () => number): HostTensor {
  const n = given.shape.reduce((a, b) => a * b, 1);
  const data = new ARRAYS[dtype](n);
  const [lo, hi] = given.range;
  for (let i = 0; i < n; i++) {
    const u = rnd();
    if (given.values) store(data, i, dtype, given.values[i]!);
    else if (dtype === 'bool')
      data[i] = u < 0.5 ? 1 : 0; // a range says nothing about bools: half each
    else
      store(data, i, dtype, DTYPE_INFO[dtype].isFloat ? lo + u * (hi - lo) : Math.floor(lo + u * (hi - lo + 1 - 1e-9)));
  }
  return { dtype, dims: [...given.shape], data };
}

/** Elements as numbers (16-bit floats decoded) or bigints (int64). */
export function elements(t: HostTensor): (number | bigint)[] {
  if (t.dtype === 'float16') return Array.from(t.data as Uint16Array, halfToNumber);
  if (t.dtype === 'bfloat16') return Array.from(t.data as Uint16Array, bf16ToNumber);
  return Array.from(t.data as ArrayLike<number | bigint>);
}

/** A tensor's bytes as a file (little-endian; bool as 0/1 bytes; 16-bit floats as their bits). */
export interface TensorFile {
  dtype: DType;
  dims: number[];
  file: string;
}

export function writeTensor(dir: string, file: string, t: HostTensor): TensorFile {
  writeFileSync(path.join(dir, file), new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
  return { dtype: t.dtype, dims: [...t.dims], file };
}

export function readTensor(dir: string, f: TensorFile): HostTensor {
  const bytes = readFileSync(path.join(dir, f.file));
  const copy = new ArrayBuffer(bytes.byteLength); // aligned for the typed array
  new Uint8Array(copy).set(bytes);
  return { dtype: f.dtype, dims: f.dims, data: new ARRAYS[f.dtype](copy) };
}

/** What a case file holds: everything the Python side needs to run the case without the spec. */
export interface CaseDoc {
  op: string;
  index: number;
  /** Every attribute, defaults filled in. */
  attributes: Record<string, AttrValue>;
  /** The attributes the case sets itself. */
  given: Record<string, AttrValue>;
  rtol: number;
  atol: number;
  /** A variadic input: its members' files. */
  inputs: Record<string, TensorFile | TensorFile[] | null>;
}

/** Writes <dir>/<snake>/<k>.json and its input files; returns the case doc. */
export function writeCase(dir: string, op: OpIR, t: TestCaseIR, inputs: readonly CaseInput[]): CaseDoc {
  const d = path.join(dir, op.ident.snake);
  mkdirSync(d, { recursive: true });
  const doc: CaseDoc = {
    op: op.name,
    index: t.index,
    attributes: t.attributes,
    given: Object.fromEntries(t.given.map((k) => [k, t.attributes[k]!])),
    rtol: t.rtol,
    atol: t.atol,
    inputs: Object.fromEntries(
      op.inputs.map((inp, i) => {
        const x = inputs[i];
        const file = (h: HostTensor, m?: number): TensorFile =>
          writeTensor(d, `${t.index}.in.${inp.name}${m === undefined ? '' : `.${m}`}.bin`, h);
        return [inp.name, x === undefined ? null : Array.isArray(x) ? x.map(file) : file(x)];
      }),
    ),
  };
  writeFileSync(path.join(d, `${t.index}.json`), `${JSON.stringify(doc)}\n`);
  return doc;
}
