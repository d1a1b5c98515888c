// The user's edit -> test loop: in a fresh project outside the repo, laid out as a user's
// (ops/ with six ops, opforge installed as a package: node_modules/opforge is this repo, built dist/
// included, resolved as an installed package would be), the wall time of `opforge test`
//   - cold (no build/), then `--only <op>` after a one-kernel edit, after a spec edit (the op's
//     description, which is in the op core header every backend compiles), and with nothing changed,
// each beside what it is held to, measured in the same run: one compile of that kernel with the
// flags the build used (its compile_commands.json entry), and a bare `python -c "import torch"`.
// Every compiler invocation goes through a launcher that logs it (CMAKE_<LANG>_COMPILER_LAUNCHER,
// and CUDACXX for the TensorRT lifecycle driver's nvcc): the table counts invocations and how
// often each kernel was compiled.
// Usage: node dist/bench/loop.js [--repeats 3] [--backends node,torch,grad,ort,export,serialize,trt] [--jobs N] [--write] [--keep]

import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { findPython } from '../runtime/python-env.js';
import { findNvcc } from '../runtime/testing/backends/trt/lifecycle.js';
import { planSpec } from '../test/specspace/plan.js';
import { renderSpec } from '../test/specspace/render.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
// The columns the loop measures (docs/benchmarks.md): Paddle's JIT build and JAX's library are
// loops of their own, not measured here.
const BACKENDS = 'node,torch,grad,ort,export,serialize,trt';
const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '3' },
    backends: { type: 'string', default: BACKENDS },
    jobs: { type: 'string' },
    write: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const repeats = Number(values.repeats);
// The test suite's Python (npm test runs with .venv), else the one opforge finds.
const venv = path.join(repo, '.venv', 'bin', 'python');
const python = process.env.OPFORGE_PYTHON ?? (existsSync(venv) ? venv : findPython().python);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-loop-'));
const app = path.join(tmp, 'app');
const log = path.join(tmp, 'compiles.log');

