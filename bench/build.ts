// Build times: what a user waits for after gen, per backend, for N generated ops
// (spec-space specs with real kernels): a cold build, a rebuild after one op's CPU kernel changed,
// a rebuild after one op's spec changed (gen, then build), and a cold build dir again with ccache
// warm (when ccache is installed). Prints a Markdown table; `--write` puts it in docs/benchmarks.md.
// Backends: the Node addon (opforge build: cmake-js), the PyTorch extension (when Python has
// torch), the ONNX Runtime library (when its headers are found: ONNXRUNTIME_INCLUDE_DIR), the
// TensorRT plugin library (when TensorRT's headers and nvcc are found: TENSORRT_INCLUDE_DIR; the
// entry-point library links no libnvinfer, so headers suffice; CUDA kernels for one architecture).
// Usage: node dist/bench/build.js [--ops 5,50] [--backends node,torch,ort,trt] [--write]

import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { generate } from '../generator/output/gen.js';
import { build } from '../runtime/index.js';
import { findPython } from '../runtime/python-env.js';
import { probeTorch } from '../runtime/testing/python-session.js';
import { findNvcc, trtIncludeDir } from '../runtime/testing/backends/trt/lifecycle.js';
import { writeCorpus } from '../test/specspace/corpus.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '5,50' },
    backends: { type: 'string', default: 'node,torch,ort,trt' },
    write: { type: 'boolean', default: false },
  },
});
const sizes = values.ops.split(',').map(Number);
const wanted = values.backends.split(',');
const python = findPython().python;
const ccache = spawnSync('ccache', ['--version']).status === 0;

function sh(cmd: string, args: string[], env: NodeJS.ProcessEnv): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8', env, maxBuffer: 256 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}:\n${r.stdout}\n${r.stderr}`.slice(-4000));
}

interface Backend {
  name: string;
  build(project: string, buildDir: string, env: NodeJS.ProcessEnv): Promise<void>;
}

const cmakeBackend = (
  name: string,
  src: (project: string) => string,
  defs: string[],
  targets: string[] = [],
): Backend => ({
  name,
  async build(project, buildDir, env) {
    sh('cmake', ['-S', src(project), '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', ...defs], env);
    sh('cmake', ['--build', buildDir, '-j', String(os.cpus().length), ...targets.flatMap((t) => ['--target', t])], env);
  },
});

async function backends(): Promise<{ use: Backend[]; skipped: string[] }> {
  const use: Backend[] = [];
  const skipped: string[] = [];
  if (wanted.includes('node')) {
    use.push({
      name: 'node addon (opforge build)',
      async build(project, buildDir, env) {
        const saved = process.env.CCACHE_DIR;
        process.env.CCACHE_DIR = env.CCACHE_DIR; // cmake-js runs in this process's environment
        try {
          await build({ root: project, buildDir });
        } finally {
          if (saved === undefined) delete process.env.CCACHE_DIR;
          else process.env.CCACHE_DIR = saved;
        }
      },
    });
  }
  if (wanted.includes('torch')) {
    const t = await probeTorch(python);
    if (t.prefix)
      use.push(
        cmakeBackend(`PyTorch extension (torch ${t.version})`, (p) => path.join(p, 'out', 'torch'), [
          `-DCMAKE_PREFIX_PATH=${t.prefix}`,
        ]),
      );
    else skipped.push(`PyTorch extension: ${t.why ?? 'no torch'}`);
  }
  if (wanted.includes('ort')) {
    const inc = process.env.ONNXRUNTIME_INCLUDE_DIR ?? path.join(root, '.thirdparty', 'ort-include');
    if (existsSync(path.join(inc, 'onnxruntime_cxx_api.h')))
      use.push(
        cmakeBackend('ONNX Runtime library', (p) => path.join(p, 'out'), [
          '-DWITH_ONNXRUNTIME=ON',
          `-DONNXRUNTIME_INCLUDE_DIR=${inc}`,
        ]),
      );
    else skipped.push('ONNX Runtime library: no onnxruntime_cxx_api.h (set ONNXRUNTIME_INCLUDE_DIR)');
  }
  if (wanted.includes('trt')) {
    const inc = trtIncludeDir();
    const nvcc = await findNvcc();
    if (inc && nvcc) {
      use.push(
        cmakeBackend(
          `TensorRT plugin library (${path.basename(path.dirname(inc))} headers, CUDA sm_90)`,
          (p) => path.join(p, 'out'),
          [
            '-DWITH_CUDA=ON',
            '-DWITH_TENSORRT=ON',
            `-DTENSORRT_INCLUDE_DIR=${inc}`,
            `-DCMAKE_CUDA_COMPILER=${nvcc}`,
            '-DCMAKE_CUDA_ARCHITECTURES=90',
          ],
          ['opforge_trt_plugins'],
        ),
      );
    } else
      skipped.push(`TensorRT plugin library: ${inc ? 'no nvcc' : 'no NvInferRuntime.h (set TENSORRT_INCLUDE_DIR)'}`);
  }
  return { use, skipped };
}

