// `opforge run <Op> --input name=d0,d1,...|name=file.npy [--attr name=value] [--device cpu|cuda]`:
// runs one op of the built Node addon on seeded random inputs (or .npy files) and prints output
// shapes, a few values and the time.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse as parseNpy } from 'npyjs';
import { loadProject } from '../generator/model/project.js';
import { DTYPE_INFO, type DType } from '../generator/model/type-table.js';
import { load } from './index.js';

interface RunArgs {
  op: string;
  inputs: string[];
  attrs: string[];
  device: string;
  opsDir: string;
  seed: number;
}

function parseAttr(raw: string, type: string): unknown {
  switch (type) {
    case 'bool':
      return raw === 'true' || raw === '1';
    case 'int':
    case 'float':
      return Number(raw);
    case 'ints':
    case 'floats':
      return raw === '' ? [] : raw.split(',').map(Number);
    default:
      return raw;
  }
}

/** numpy dtype codes (little-endian or byte-sized) of the dtypes opforge knows. */
const NPY_DTYPES: Record<string, DType> = {
  f4: 'float32',
  f2: 'float16',
  f8: 'float64',
  i1: 'int8',
  u1: 'uint8',
  i4: 'int32',
  i8: 'int64',
  b1: 'bool',
};

/** An IEEE binary16 bit pattern as a number (16-bit floats travel as raw bits in a Uint16Array). */
function halfValue(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 31) return m ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}

interface HostTensor {
  dtype: DType;
  dims: number[];
  data: ArrayLike<number | bigint>;
}

