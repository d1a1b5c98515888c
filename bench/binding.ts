// Binding overhead: per-call latency of a 1k-element CustomRelu through the
// generated binding vs onnxruntime-node running a one-node Relu model (bytes built here) on the
// same data in the same process; then throughput at 1M and 16M elements vs a plain JS loop.
// Medians of repeated batches. Usage: node dist/bench/binding.js [--quick] [--write]

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';
import * as ort from 'onnxruntime-node';
import { build, load } from '../runtime/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const quick = process.argv.includes('--quick');
const { onnx } = onnxProto;

function reluModel(n: number): Uint8Array {
  const vi = (name: string) => ({
    name,
    type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: { dim: [{ dimValue: n }] } } },
  });
  return onnx.ModelProto.encode({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'relu',
      node: [{ opType: 'Relu', input: ['x'], output: ['y'] }],
      input: [vi('x')],
      output: [vi('y')],
    },
  }).finish();
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Microseconds per call, median over batches; a sync `f` is not awaited (an await alone costs a microtask turn). */
async function perCall(f: () => unknown, calls: number, batches: number, isAsync = false): Promise<number> {
  const batch = async (): Promise<void> => {
    if (isAsync) for (let i = 0; i < calls; i++) await f();
    else for (let i = 0; i < calls; i++) f();
  };
  await batch();
  const t: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint();
    await batch();
    t.push(Number(process.hrtime.bigint() - t0) / calls / 1000);
  }
  return median(t); // microseconds per call
}

async function main(): Promise<void> {
  const buildDir = path.join(root, 'build', 'node-bench');
  await build({ root, buildDir });
  const { bind } = (await import(path.join(root, 'out', 'node', 'index.js'))) as {
    bind: (a: unknown) => { customRelu: (x: unknown, a?: unknown) => { y: { data: Float32Array } } };
  };
  const ops = bind(load(buildDir));
  const calls = quick ? 200 : 5000;
  const batches = quick ? 3 : 9;
  const n = 1000;
  const data = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
  const x = { dtype: 'float32', dims: [n], data };
  const session = await ort.InferenceSession.create(reluModel(n));
  const feeds = { x: new ort.Tensor('float32', data, [n]) };
  const ours = await perCall(() => ops.customRelu(x), calls, batches);
  const theirs = await perCall(() => session.run(feeds), calls, batches, true);
  // Same results on the same data.
  const a = ops.customRelu(x).y.data;
  const b = (await session.run(feeds)).y!.data as Float32Array;
  if (!a.every((v, i) => v === b[i])) throw new Error('results differ');

  // For scale: allocating the output in JS, and the whole relu in JS.
  const allocOnly = await perCall(() => new Float32Array(n), calls, batches);
  const jsRelu = await perCall(
    () => {
      const o = new Float32Array(n);
      for (let i = 0; i < n; i++) {
        const v = data[i]!;
        o[i] = Math.max(v, 0);
      }
      return o;
    },
    calls,
    batches,
  );

  const rows: string[] = [];
  for (const size of quick ? [1 << 16] : [1 << 20, 1 << 24]) {
    const big = Float32Array.from({ length: size }, (_, i) => Math.sin(i));
    const t = { dtype: 'float32', dims: [size], data: big };
    const reps = quick ? 2 : 5;
    const usOurs = await perCall(() => ops.customRelu(t), 1, reps);
    // Like the binding, the JS loop returns a new array.
    const usJs = await perCall(
      () => {
        const out = new Float32Array(size);
        for (let i = 0; i < size; i++) {
          const v = big[i]!;
          out[i] = Math.max(v, 0);
        }
        return out;
      },
      1,
      reps,
    );
    rows.push(
      `| CustomRelu, ${size === 1 << 24 ? '16M' : size === 1 << 20 ? '1M' : String(size)} float32 | ${(usOurs / 1000).toFixed(2)} ms (${((size * 8) / usOurs / 1000).toFixed(2)} GB/s) | ${(usJs / 1000).toFixed(2)} ms | ${(usJs / usOurs).toFixed(2)}× |`,
    );
  }
  const table = [
    `Binding overhead, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}, onnxruntime-node ${ort.env.versions.common}; median of ${batches} batches of ${calls} calls:`,
    '',
    '| per call, 1000 float32 | opforge binding | onnxruntime-node (one-node Relu) | ratio (target ≤ 0.2) |',
    '|---|---|---|---|',
    `| latency | ${ours.toFixed(2)} µs | ${theirs.toFixed(2)} µs | **${(ours / theirs).toFixed(3)}** |`,
    `| for scale: \`new Float32Array(1000)\` alone | ${allocOnly.toFixed(2)} µs | | ${(allocOnly / theirs).toFixed(3)} |`,
    `| for scale: the relu in plain JS into a new array | ${jsRelu.toFixed(2)} µs | | ${(jsRelu / theirs).toFixed(3)} |`,
    '',
    '| throughput | opforge binding (CPU kernel) | plain JS loop | speed-up |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
  console.log(table);
  if (process.argv.includes('--write')) {
    const doc = path.join(root, 'docs', 'benchmarks.md');
    const begin = '<!-- bench:binding -->';
    const end = '<!-- /bench:binding -->';
    const cur = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Benchmarks\n';
    const block = `${begin}\n${table}\n${end}`;
    writeFileSync(
      doc,
      cur.includes(begin)
        ? cur.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block)
        : `${cur.trimEnd()}\n\n## Node binding overhead\n\n${block}\n`,
    );
  }
}

await main();
