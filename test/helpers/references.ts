// Independent references for the seed ops and the adapter-test fixture op (written here from the
// specs' descriptions, not taken from the kernels) and the inputs of a spec test case, shared by
// the tests that run the ops through a backend.

import type { OpIR, TestCaseIR } from '../../generator/model/ir.js';
import { caseInputDtype } from '../../generator/model/ir-helpers.js';
import { halfToNumber, numberToHalf } from './half.js';

export type Arr = Float32Array | Float64Array | Uint16Array | Int32Array;
export interface T {
  dtype: string;
  dims: number[];
  data: Arr;
}

/** Seeded uniform [0, 1) generator (mulberry32). */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function tensor(dtype: string, dims: number[], values: number[]): T {
  switch (dtype) {
    case 'float32':
      return { dtype, dims, data: Float32Array.from(values) };
    case 'float64':
      return { dtype, dims, data: Float64Array.from(values) };
    case 'float16':
      return { dtype, dims, data: Uint16Array.from(values.map(numberToHalf)) };
    case 'int32':
      return { dtype, dims, data: Int32Array.from(values) };
    default:
      throw new Error(dtype);
  }
}

/** Elements as numbers (16-bit floats decoded). */
export const num = (t: T): number[] =>
  t.dtype === 'float16' ? [...t.data].map(halfToNumber) : [...t.data].map(Number);

/** Per output pixel (row-major), its 16 (in-plane index, weight) taps: PyTorch's bicubic (A = -0.75, clamped). */
function bicubicTaps(h: number, w: number, oh: number, ow: number, align: boolean): [number, number][][] {
  const A = -0.75;
  const cc1 = (t: number) => ((A + 2) * t - (A + 3)) * t * t + 1;
  const cc2 = (t: number) => ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  const scale = (i: number, o: number) => (align ? (o > 1 ? (i - 1) / (o - 1) : 0) : i / o);
  const src = (s: number, d: number) => (align ? s * d : s * (d + 0.5) - 0.5);
  const pixels: [number, number][][] = [];
  for (let y = 0; y < oh; y++)
    for (let xo = 0; xo < ow; xo++) {
      const fy = src(scale(h, oh), y),
        fx = src(scale(w, ow), xo);
      const y0 = Math.floor(fy),
        x0 = Math.floor(fx),
        ty = fy - y0,
        tx = fx - x0;
      const wy = [cc2(ty + 1), cc1(ty), cc1(1 - ty), cc2(2 - ty)],
        wx = [cc2(tx + 1), cc1(tx), cc1(1 - tx), cc2(2 - tx)];
      const taps: [number, number][] = [];
      for (let r = 0; r < 4; r++)
        for (let k = 0; k < 4; k++) {
          const yy = Math.min(Math.max(y0 - 1 + r, 0), h - 1),
            xx = Math.min(Math.max(x0 - 1 + k, 0), w - 1);
          taps.push([yy * w + xx, wy[r]! * wx[k]!]);
        }
      pixels.push(taps);
    }
  return pixels;
}

function bicubicRef(x: number[], [n, c, h, w]: number[], oh: number, ow: number, align: boolean): number[] {
  const pixels = bicubicTaps(h!, w!, oh, ow, align);
  const out: number[] = [];
  for (let p = 0; p < n! * c!; p++)
    for (const taps of pixels) out.push(taps.reduce((acc, [i, wt]) => acc + wt * x[p * h! * w! + i]!, 0));
  return out;
}

/** The gradient of bicubicRef for the input: each output pixel's gradient to its 4 x 4 taps. */
function bicubicGradRef(g: number[], [n, c, h, w]: number[], oh: number, ow: number, align: boolean): number[] {
  const pixels = bicubicTaps(h!, w!, oh, ow, align);
  const out = new Array<number>(n! * c! * h! * w!).fill(0);
  for (let p = 0; p < n! * c!; p++) {
    pixels.forEach((taps, q) => {
      const gv = g[p * oh * ow + q]!;
      for (const [i, wt] of taps) out[p * h! * w! + i] = out[p * h! * w! + i]! + wt * gv;
    });
  }
  return out;
}

