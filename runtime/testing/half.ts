// IEEE binary16 and bfloat16 <-> number, in plain TS (independent of the C++ under test).
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function halfToNumber(h: number): number {
  const s = h & 0x8000 ? -1 : 1;
  const e = (h >> 10) & 0x1f;
  const m = h & 0x3ff;
  if (e === 0) return s * m * 2 ** -24;
  if (e === 31) return m ? NaN : s * Infinity;
  return s * (1 + m / 1024) * 2 ** (e - 15);
}

/** Round to nearest even, by exhaustive neighbour comparison (slow, obviously correct). */
export function numberToHalf(x: number): number {
  f32[0] = x;
  const sign = (u32[0]! >>> 16) & 0x8000;
  const a = Math.abs(Math.fround(x));
  if (a >= 65520) return sign | 0x7c00;
  // candidates: floor and ceil in half space
  let lo = 0;
  let hi = 0x7bff;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (halfToNumber(mid) <= a) lo = mid;
    else hi = mid - 1;
  }
  const below = lo;
  const above = Math.min(lo + 1, 0x7c00);
  const db = a - halfToNumber(below);
  const da = halfToNumber(above) - a;
  const pick = db < da ? below : da < db ? above : below & 1 ? above : below;
  return sign | pick;
}

/** bfloat16 bits (the upper half of a float32) as a number. */
export function bf16ToNumber(bits: number): number {
  u32[0] = (bits & 0xffff) << 16;
  return f32[0]!;
}

/** A number as bfloat16 bits, rounded to nearest even (as torch's .to(torch.bfloat16)). */
export function numberToBf16(x: number): number {
  f32[0] = x;
  const bits = u32[0]!;
  if (Number.isNaN(f32[0])) return 0x7fc0;
  return ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16) & 0xffff;
}