/** A launcher that logs each invocation (one line: its arguments) and runs it. */
function logger(file: string, exec: string): string {
  writeFileSync(file, `#!/bin/sh\nprintf '%s\\n' "$*" >> "$OPFORGE_COMPILE_LOG"\nexec ${exec} "$@"\n`);
  chmodSync(file, 0o755);
  return file;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

async function setUp(): Promise<NodeJS.ProcessEnv> {
  mkdirSync(path.join(app, 'node_modules'), { recursive: true });
  writeFileSync(
    path.join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`,
  );
  // The repo as the installed package: Node resolves its dependencies from its real path, as it
  // would from a hoisted install (test/installed.test.ts packs and installs it for real).
  symlinkSync(repo, path.join(app, 'node_modules', 'opforge'), 'dir');
  cpSync(path.join(repo, 'test', 'fixtures', 'user-ops', 'ops'), path.join(app, 'ops'), { recursive: true });
  for (const [rel, text] of Object.entries(renderSpec(planSpec(3)).files))
    writeFileSync(path.join(app, 'ops', rel), text);
  const nvcc = await findNvcc();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OPFORGE_PYTHON: python,
    OPFORGE_COMPILE_LOG: log,
    // opforge's machine cache of this run alone, empty at the start.
    OPFORGE_CACHE_DIR: path.join(tmp, 'machine-cache'),
    CCACHE_DISABLE: '1',
    CMAKE_CXX_COMPILER_LAUNCHER: logger(path.join(tmp, 'launch'), ''),
    CMAKE_CUDA_COMPILER_LAUNCHER: path.join(tmp, 'launch'),
    ...(nvcc
      ? {
          CUDACXX: logger(
            path.join(tmp, 'nvcc'),
            spawnSync('sh', ['-c', `command -v ${nvcc}`], { encoding: 'utf8' }).stdout.trim() || nvcc,
          ),
        }
      : {}),
  };
  if (!env.TENSORRT_INCLUDE_DIR && existsSync('/work/thirdparty/trt/include'))
    env.TENSORRT_INCLUDE_DIR = '/work/thirdparty/trt/include';
  return env;
}

interface Run {
  ms: number;
  invocations: number;
  sources: number;
  perKernel: Map<string, number>;
  out: string;
}

const SOURCE = /\.(c|cc|cpp|cxx|cu)$/;

/**
 * The compiles the log holds: invocations that compiled a source (CMake's compiler checks at
 * configure and link-only invocations left out), the sources compiled (one nvcc invocation may
 * compile several), and per kernel source (project-relative) how many invocations compiled it.
 */
function countCompiles(): { invocations: number; sources: number; perKernel: Map<string, number> } {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const perKernel = new Map<string, number>();
  let invocations = 0;
  let count = 0;
  for (const l of lines) {
    const args = l.split(' ');
    const sources = args.filter(
      (a, k) => SOURCE.test(a) && args[k - 1] !== '-o' && !a.includes(`${path.sep}Modules${path.sep}CMake`),
    );
    if (sources.length) {
      invocations++;
      count += sources.length;
    }
    for (const s of sources) {
      const rel = path.relative(app, s);
      if (rel.startsWith(`ops${path.sep}kernels`)) perKernel.set(rel, (perKernel.get(rel) ?? 0) + 1);
    }
  }
  return { invocations, sources: count, perKernel };
}

function opforgeTest(env: NodeJS.ProcessEnv, args: string[]): Run {
  rmSync(log, { force: true });
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      path.join(app, 'node_modules', 'opforge', 'dist', 'cli', 'opforge.js'),
      'test',
      '--backend',
      values.backends,
      ...args,
      ...(values.jobs ? ['--jobs', values.jobs] : []),
    ],
    { cwd: app, env, encoding: 'utf8', maxBuffer: 256 << 20 },
  );
  const ms = performance.now() - t;
  const out = `${r.stdout}${r.stderr}`;
  if (r.status !== 0) throw new Error(`opforge test ${args.join(' ')} exited ${r.status}:\n${out.slice(-6000)}`);
  return { ms, ...countCompiles(), out };
}

/** One compile of `kernel` with the flags the Node addon's build used (its compile_commands.json entry). */
function compileOnce(kernel: string): number {
  // The kernel build's (one for every backend), else the Node addon's (each backend its own).
  const dbs = [path.join(app, 'build', 'kernels', 'cpu'), path.join(app, 'build', 'node')]
    .map((d) => path.join(d, 'compile_commands.json'))
    .filter(existsSync);
  const e = dbs
    .flatMap((f) => JSON.parse(readFileSync(f, 'utf8')) as { file: string; command: string; directory: string }[])
    .find((x) => path.resolve(x.directory, x.file) === path.join(app, kernel));
  if (!e) throw new Error(`${kernel} is in no compile_commands.json (${dbs.join(', ')})`);
  // Without the launcher (it is a wrapper: the compiler is what it runs), to a scratch object.
  const cmd = e.command.replace(/^\S*launch\s+/, '').replace(/ -o \S+/, ` -o ${path.join(tmp, 'once.o')}`);
  const t = performance.now();
  const r = spawnSync('sh', ['-c', cmd], { cwd: e.directory, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd}\n${r.stderr}`);
  return performance.now() - t;
}

function torchImport(): number {
  const t = performance.now();
  const r = spawnSync(python, ['-c', 'import torch'], { env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  if (r.status !== 0) throw new Error(`${python} -c "import torch" failed`);
  return performance.now() - t;
}

function edit(file: string, from: string | RegExp, to: string): void {
  const p = path.join(app, file);
  const text = readFileSync(p, 'utf8');
  const next = text.replace(from, to);
  if (next === text) throw new Error(`the edit of ${file} changed nothing`);
  writeFileSync(p, next);
}

async function main(): Promise<void> {
  const env = await setUp();
  const op = 'ChannelScale';
  const kernel = path.join('ops', 'kernels', 'channel_scale.cpp');
  const compiles: number[] = [];
  const imports: number[] = [];
  const sample = (): void => {
    compiles.push(compileOnce(kernel));
    imports.push(torchImport());
  };

  process.stderr.write(`project ${app}, python ${python}\n`);
  // The first run on this machine (an empty machine cache), then a fresh project's first run: the
  // same project with build/ and out/ removed, opforge's machine cache (the Python entry) kept.
  const cold = opforgeTest(env, []);
  process.stderr.write(`cold, first on this machine: ${secs(cold.ms)}, ${cold.invocations} compiler invocations\n`);
  for (const d of ['build', 'out']) rmSync(path.join(app, d), { recursive: true, force: true });
  const coldKept = opforgeTest(env, []);
  process.stderr.write(
    `cold, machine cache kept: ${secs(coldKept.ms)}, ${coldKept.invocations} compiler invocations\n`,
  );
  const kernelEdits: Run[] = [];
  const specEdits: Run[] = [];
  const noChange: Run[] = [];
  for (let k = 0; k < repeats; k++) {
    sample();
    // An edit that changes the object (a comment alone compiles to the same code, and the same
    // binaries are rightly not tested again).
    appendFileSync(path.join(app, kernel), `int opforge_loop_edit_${k}() { return ${k}; }\n`);
    kernelEdits.push(opforgeTest(env, ['--only', op]));
    edit(path.join('ops', 'channel_scale.yaml'), /^description: >-\n {2}/m, `description: >-\n  (edit ${k}) `);
    specEdits.push(opforgeTest(env, ['--only', op]));
    noChange.push(opforgeTest(env, ['--only', op]));
    sample();
    process.stderr.write(
      `round ${k + 1}: kernel edit ${secs(kernelEdits.at(-1)!.ms)}, spec edit ${secs(specEdits.at(-1)!.ms)}, no change ${secs(noChange.at(-1)!.ms)}\n`,
    );
  }
  const c = median(compiles);
  const py = median(imports);
  const times = (n: number[]): string =>
    Math.min(...n) === Math.max(...n) ? `${Math.max(...n)}×` : `${Math.min(...n)}–${Math.max(...n)}×`;
  const ms = (runs: Run[]): number => median(runs.map((r) => r.ms));
  const lines = [
    `Edit -> test loop, ${new Date().toISOString().slice(0, 10)}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'}, Node ${process.version}, ${path.relative(repo, python).startsWith('..') ? python : path.relative(repo, python)} (${spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).stdout.trim()}); ${values.jobs ? `--jobs ${values.jobs}` : 'default jobs'}; median of ${repeats} (cold: one run):`,
    '',
    '| step | wall | compiler invocations | target | met |',
    '|---|---|---|---|---|',
    ...(
      [
        ['empty build/, empty machine cache: the first run on this machine', cold],
        ['empty build/, machine cache kept: a fresh project', coldKept],
      ] as const
    ).map(
      ([what, r]) =>
        `| cold \`opforge test\` (6 ops, ${what}) | ${secs(r.ms)} | ${r.invocations} (${r.sources} sources; each kernel compiled ${times([...r.perKernel.values()])}) | ≤ 41.5 s and ≤ 21 invocations (half of 83 s / 43) | ${r.ms <= 41500 && r.invocations <= 21 ? 'yes' : 'no'} |`,
    ),
    `| \`--only ${op}\` after a one-kernel edit | ${secs(ms(kernelEdits))} | ${median(kernelEdits.map((r) => r.invocations))} | ≤ 3 × (compile + torch import) = ${secs(3 * (c + py))} | ${ms(kernelEdits) <= 3 * (c + py) ? 'yes' : 'no'} |`,
    `| \`--only ${op}\` after a spec edit (its description) | ${secs(ms(specEdits))} | ${median(specEdits.map((r) => r.invocations))} | — | — |`,
    `| \`--only ${op}\` with nothing changed | ${secs(ms(noChange))} | ${median(noChange.map((r) => r.invocations))} | ≤ 2 × torch import = ${secs(2 * py)} | ${ms(noChange) <= 2 * py ? 'yes' : 'no'} |`,
    `| one compile of ${kernel.split(path.sep).join('/')} (its build flags) | ${secs(c)} | 1 | — | — |`,
    `| bare \`python -c "import torch"\` | ${secs(py)} | — | — | — |`,
  ];
  const table = lines.join('\n');
  process.stdout.write(`${table}\n\ncold per kernel: ${[...cold.perKernel].map(([k, n]) => `${k} ${n}`).join(', ')}\n`);
  if (values.write) {
    const doc = path.join(repo, 'docs', 'benchmarks.md');
    const begin = '<!-- bench:loop -->';
    const end = '<!-- /bench:loop -->';
    const cur = readFileSync(doc, 'utf8');
    const block = `${begin}\n${table}\n${end}`;
    writeFileSync(
      doc,
      cur.includes(begin)
        ? cur.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block)
        : `${cur.trimEnd()}\n\n## The edit -> test loop\n\n${block}\n`,
    );
  }
}

try {
  await main();
} finally {
  if (!values.keep) rmSync(tmp, { recursive: true, force: true });
  else process.stderr.write(`kept ${tmp}\n`);
}
