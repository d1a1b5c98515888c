// Independent references of the seed ops (and the adapter-test fixture op), written from the
// specs' descriptions, not from the kernels; shared by the backend tests.
import type { OpIR } from '../../generator/ir.js';

/** Seeded uniform [0, 1) generator the tests draw input data from. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}

function bicubicRef(x: number[], [n, c, h, w]: number[], oh: number, ow: number, align: boolean): number[] {
  const A = -0.75;
  const cc1 = (t: number) => ((A + 2) * t - (A + 3)) * t * t + 1;
  const cc2 = (t: number) => ((A * t - 5 * A) * t + 8 * A) * t - 4 * A;
  const scale = (i: number, o: number) => (align ? (o > 1 ? (i - 1) / (o - 1) : 0) : i / o);
  const src = (s: number, d: number) => (align ? s * d : s * (d + 0.5) - 0.5);
  const out: number[] = [];
  for (let p = 0; p < n! * c!; p++) for (let y = 0; y < oh; y++) for (let xo = 0; xo < ow; xo++) {
    const fy = src(scale(h!, oh), y), fx = src(scale(w!, ow), xo);
    const y0 = Math.floor(fy), x0 = Math.floor(fx), ty = fy - y0, tx = fx - x0;
    const wy = [cc2(ty + 1), cc1(ty), cc1(1 - ty), cc2(2 - ty)], wx = [cc2(tx + 1), cc1(tx), cc1(1 - tx), cc2(2 - tx)];
    let acc = 0;
    for (let r = 0; r < 4; r++) for (let k = 0; k < 4; k++) {
      const yy = Math.min(Math.max(y0 - 1 + r, 0), h! - 1), xx = Math.min(Math.max(x0 - 1 + k, 0), w! - 1);
      acc += wy[r]! * wx[k]! * x[p * h! * w! + yy * w! + xx]!;
    }
    out.push(acc);
  }
  return out;
}

function knnRef(xyz: number[], off: number[], q: number[], qoff: number[], k: number): { idx: number[]; d2: number[] } {
  const idx: number[] = [], d2: number[] = [];
  for (let i = 0; i < q.length / 3; i++) {
    const b = qoff.findIndex((o) => i < o);
    const begin = b > 0 ? off[b - 1]! : 0, end = off[b]!;
    const cands: [number, number][] = [];
    for (let j = begin; j < end; j++) {
      const dx = Math.fround(xyz[3 * j]! - q[3 * i]!), dy = Math.fround(xyz[3 * j + 1]! - q[3 * i + 1]!), dz = Math.fround(xyz[3 * j + 2]! - q[3 * i + 2]!);
      cands.push([Math.fround(Math.fround(Math.fround(dx * dx) + Math.fround(dy * dy)) + Math.fround(dz * dz)), j]);
    }
    cands.sort((a, c) => a[0] - c[0] || a[1] - c[1]);
    for (let s = 0; s < k; s++) { idx.push(cands[s]?.[1] ?? -1); d2.push(cands[s]?.[0] ?? Infinity); }
  }
  return { idx, d2 };
}

export function reference(op: OpIR, ins: Record<string, { dims: number[]; values: number[] }>, attrs: Record<string, unknown>): Record<string, number[]> {
  switch (op.name) {
    case 'CustomRelu': return { y: ins.x!.values.map((v) => (v > 0 ? v : (attrs.alpha as number) * v)) };
    case 'LeakyRelu': return { output: ins.input!.values.map((v) => (v >= 0 ? v : (attrs.alpha as number) * v)) };
    case 'MyAdd': return { c: ins.a!.values.map((v, i) => 2 * v + ins.b!.values[i]!) };
    case 'DynamicTRTResize': {
      const s = ins.size_tensor!.dims;
      return { output: bicubicRef(ins.input!.values, ins.input!.dims, s[2]!, s[3]!, attrs.align_corners as boolean) };
    }
    case 'StridedScale': { // test/fixtures/adapters
      const [rows, cols] = ins.x!.dims as [number, number];
      const stride = attrs.stride as number, oc = Math.ceil(cols / stride);
      const extra = (attrs.pads as number[]).length + (attrs.weights as number[]).reduce((a, b) => a + Math.fround(b), 0);
      const y: number[] = [];
      for (let i = 0; i < rows; i++) for (let j = 0; j < oc; j++) {
        const k = i * cols + j * stride;
        let v = ins.x!.values[k]! + (ins.bias ? ins.bias.values[k]! : 0);
        if (attrs.enabled) v *= Math.fround(attrs.scale as number);
        if (attrs.mode === 'negate') v = -v;
        y.push(v + extra);
      }
      return { y };
    }
    case 'KNNQuery': {
      const r = knnRef(ins.xyz!.values, ins.offset!.values, ins.new_xyz!.values, ins.new_offset!.values, attrs.nsample as number);
      return { idx: r.idx, dist2: r.d2 };
    }
  }
  throw new Error(`no reference for ${op.name}`);
}