function knnRef(xyz: number[], off: number[], q: number[], qoff: number[], k: number): { idx: number[]; d2: number[] } {
  const idx: number[] = [],
    d2: number[] = [];
  for (let i = 0; i < q.length / 3; i++) {
    const b = qoff.findIndex((o) => i < o);
    const begin = b > 0 ? off[b - 1]! : 0,
      end = off[b]!;
    const cands: [number, number][] = [];
    for (let j = begin; j < end; j++) {
      const dx = Math.fround(xyz[3 * j]! - q[3 * i]!),
        dy = Math.fround(xyz[3 * j + 1]! - q[3 * i + 1]!),
        dz = Math.fround(xyz[3 * j + 2]! - q[3 * i + 2]!);
      cands.push([Math.fround(Math.fround(Math.fround(dx * dx) + Math.fround(dy * dy)) + Math.fround(dz * dz)), j]);
    }
    cands.sort((a, c) => a[0] - c[0] || a[1] - c[1]);
    for (let s = 0; s < k; s++) {
      idx.push(cands[s]?.[1] ?? -1);
      d2.push(cands[s]?.[0] ?? Infinity);
    }
  }
  return { idx, d2 };
}

export type RefInputs = Record<string, { dims: number[]; values: number[] }>;

/** The outputs of a seed op, by output name. */
export function reference(op: OpIR, ins: RefInputs, attrs: Record<string, unknown>): Record<string, number[]> {
  const alpha = (dflt: number) => (attrs.alpha as number | undefined) ?? dflt;
  switch (op.name) {
    case 'CustomRelu':
      return { y: ins.x!.values.map((v) => (v > 0 ? v : alpha(0) * v)) };
    case 'LeakyRelu':
      return { output: ins.input!.values.map((v) => (v >= 0 ? v : alpha(0.01) * v)) };
    case 'MyAdd':
      return { c: ins.a!.values.map((v, i) => 2 * v + ins.b!.values[i]!) };
    // The gradient ops of the seed ops' backward.
    case 'CustomReluGrad':
      return { grad_x: ins.grad_y!.values.map((g, i) => (ins.x!.values[i]! > 0 ? g : alpha(0) * g)) };
    case 'LeakyReluGrad':
      return { grad_input: ins.grad_output!.values.map((g, i) => (ins.input!.values[i]! >= 0 ? g : alpha(0.01) * g)) };
    case 'MyAddGrad':
      return { grad_a: ins.grad_c!.values.map((g) => 2 * g), grad_b: [...ins.grad_c!.values] };
    case 'DynamicTRTResize': {
      const s = ins.size_tensor!.dims;
      return {
        output: bicubicRef(
          ins.input!.values,
          ins.input!.dims,
          s[2]!,
          s[3]!,
          (attrs.align_corners as boolean | undefined) ?? false,
        ),
      };
    }
    case 'DynamicTRTResizeGrad': {
      const o = ins.grad_output!.dims;
      return {
        grad_input: bicubicGradRef(
          ins.grad_output!.values,
          ins.input!.dims,
          o[2]!,
          o[3]!,
          (attrs.align_corners as boolean | undefined) ?? false,
        ),
      };
    }
    case 'StridedScale': {
      // test/fixtures/adapters
      const [rows, cols] = ins.x!.dims as [number, number];
      const stride = attrs.stride as number,
        oc = Math.ceil(cols / stride);
      const extra =
        (attrs.pads as number[]).length + (attrs.weights as number[]).reduce((a, b) => a + Math.fround(b), 0);
      const y: number[] = [];
      for (let i = 0; i < rows; i++)
        for (let j = 0; j < oc; j++) {
          const k = i * cols + j * stride;
          let v = ins.x!.values[k]! + (ins.bias ? ins.bias.values[k]! : 0);
          if (attrs.enabled) v *= Math.fround(attrs.scale as number);
          if (attrs.mode === 'negate') v = -v;
          y.push(v + extra);
        }
      return { y };
    }
    case 'KNNQuery': {
      const r = knnRef(
        ins.xyz!.values,
        ins.offset!.values,
        ins.new_xyz!.values,
        ins.new_offset!.values,
        attrs.nsample as number,
      );
      return { idx: r.idx, dist2: r.d2 };
    }
  }
  throw new Error(`no reference for ${op.name}`);
}

