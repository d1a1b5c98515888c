// GPU check of the Node runtime's CUDA path beyond the spec cases (run on a machine with nvcc and a
// GPU; CI has none). Every spec case on CUDA is `opforge test --device cuda` (scripts/gpu/check.sh,
// part `seed`; this file is part `node`); this adds what only the seed ops can show: KNN beyond the
// spec cases (every kernel variant, ties, NaN, padding), a device-resident chain, the async CUDA
// variant, freed and mixed tensors, and an out-of-memory that must be a JS error after which the
// process keeps working.
// Usage: node dist/test/gpu/node-cuda.js   (the seed ops and out/; build dir build/node-cuda)

import path from 'node:path';
import { build, load } from '../../runtime/index.js';
import { root as repoRoot } from '../helpers/paths.js';

interface T {
  dtype: string;
  dims: number[];
  data: ArrayLike<number>;
}
type D = { dtype: string; dims: number[]; device: 'cuda'; handle: unknown };
type Fn = (...args: unknown[]) => Record<string, T | D>;

let ok = 0;
let failed = 0;
function record(name: string, pass: boolean, detail = ''): void {
  if (pass) ok += 1;
  else failed += 1;
  console.log(`${pass ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
}

function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const num = (t: T): number[] => Array.from(t.data as ArrayLike<number | bigint>, Number);

function compare(name: string, got: T, want: T, rtol: number, atol: number): void {
  const g = num(got),
    w = num(want);
  let worst = 0,
    bad = -1;
  for (let i = 0; i < w.length; i++) {
    const e = w[i]!,
      x = g[i]!;
    if (x === e || (Number.isNaN(x) && Number.isNaN(e))) continue;
    const err = Math.abs(x - e);
    worst = Math.max(worst, err);
    if (!(err <= atol + rtol * Math.abs(e)) && bad < 0) bad = i;
  }
  record(
    name,
    g.length === w.length && got.dims.join() === want.dims.join() && bad < 0,
    bad >= 0 ? `[${bad}] ${g[bad]} vs ${w[bad]}` : `max abs diff ${worst}`,
  );
}

async function main(): Promise<void> {
  const buildDir = path.join(repoRoot, 'build', 'node-cuda');
  const outDir = path.join(repoRoot, 'out');
  const t0 = performance.now();
  await build({ root: repoRoot, buildDir, outDir, cuda: true });
  console.log(`build --cuda: ${Math.round(performance.now() - t0)} ms`);
  const mod = await import(path.join(outDir, 'node', 'index.js'));
  const addon = load(buildDir);
  const ops = mod.bind(addon) as Record<string, Fn>;
  const aops = mod.bindAsync(addon) as Record<string, (...a: unknown[]) => Promise<Record<string, D>>>;
  const dev = mod.device(addon) as { cudaAvailable(): boolean; toDevice(t: T): D; toHost(t: D): T; free(t: D): void };
  record('cudaAvailable', dev.cudaAvailable());
  if (!dev.cudaAvailable()) {
    finish();
    return;
  }
  // KNNQuery beyond the spec cases: the merge kernel (k <= 32, 64, 128) and the select kernel
  // (k <= 256, 512, 1024) at each size against the CPU (a sorted list up to k = 32, a heap beyond),
  // exactly, on grid points (many
  // equal distances) with a few NaN coordinates; batch 0 ends at query 301 (inside a block of 4
  // queries); first batches of 150 and 1000 points pad rows with -1.
  for (const [k, firstBatch] of [
    [1, 1200],
    [16, 1200],
    [32, 1200],
    [33, 1200],
    [64, 1200],
    [65, 1200],
    [128, 1200],
    [129, 1200],
    [200, 150],
    [256, 1200],
    [257, 1200],
    [512, 1200],
    [513, 1200],
    [1024, 1000],
  ] as const) {
    const np = 3000,
      nq = 700;
    const g = rng(11 + k);
    const grid = (len: number): Float32Array => Float32Array.from({ length: 3 * len }, () => Math.floor(g() * 6));
    const pts = grid(np),
      qs = grid(nq);
    pts[3 * 17] = Number.NaN;
    pts[3 * 2500 + 1] = Number.NaN;
    qs[3 * 5] = Number.NaN;
    const args = [
      { dtype: 'float32', dims: [np, 3], data: pts },
      { dtype: 'int32', dims: [2], data: Int32Array.of(firstBatch, np) },
      { dtype: 'float32', dims: [nq, 3], data: qs },
      { dtype: 'int32', dims: [2], data: Int32Array.of(301, nq) },
    ] as T[];
    const cpu = ops.knnQuery!(...args, { nsample: k }) as Record<string, T>;
    const gpu = ops.knnQuery!(...args.map((a) => dev.toDevice(a)), { nsample: k }) as Record<string, D>;
    compare(`knn k=${k} (batch 0: ${firstBatch} points) idx, ties and NaN`, dev.toHost(gpu.idx as D), cpu.idx!, 0, 0);
    compare(
      `knn k=${k} (batch 0: ${firstBatch} points) dist2, ties and NaN`,
      dev.toHost(gpu.dist2 as D),
      cpu.dist2!,
      0,
      0,
    );
  }
  // A device-resident chain: relu -> leaky relu -> 2a + b, one copy in and one out.
  const n = 1 << 22;
  const r = rng(5);
  const x: T = { dtype: 'float32', dims: [n], data: Float32Array.from({ length: n }, () => r() * 2 - 1) };
  const cy = ops.customRelu!(x, { alpha: 0.1 }).y as T;
  const cz = ops.leakyRelu!(cy, { alpha: 0.2 }).output as T;
  const cw = ops.myAdd!(cz, x).c as T;
  const dx = dev.toDevice(x);
  const c0 = performance.now();
  const dy = ops.customRelu!(dx, { alpha: 0.1 }).y as D;
  const dz = ops.leakyRelu!(dy, { alpha: 0.2 }).output as D;
  const dw = ops.myAdd!(dz, dx).c as D;
  const queued = performance.now() - c0;
  compare(`chain ${n} elements (3 ops queued in ${queued.toFixed(3)} ms)`, dev.toHost(dw), cw, 1e-6, 1e-6);
  dev.free(dy);
  dev.free(dz);
  let freedError = '';
  try {
    ops.customRelu!(dy);
  } catch (e) {
    freedError = (e as Error).message;
  }
  record('a freed device tensor is a JS error', /was freed/.test(freedError), freedError);
  let mixError = '';
  try {
    ops.myAdd!(dx, x);
  } catch (e) {
    mixError = (e as Error).message;
  }
  record('mixing host and device inputs is a JS error', /mix host and device/.test(mixError), mixError);
  // Async on the device: resolved after the kernel finished.
  const ay = (await aops.customRelu!(dx, { alpha: 0.1 })).y!;
  compare('async cuda customRelu', dev.toHost(ay), cy, 0, 0);
  // Out of memory: KNN outputs of 2 x m x 1024 x 4 bytes (m = 1.2e7: ~98 GB) cannot fit on the GPU.
  const m = 12_000_000;
  const q: T = { dtype: 'float32', dims: [m, 3], data: new Float32Array(3 * m) };
  let oom = '';
  try {
    ops.knnQuery!(
      dev.toDevice({ dtype: 'float32', dims: [4, 3], data: new Float32Array(12) }),
      dev.toDevice({ dtype: 'int32', dims: [1], data: Int32Array.of(4) }),
      dev.toDevice(q),
      dev.toDevice({ dtype: 'int32', dims: [1], data: Int32Array.of(m) }),
      { nsample: 1024 },
    );
  } catch (e) {
    oom = (e as Error).message;
  }
  record('out of memory is a JS error', /out of memory|cudaMalloc/.test(oom), oom);
  const after = ops.customRelu!(dev.toDevice(x), { alpha: 0.1 }).y as D;
  compare('the process stays usable after the error', dev.toHost(after), cy, 0, 0);
  finish();
}

function finish(): void {
  console.log(JSON.stringify({ ok, failed }));
  process.exitCode = failed ? 1 : 0;
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
