// The user's edit -> test loop, per column and for the whole `opforge test`: in fresh projects
// outside the repo, laid out as a user's (ops/ with six ops, opforge installed as a package:
// node_modules/opforge is this repo, built dist/ included, resolved as an installed package would
// be), one project running every column and one per column (`--backend <column>`, its own build/),
// the wall time of `opforge test`
//   - cold (no build/; the whole project's first with an empty machine cache), then `--only <op>`
//     after a one-kernel edit and with nothing changed,
// and the whole project once more under `opforge test --watch --only <op>` (kernel edits, each
// timed to the end of the run it starts), each beside what it is held to, measured in the same
// run: one compile of that kernel with the flags the build used (its compile_commands.json entry),
// and a bare `python -c "import torch"`.
// Every compiler invocation goes through a launcher that logs it (CMAKE_<LANG>_COMPILER_LAUNCHER,
// CUDACXX for the TensorRT lifecycle driver's nvcc): the table counts
// invocations and how often each kernel was compiled. A column this machine cannot run (no
// TensorRT headers, a Python package missing) is named and left out.
// Usage: node dist/bench/loop.js [--repeats 3] [--columns node,torch,...] [--jobs N] [--write] [--keep]

import { spawn, spawnSync } from 'node:child_process';
import {
  appendFileSync,
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
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
import { BACKENDS, type Backend } from '../runtime/testing/backend.js';
import type { TestReport } from '../runtime/testing/results.js';
import { findNvcc } from '../runtime/testing/backends/trt/lifecycle.js';
import { planSpec } from '../test/specspace/plan.js';
import { renderSpec } from '../test/specspace/render.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    repeats: { type: 'string', default: '3' },
    columns: { type: 'string', default: BACKENDS.join(',') },
    jobs: { type: 'string' },
    write: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const repeats = Number(values.repeats);
const wanted = values.columns.split(',').filter(Boolean) as Backend[];
// The test suite's Python (npm test runs with .venv), else the one opforge finds.
const venv = path.join(repo, '.venv', 'bin', 'python');
const python = process.env.OPFORGE_PYTHON ?? (existsSync(venv) ? venv : findPython().python);

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-loop-'));
const log = path.join(tmp, 'compiles.log');
const OP = 'ChannelScale';
const KERNEL = path.join('ops', 'kernels', 'channel_scale.cpp');

/**
 * A launcher that logs each invocation (one line: its arguments) and runs it. A compiler run
 * through the CMake launcher is logged there once: the wrappers it runs (CXX) log nothing more.
 */
function logger(file: string, exec: string): string {
  writeFileSync(
    file,
    `#!/bin/sh\n[ -n "$OPFORGE_LAUNCHED" ] || printf '%s\\n' "$*" >> "$OPFORGE_COMPILE_LOG"\nexport OPFORGE_LAUNCHED=1\nexec ${exec} "$@"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

const which = (cmd: string): string =>
  spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).stdout.trim() || cmd;

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const secs = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

/** A fresh project under tmp: the six ops, opforge as its installed package. */
function project(name: string): string {
  const app = path.join(tmp, name);
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
  return app;
}

async function environment(): Promise<NodeJS.ProcessEnv> {
  const nvcc = await findNvcc();
  const launch = logger(path.join(tmp, 'launch'), '');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    OPFORGE_PYTHON: python,
    OPFORGE_COMPILE_LOG: log,
    // opforge's machine cache of this run alone, empty at the start.
    OPFORGE_CACHE_DIR: path.join(tmp, 'machine-cache'),
    CCACHE_DISABLE: '1',
    CMAKE_CXX_COMPILER_LAUNCHER: launch,
    CMAKE_CUDA_COMPILER_LAUNCHER: launch,
    ...(nvcc ? { CUDACXX: logger(path.join(tmp, 'nvcc'), which(nvcc)) } : {}),
  };
  if (!env.TENSORRT_INCLUDE_DIR && existsSync(path.join(repo, '.thirdparty', 'trt-10.16', 'include')))
    env.TENSORRT_INCLUDE_DIR = path.join(repo, '.thirdparty', 'trt-10.16', 'include');
  return env;
}

interface Run {
  ms: number;
  invocations: number;
  sources: number;
  perKernel: Map<string, number>;
  report: TestReport;
}

const SOURCE = /\.(c|cc|cpp|cxx|cu)$/;

/**
 * The compiles the log holds: invocations that compiled a source (CMake's compiler checks at
 * configure and link-only invocations left out), the sources compiled (one nvcc invocation may
 * compile several), and per kernel source (project-relative) how many invocations compiled it.
 */
function countCompiles(app: string): Omit<Run, 'ms' | 'report'> {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  const perKernel = new Map<string, number>();
  let invocations = 0;
  let count = 0;
  for (const l of lines) {
    const args = l.split(' ');
    const sources = args.filter(
      (a, k) =>
        SOURCE.test(a) &&
        args[k - 1] !== '-o' &&
        !a.includes(`${path.sep}Modules${path.sep}CMake`) &&
        !a.includes(`${path.sep}CMakeFiles${path.sep}CMakeScratch`) &&
        !a.includes('CompilerId'),
    );
    if (sources.length) {
      invocations++;
      count += sources.length;
    }
    for (const s of sources) {
      const rel = path.relative(app, path.resolve(s));
      if (rel.startsWith(`ops${path.sep}kernels`)) perKernel.set(rel, (perKernel.get(rel) ?? 0) + 1);
    }
  }
  return { invocations, sources: count, perKernel };
}

function opforgeTest(app: string, env: NodeJS.ProcessEnv, columns: readonly string[], args: string[] = []): Run {
  rmSync(log, { force: true });
  const t = performance.now();
  const r = spawnSync(
    process.execPath,
    [
      path.join(app, 'node_modules', 'opforge', 'dist', 'cli', 'opforge.js'),
      'test',
      '--json',
      '--backend',
      columns.join(','),
      ...args,
      ...(values.jobs ? ['--jobs', values.jobs] : []),
    ],
    { cwd: app, env, encoding: 'utf8', maxBuffer: 256 << 20 },
  );
  const ms = performance.now() - t;
  if (r.status !== 0)
    throw new Error(
      `opforge test --backend ${columns.join(',')} ${args.join(' ')} in ${app} exited ${r.status}:\n${`${r.stdout}${r.stderr}`.slice(-6000)}`,
    );
  return { ms, ...countCompiles(app), report: JSON.parse(r.stdout) as TestReport };
}

/**
 * `opforge test --watch --only OP` on `app`: after its first run, `repeats` kernel edits, each timed
 * from the write to the end of the run it starts (its report and the watch's "waiting" line), with
 * THINK seconds after each run before the next edit: a user's pause, in which the watch starts the
 * next run's interpreters.
 */
async function watchRounds(app: string, env: NodeJS.ProcessEnv, columns: readonly string[]): Promise<Run[]> {
  const child = spawn(
    process.execPath,
    [
      path.join(app, 'node_modules', 'opforge', 'dist', 'cli', 'opforge.js'),
      'test',
      '--watch',
      '--json',
      '--backend',
      columns.join(','),
      '--only',
      OP,
      ...(values.jobs ? ['--jobs', values.jobs] : []),
    ],
    { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const ended = (n: number): boolean =>
    out.split('\n').filter(Boolean).length >= n && err.split('waiting for changes').length - 1 >= n;
  const until = async (n: number): Promise<void> => {
    const t = Date.now();
    while (!ended(n)) {
      if (child.exitCode !== null || Date.now() - t > 600_000)
        throw new Error(`opforge test --watch in ${app}: no run ${n}:\n${err.slice(-4000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const runs: Run[] = [];
  try {
    await until(1);
    for (let k = 0; k < repeats; k++) {
      await new Promise((r) => setTimeout(r, THINK_S * 1000));
      rmSync(log, { force: true });
      const t = performance.now();
      appendFileSync(path.join(app, KERNEL), `int opforge_watch_edit_${k}() { return ${k}; }\n`);
      await until(k + 2);
      const ms = performance.now() - t;
      const report = JSON.parse(out.split('\n').filter(Boolean).at(-1)!) as TestReport;
      if (!report.ok) throw new Error(`opforge test --watch in ${app}: run ${k + 2} failed`);
      runs.push({ ms, ...countCompiles(app), report });
      process.stderr.write(`watch round ${k + 1}: kernel edit ${secs(ms)}\n`);
    }
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('close', r));
  }
  return runs;
}

/** Seconds between a watch run's end and the next edit (the bench's stand-in for a user reading the result). */
const THINK_S = 20;

/** One compile of KERNEL with the flags its build used (the kernel build's compile_commands.json entry). */
function compileOnce(app: string): number {
  const db = path.join(app, 'build', 'kernels', 'cpu', 'compile_commands.json');
  const e = (JSON.parse(readFileSync(db, 'utf8')) as { file: string; command: string; directory: string }[]).find(
    (x) => path.resolve(x.directory, x.file) === path.join(app, KERNEL),
  );
  if (!e) throw new Error(`${KERNEL} is not in ${db}`);
  // Without the launcher (a wrapper: the compiler is what it runs), to a scratch object.
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

/** Whether the report has a cell of `column` that ran (not every one skipped). */
function ran(report: TestReport, column: string): boolean {
  const cols = column === 'export' ? ['ort-legacy', 'ort-dynamo'] : [column];
  return report.results.some((r) => cols.includes(r.backend.replace(/:cuda$/, '')) && r.status !== 'skip');
}

interface Row {
  what: string;
  cold: Run;
  edits: Run[];
  unchanged: Run[];
}

async function main(): Promise<void> {
  const env = await environment();
  const compiles: number[] = [];
  const imports: number[] = [];
  const whole = project('all');
  process.stderr.write(`projects under ${tmp}, python ${python}\n`);
  // The whole project first, on an empty machine cache (a machine's first run): which columns ran
  // is what this machine has.
  const cold = opforgeTest(whole, env, wanted);
  const columns = wanted.filter((c) => ran(cold.report, c));
  const missing = wanted.filter((c) => !columns.includes(c));
  process.stderr.write(
    `cold, all columns: ${secs(cold.ms)}; columns here: ${columns.join(', ')}${missing.length ? `; not here: ${missing.join(', ')}` : ''}\n`,
  );
  const rows: Row[] = [{ what: 'all columns', cold, edits: [], unchanged: [] }];
  const apps = [whole];
  for (const c of columns) {
    const app = project(c);
    rows.push({ what: c, cold: opforgeTest(app, env, [c]), edits: [], unchanged: [] });
    apps.push(app);
    process.stderr.write(`cold, ${c}: ${secs(rows.at(-1)!.cold.ms)}\n`);
  }
  const columnsOf = (k: number): string[] => (k === 0 ? columns : [columns[k - 1]!]);
  for (let k = 0; k < repeats; k++) {
    compiles.push(compileOnce(whole));
    imports.push(torchImport());
    rows.forEach((row, j) => {
      // An edit that changes the object (a comment alone compiles to the same code, and the same
      // binaries are rightly not tested again).
      appendFileSync(path.join(apps[j]!, KERNEL), `int opforge_loop_edit_${k}() { return ${k}; }\n`);
      row.edits.push(opforgeTest(apps[j]!, env, columnsOf(j), ['--only', OP]));
      row.unchanged.push(opforgeTest(apps[j]!, env, columnsOf(j), ['--only', OP]));
      process.stderr.write(
        `round ${k + 1}, ${row.what}: kernel edit ${secs(row.edits.at(-1)!.ms)}, nothing changed ${secs(row.unchanged.at(-1)!.ms)}\n`,
      );
    });
    compiles.push(compileOnce(whole));
    imports.push(torchImport());
  }
  // The whole project again under --watch (its builds are warm from the rounds above).
  const watched = await watchRounds(whole, env, columns);
  const c = median(compiles);
  const py = median(imports);
  const ms = (runs: Run[]): number => median(runs.map((r) => r.ms));
  const yes = (ok: boolean): string => (ok ? 'yes' : '**no**');
  // Each CPU kernel once (and, for the TensorRT driver, each CUDA kernel once); serialize compiles none.
  const kernels = readdirSync(path.join(whole, 'ops', 'kernels')).filter((f) => f.endsWith('.cpp'));
  const once = (row: Row): boolean => {
    const n = [...row.cold.perKernel.values()];
    const cpu = kernels.every((f) => row.cold.perKernel.get(path.join('ops', 'kernels', f)) === 1);
    return n.every((x) => x === 1) && (row.what === 'serialize' ? n.length === 0 : cpu);
  };
  const each = (r: Run): string => {
    const n = [...r.perKernel.values()];
    if (!n.length) return 'no kernel';
    return Math.min(...n) === Math.max(...n)
      ? `each of ${n.length} kernel sources ${n[0]}×`
      : `kernel sources ${Math.min(...n)}–${Math.max(...n)}×`;
  };
  const editTarget = 3 * (c + py);
  const noneTarget = 2 * py;
  const torchVersion = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], {
    encoding: 'utf8',
  }).stdout.trim();
  const lines = [
    `Edit -> test loop, ${new Date().toISOString().slice(0, 10)} at ${commit()}, ${os.cpus().length} × ${os.cpus()[0]?.model.trim() ?? 'CPU'} (load average ${os.loadavg()[0]!.toFixed(1)} at the end), Node ${process.version}, ${path.relative(repo, python).startsWith('..') ? python : path.relative(repo, python)} (torch ${torchVersion}); ${values.jobs ? `--jobs ${values.jobs}` : 'default jobs'}; median of ${repeats} (cold: one run)${missing.length ? `; not on this machine: ${missing.join(', ')}` : ''}.`,
    '',
    `Targets: one-kernel edit ≤ 3 × (one compile + \`import torch\`) = ${secs(editTarget)}; nothing changed ≤ 2 × \`import torch\` = ${secs(noneTarget)}; cold: each kernel compiled once (one compile of ${KERNEL.split(path.sep).join('/')} with its build flags: ${secs(c)}; bare \`python -c "import torch"\`: ${secs(py)}).`,
    '',
    `| \`opforge test --backend\` | cold (6 ops) | compiler invocations, cold | each kernel once | \`--only ${OP}\` after a one-kernel edit (invocations) | ≤ ${secs(editTarget)} | \`--only ${OP}\`, nothing changed (invocations) | ≤ ${secs(noneTarget)} |`,
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.what === 'all columns' ? `all columns (${columns.join(',')})${row === rows[0] ? ', empty machine cache' : ''}` : row.what} | ${secs(row.cold.ms)} | ${row.cold.invocations} (${each(row.cold)}) | ${yes(once(row))} | ${secs(ms(row.edits))} (${median(row.edits.map((r) => r.invocations))}) | ${yes(ms(row.edits) <= editTarget)} | ${secs(ms(row.unchanged))} (${median(row.unchanged.map((r) => r.invocations))}) | ${yes(ms(row.unchanged) <= noneTarget)} |`,
    ),
    `| all columns, \`--watch\` (an edit ${THINK_S} s after the last run ended) | — | — | — | ${secs(ms(watched))} (${median(watched.map((r) => r.invocations))}) | ${yes(ms(watched) <= editTarget)} | no run (nothing to run) | yes |`,
  ];
  const table = lines.join('\n');
  process.stdout.write(`${table}\n`);
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

function commit(): string {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repo, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: repo, encoding: 'utf8' });
  return `${r.stdout.trim() || 'unknown'}${dirty.stdout.trim() ? ' (with changes)' : ''}`;
}

try {
  await main();
} finally {
  if (!values.keep) rmSync(tmp, { recursive: true, force: true });
  else process.stderr.write(`kept ${tmp}\n`);
}