/** Reads a C-order .npy file into a tensor (npyjs parses the format). */
export function readNpy(file: string): HostTensor {
  const bytes = readFileSync(file);
  const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  let r: ReturnType<typeof parseNpy>;
  try {
    r = parseNpy(buf, { convertFloat16: false });
  } catch (e) {
    throw new Error(`${file}: not a .npy file (${(e as Error).message})`);
  }
  const header = new TextDecoder().decode(new Uint8Array(buf, 0, Math.min(256, buf.byteLength)));
  if (/'descr':\s*'>/.test(header))
    throw new Error(`${file}: big-endian data is not supported; save with dtype.newbyteorder('<')`);
  if (r.fortranOrder) throw new Error(`${file}: Fortran-order array; save it with np.ascontiguousarray`);
  const dtype = NPY_DTYPES[r.dtype];
  if (!dtype)
    throw new Error(
      `${file}: numpy dtype ${r.dtype} has no opforge dtype (supported: ${Object.keys(NPY_DTYPES).join(', ')})`,
    );
  // npyjs types data as any typed array or a plain array (bools, strings).
  const raw = r.data as unknown as ArrayLike<unknown>;
  const data = dtype === 'bool' ? Uint8Array.from(raw, (v) => (v ? 1 : 0)) : (raw as ArrayLike<number | bigint>);
  return { dtype, dims: r.shape.map(Number), data };
}

export async function runOp(a: RunArgs): Promise<string> {
  if (a.device !== 'cpu' && a.device !== 'cuda') throw new Error(`--device ${a.device}: use cpu or cuda`);
  const project = loadProject({ opsDir: a.opsDir });
  const op = project.ops.find((o) => o.name === a.op || o.ident.camel === a.op || o.ident.snake === a.op);
  if (!op) throw new Error(`no op ${a.op} (ops: ${project.ops.map((o) => o.name).join(', ')})`);
  // name=d0,d1,...[:v0,v1,...] — dims, then optional explicit values (e.g. KNNQuery offsets).
  const files = new Map<string, HostTensor>();
  const parsed = a.inputs.map((s) => {
    const [k, rest = ''] = s.split('=');
    if (rest.endsWith('.npy')) {
      files.set(k!, readNpy(rest));
      return { name: k!, dims: files.get(k!)!.dims, values: undefined };
    }
    const [d = '', v] = rest.split(':');
    return {
      name: k!,
      dims: d === '' ? [] : d.split(',').map(Number),
      values: v === undefined ? undefined : v.split(',').map(Number),
    };
  });
  const dims = new Map(parsed.map((p) => [p.name, p.dims]));
  const given = new Map(parsed.map((p) => [p.name, p.values]));
  for (const k of dims.keys())
    if (!op.inputs.some((i) => i.name === k))
      throw new Error(`${op.name} has no input ${k} (inputs: ${op.inputs.map((i) => i.name).join(', ')})`);
  let s = a.seed >>> 0;
  const rnd = (): number => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
  const chosen = new Map<string, DType>();
  const tensors = op.inputs.map((i) => {
    const d = dims.get(i.name);
    if (!d) return undefined;
    const file = files.get(i.name);
    if (file) {
      const allowed = i.type.kind === 'fixed' ? [i.type.dtype] : i.type.dtypes;
      if (!allowed.includes(file.dtype))
        throw new Error(`--input ${i.name}: the file holds ${file.dtype}; ${op.name} takes ${allowed.join(', ')}`);
      if (i.type.kind === 'var') chosen.set(i.type.name, file.dtype);
      return file;
    }
    const dtype =
      i.type.kind === 'fixed' ? i.type.dtype : (i.type.kind === 'var' && chosen.get(i.type.name)) || i.type.dtypes[0]!;
    if (i.type.kind === 'var') chosen.set(i.type.name, dtype);
    const n = d.reduce((x, y) => x * y, 1);
    const Arr = globalThis[DTYPE_INFO[dtype].tsArray as 'Float32Array'] as unknown as new (
      n: number,
    ) => { [k: number]: number | bigint; length: number };
    const data = new Arr(n);
    const explicit = given.get(i.name);
    if (explicit && explicit.length !== n)
      throw new Error(`--input ${i.name}: ${explicit.length} values for ${n} elements`);
    for (let k = 0; k < n; k++)
      data[k] = explicit
        ? DTYPE_INFO[dtype].tsElem === 'bigint'
          ? BigInt(explicit[k]!)
          : explicit[k]!
        : DTYPE_INFO[dtype].tsElem === 'bigint'
          ? BigInt(Math.floor(rnd() * 100))
          : DTYPE_INFO[dtype].isFloat
            ? rnd() * 2 - 1
            : Math.floor(rnd() * 100);
    return { dtype, dims: d, data };
  });
  const attrs = Object.fromEntries(
    a.attrs.map((kv) => {
      const [k, v = ''] = kv.split('=');
      const spec = op.attributes.find((x) => x.name === k);
      return [k!, spec ? parseAttr(v, spec.type) : v];
    }),
  );
  type Out = Record<string, { dims: number[]; data: ArrayLike<number | bigint> }>;
  const mod = (await import(pathToFileURL(path.resolve('out', 'node', 'index.js')).href)) as {
    bind: (x: unknown) => Record<string, (...args: unknown[]) => Out>;
    device: (x: unknown) => {
      cudaAvailable(): boolean;
      builtWithCuda(): boolean;
      toDevice(t: unknown): unknown;
      toHost(t: unknown): Out[string];
    };
  };
  const addon = load();
  const fn = mod.bind(addon)[op.ident.camel]!;
  let out: Out;
  let ms: number;
  if (a.device === 'cuda') {
    const dev = mod.device(addon);
    if (!dev.builtWithCuda())
      throw new Error('--device cuda: the addon was built without CUDA; run `opforge build --cuda`');
    if (!dev.cudaAvailable()) throw new Error('--device cuda: no CUDA device (the addon has its CUDA kernels)');
    const onDevice = tensors.map((t) => (t === undefined ? undefined : dev.toDevice(t)));
    const t0 = performance.now();
    const res = fn(...onDevice, attrs);
    // toHost waits for the kernel: the time covers the kernel and the copy back.
    out = Object.fromEntries(Object.entries(res).map(([k, t]) => [k, dev.toHost(t)]));
    ms = performance.now() - t0;
  } else {
    const t0 = performance.now();
    out = fn(...tensors, attrs);
    ms = performance.now() - t0;
  }
  const shown = (t: Out[string] & { dtype?: string }, i: number): string => {
    const v = t.data[i]!;
    if (t.dtype === 'float16') return String(halfValue(Number(v)));
    if (t.dtype === 'bfloat16') return String(new Float32Array(new Uint32Array([Number(v) << 16]).buffer)[0]);
    return String(v);
  };
  return [
    `${op.name} on ${a.device}: ${ms.toFixed(3)} ms${a.device === 'cuda' ? ' (kernel + copy back)' : ''}`,
    ...Object.entries(out).map(
      ([k, t]) =>
        `  ${k}: [${t.dims.join(', ')}] ${Array.from({ length: Math.min(6, t.data.length) }, (_, i) => shown(t, i)).join(' ')}${t.data.length > 6 ? ' ...' : ''}`,
    ),
  ].join('\n');
}
