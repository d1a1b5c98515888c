// Child process of node-fuzz.test.ts: drives the built Node binding with seeded random calls —
// wrong and right dtypes, odd shapes, bad attributes, detached/short/foreign buffers, garbage
// straight into the raw addon (its arguments and scratch slots) — and counts the outcomes. A crash kills this process, which the
// test sees; a non-JS-error outcome (e.g. a returned garbage tensor) is counted as a failure.
// Usage: node dist/test/node-fuzz-driver.js <build-dir> <iterations> <seed>

import path from 'node:path';
import { load } from '../runtime/index.js';
import { root } from './helpers/paths.js';

const [buildDir = '', iterations = '1000', seedArg = '1'] = process.argv.slice(2);
let s = Number(seedArg) >>> 0;
const rnd = (): number => {
  s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
  return s / 4294967296;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

const DTYPES = [
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int8',
  'uint8',
  'int32',
  'int64',
  'bool',
  'complex64',
  '',
  42,
] as const;
const ARRAYS: Record<string, (n: number) => unknown> = {
  float32: (n) => new Float32Array(n),
  float64: (n) => new Float64Array(n),
  float16: (n) => new Uint16Array(n),
  bfloat16: (n) => new Uint16Array(n),
  int8: (n) => new Int8Array(n),
  uint8: (n) => new Uint8Array(n),
  bool: (n) => new Uint8Array(n),
  int32: (n) => new Int32Array(n),
  int64: (n) => new BigInt64Array(n),
};

function dims(): unknown {
  switch (Math.floor(rnd() * 10)) {
    case 0:
      return [];
    case 1:
      return [0, 3];
    case 2:
      return [-1, 3];
    case 3:
      return [1.5];
    case 4:
      return [2 ** 40, 2 ** 40];
    case 5:
      return Array.from({ length: 9 }, () => 1);
    case 6:
      return 'nope';
    case 7:
      return [Number.NaN];
    default:
      return Array.from({ length: 1 + Math.floor(rnd() * 4) }, () => 1 + Math.floor(rnd() * 5));
  }
}

function numel(d: unknown): number {
  return Array.isArray(d)
    ? d.reduce((a: number, b: unknown) => a * (typeof b === 'number' && b > 0 ? Math.floor(b) : 0), 1)
    : 0;
}

function data(dtype: string, d: unknown): unknown {
  const n = numel(d);
  const make = ARRAYS[pick(Object.keys(ARRAYS))]!;
  switch (Math.floor(rnd() * 8)) {
    case 0: {
      // detached
      const a = (ARRAYS[dtype] ?? make)(Math.min(n, 64)) as Uint8Array;
      structuredClone(a.buffer, { transfer: [a.buffer] });
      return a;
    }
    case 1:
      return (ARRAYS[dtype] ?? make)(Math.max(0, Math.min(n, 64) - 1)); // too short
    case 2:
      return make(Math.min(n, 64)); // another dtype's array
    case 3: {
      // a view at an offset into a larger buffer
      const a = (ARRAYS[dtype] ?? make)(Math.min(n, 64) + 8) as Uint8Array;
      return a.subarray(3, 3 + Math.min(n, 64));
    }
    case 4:
      return [1, 2, 3];
    case 5:
      return null;
    default:
      return (ARRAYS[dtype] ?? make)(Math.min(n, 1 << 16));
  }
}

function tensor(): unknown {
  if (rnd() < 0.05) return pick([undefined, null, 3, 'x', {}, [], { dtype: 'float32' }]);
  const dtype = pick(DTYPES);
  const d = dims();
  const t: Record<string, unknown> = { dtype, dims: d, data: data(String(dtype), d) };
  if (rnd() < 0.05) {
    t.device = 'cuda';
    t.handle = pick([{}, 1, null]);
  }
  return t;
}

function attrs(): unknown {
  if (rnd() < 0.1) return pick([null, 5, 'x', []]);
  const keys = ['alpha', 'nsample', 'align_corners', 'bogus'];
  return Object.fromEntries(
    keys
      .filter(() => rnd() < 0.5)
      .map((k) => [k, pick([0, -1, 1e300, Number.NaN, 0.5, 1024, 4, true, 'str', [1, 2], null, undefined, {}])]),
  );
}

const counts = { ok: 0, typeError: 0, rangeError: 0, error: 0, wrongThrow: 0, iterations: Number(iterations) };
// Every seed op (and its gradient op) names itself first in its errors.
const ERR_NAMES = /^(CustomRelu|LeakyRelu|MyAdd|DynamicTRTResize|KNNQuery)(Grad)?\b|^(toDevice|toHost)\b/;

const pending: Promise<void>[] = [];

function classify(e: unknown, viaRaw: boolean): void {
  if (e instanceof TypeError) counts.typeError += 1;
  else if (e instanceof RangeError) counts.rangeError += 1;
  else if (e instanceof Error) counts.error += 1;
  else counts.wrongThrow += 1;
  // Errors from the typed layer must name the op (raw-layer messages may be N-API's own).
  if (!viaRaw && e instanceof Error && !ERR_NAMES.test(e.message)) {
    counts.wrongThrow += 1;
    console.error(e.message);
  }
}

async function main(): Promise<void> {
  const addon = load(buildDir) as Record<string, (...a: unknown[]) => unknown>;
  const mod = await import(path.join(root, 'out', 'node', 'index.js'));
  const ops = mod.bind(addon) as Record<string, (...a: unknown[]) => unknown>;
  const names = Object.keys(ops);
  const raw = Object.keys(addon).filter((k) => k.startsWith('run_'));
  const abi = addon.abi as unknown as { scratch: ArrayBuffer };
  for (let i = 0; i < counts.iterations; i++) {
    const viaRaw = rnd() < 0.3;
    try {
      if (rnd() < 0.15) {
        // Valid calls between the hostile ones: state left behind by a failure must not matter.
        const n = 1 + Math.floor(rnd() * 50);
        const x = { dtype: 'float32', dims: [n, 3], data: Float32Array.from({ length: 3 * n }, () => rnd()) };
        const off = { dtype: 'int32', dims: [1], data: Int32Array.of(n) };
        const k = 1 + Math.floor(rnd() * (rnd() < 0.5 ? 8 : 64)); // beyond 32 the CPU kernel keeps a heap
        const out = rnd() < 0.5 ? ops.knnQuery!(x, off, x, off, { nsample: k }) : ops.customRelu!(x, { alpha: rnd() });
        if (typeof out !== 'object' || out === null) counts.wrongThrow += 1;
        counts.ok += 1;
        continue;
      }
      if (viaRaw) {
        // Garbage straight into the addon, past index.js's checks: random scratch slots (dtype
        // codes, ranks, dims, scalar attributes) and random arguments (data, handles, lists).
        const slots = new Float64Array(abi.scratch);
        for (let k = 0; k < 64; k++)
          slots[Math.floor(rnd() * slots.length)] = pick([
            0,
            1,
            2,
            3,
            8,
            9,
            -1,
            1.5,
            2 ** 40,
            Number.NaN,
            Infinity,
            1e300,
            Math.floor(rnd() * 10),
          ]);
        const args = Array.from({ length: Math.floor(rnd() * 6) }, () =>
          rnd() < 0.7 ? data(String(pick(DTYPES)), dims()) : pick([undefined, null, 7, 'x', {}, [1, 2], [Number.NaN]]),
        );
        const r = addon[pick(raw)]!(...args);
        // The async variants fail later: their rejections must be JS errors too.
        if (r instanceof Promise)
          pending.push(
            r.then(
              () => {
                counts.ok += 1;
              },
              (e: unknown) => {
                classify(e, true);
              },
            ),
          );
      } else {
        ops[pick(names)]!(...Array.from({ length: 1 + Math.floor(rnd() * 4) }, tensor), attrs());
      }
      counts.ok += 1;
    } catch (e) {
      classify(e, viaRaw);
    }
  }
  await Promise.all(pending);
  console.log(JSON.stringify(counts));
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