/** The input tensors of a test case (seeded random data unless given) and what the reference sees (the rounded values). */
export function caseInputs(op: OpIR, t: TestCaseIR): { args: (T | undefined)[]; ins: RefInputs } {
  const ins: RefInputs = {};
  const args = op.inputs.map((inp, k) => {
    const ti = t.inputs.find((x) => x.name === inp.name);
    if (!ti) return undefined;
    const dtype = caseInputDtype(op, t, ti);
    const n = ti.shape.reduce((a, b) => a * b, 1);
    const r = rng(t.seed + k);
    const raw = ti.values ?? Array.from({ length: n }, () => ti.range[0] + (ti.range[1] - ti.range[0]) * r());
    const tt = tensor(dtype, ti.shape, dtype.startsWith('int') ? raw.map(Math.floor) : raw);
    ins[inp.name] = { dims: ti.shape, values: num(tt) };
    return tt;
  });
  return { args, ins };
}

/** Asserts every output of a case is within the case's tolerance of the reference; returns the first mismatch. */
export function mismatch(
  op: OpIR,
  t: TestCaseIR,
  out: Record<string, T>,
  want: Record<string, number[]>,
): string | undefined {
  for (const o of op.outputs) {
    const got = num(out[o.name]!);
    const w = want[o.name]!;
    if (got.length !== w.length)
      return `${op.name} case ${t.index}: ${o.name} has ${got.length} elements, reference ${w.length}`;
    for (let i = 0; i < got.length; i++) {
      const g = got[i]!,
        e = w[i]!;
      if (!(g === e || Math.abs(g - e) <= t.atol + t.rtol * Math.abs(e)))
        return `${op.name} case ${t.index} (${t.binding.suffix}): ${o.name}[${i}] = ${g}, reference ${e}`;
    }
  }
  return undefined;
}

/** Test cases with shapes and attributes drawn around the spec's (packed KNNQuery batches kept consistent). */
export function randomCases(op: OpIR, count: number): TestCaseIR[] {
  const r = rng(7 + op.name.length);
  const cases: TestCaseIR[] = [];
  for (let k = 0; k < count; k++) {
    const t = op.tests[k % op.tests.length]!;
    const scaled: TestCaseIR = {
      ...t,
      seed: 100 + k,
      inputs: t.inputs.map((i) =>
        i.values
          ? i
          : {
              ...i,
              shape: i.shape.map((d, j) =>
                op.name === 'KNNQuery' && j === 1 ? d : Math.max(1, Math.round(d * (0.5 + 1.5 * r()))),
              ),
            },
      ),
    };
    if (op.name === 'DynamicTRTResizeGrad') {
      const go = scaled.inputs.find((i) => i.name === 'grad_output')!.shape;
      scaled.inputs = scaled.inputs.map((i) =>
        i.name === 'input' ? { ...i, shape: [go[0]!, go[1]!, 1 + Math.floor(20 * r()), 1 + Math.floor(20 * r())] } : i,
      );
    }
    if (op.name === 'DynamicTRTResize')
      scaled.inputs = scaled.inputs.map((i) =>
        i.name === 'input' ? i : { ...i, shape: [1, 1, 1 + Math.floor(20 * r()), 1 + Math.floor(20 * r())] },
      );
    if (op.name === 'KNNQuery') {
      // Packed batches need consistent offsets: draw per-batch counts, then the offsets.
      const b = 1 + Math.floor(3 * r());
      const pc = Array.from({ length: b }, () => Math.floor(80 * r()));
      const qc = Array.from({ length: b }, () => 1 + Math.floor(5 * r()));
      const cum = (xs: number[]) => xs.map((_, i) => xs.slice(0, i + 1).reduce((x, y) => x + y, 0));
      const n = pc.reduce((x, y) => x + y, 0),
        m = qc.reduce((x, y) => x + y, 0);
      scaled.inputs = [
        { name: 'xyz', shape: [n, 3], values: undefined, range: [-1, 1] },
        { name: 'offset', shape: [b], values: cum(pc), range: [0, 0] },
        { name: 'new_xyz', shape: [m, 3], values: undefined, range: [-1, 1] },
        { name: 'new_offset', shape: [b], values: cum(qc), range: [0, 0] },
      ];
      // Up to 60 neighbours: the CPU kernel keeps a sorted list up to 32 and a heap beyond.
      scaled.attributes = { nsample: 1 + Math.floor((r() < 0.5 ? 8 : 60) * r()) };
    }
    // Inputs constrained `shape: <earlier input>` (MyAdd's b, the gradient ops' second input) follow it.
    scaled.inputs = scaled.inputs.map((i) => {
      const c = op.inputs.find((x) => x.name === i.name)?.constraint;
      return c?.kind === 'like' ? { ...i, shape: scaled.inputs.find((x) => x.name === c.input)!.shape } : i;
    });
    cases.push(scaled);
  }
  return cases;
}