const secs = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;

async function timed(f: () => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
}

async function measure(n: number, b: Backend): Promise<string> {
  const work = mkdtempSync(path.join(os.tmpdir(), 'opforge-build-bench-'));
  // Odd seeds: an even seed brings a generated gradient op along (two ops).
  const seeds = Array.from({ length: n }, (_, i) => 2 * i + 1);
  writeCorpus(work, seeds);
  const ops = path.join(work, 'ops');
  const gen = (): void => {
    generate({ opsDir: ops, outDir: path.join(work, 'out') });
  };
  gen();
  const buildDir = path.join(work, 'build');
  // A fresh ccache per measurement: the cold build fills it, the last row reads it.
  const env = { ...process.env, CCACHE_DIR: path.join(work, 'ccache') };
  const cold = await timed(() => b.build(work, buildDir, env));
  const spec = path.join(
    ops,
    readdirSync(ops)
      .filter((f) => f.endsWith('.yaml'))
      .sort()[0]!,
  );
  const text = readFileSync(spec, 'utf8');
  // Real edits, not comments (ccache would serve a comment-only change from the cache).
  appendFileSync(
    path.join(ops, /\n {2}cpu: (\S+)/.exec(text)![1]!),
    '\nnamespace { [[maybe_unused]] constexpr int kBenchEdit = 1; }\n',
  );
  const kernelEdit = await timed(() => b.build(work, buildDir, env));
  // The op version is in the generated code of every backend (plugin versions, opset).
  writeFileSync(
    spec,
    /^version: /m.test(text)
      ? text.replace(/^version: (\d+)$/m, (_, v: string) => `version: ${Number(v) + 1}`)
      : text.replace(/^(name: .*)$/m, '$1\nversion: 7'),
  );
  const specEdit = await timed(async () => {
    gen();
    await b.build(work, buildDir, env);
  });
  let warm = 'n/a (no ccache)';
  if (ccache) {
    rmSync(buildDir, { recursive: true, force: true });
    warm = secs(await timed(() => b.build(work, buildDir, env)));
  }
  rmSync(work, { recursive: true, force: true });
  return `| ${b.name} | ${n} | ${secs(cold)} | ${secs(kernelEdit)} | ${secs(specEdit)} | ${warm} |`;
}

async function main(): Promise<void> {
  const { use, skipped } = await backends();
  const rows: string[] = [];
  for (const n of sizes)
    for (const b of use) {
      rows.push(await measure(n, b));
      console.error(rows.at(-1));
    }
  const table = [
    `Build times, spec-space ops (generated specs with real kernels), ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, \`cmake --build -j${os.cpus().length}\`, Release; ccache ${ccache ? 'installed (a fresh cache per row: the cold build fills it)' : 'not installed'}:`,
    '',
    '| backend | ops | cold build | one kernel edited | one spec edited (gen + build) | cold build dir, warm ccache |',
    '|---|---|---|---|---|---|',
    ...rows,
    ...(skipped.length ? ['', `Not measured here: ${skipped.join('; ')}.`] : []),
  ].join('\n');
  console.log(table);
  if (values.write) {
    const doc = path.join(root, 'docs', 'benchmarks.md');
    const begin = '<!-- bench:build -->';
    const end = '<!-- /bench:build -->';
    const cur = readFileSync(doc, 'utf8');
    const block = `${begin}\n${table}\n${end}`;
    writeFileSync(
      doc,
      cur.includes(begin)
        ? cur.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block)
        : `${cur.trimEnd()}\n\n## Build times\n\n${block}\n`,
    );
  }
}

await main();
