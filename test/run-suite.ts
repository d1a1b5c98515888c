// `npm test`'s runner: the whole suite with the Python users have (a venv holding the pinned
// requirements-test.txt: pip torch 2.x, onnx, onnxruntime, onnxscript, paddlepaddle, jax), then
// the Python-side files again with the oldest torch supported (Debian's python3-torch 1.13, when
// installed). Prints one closing `N passed, N failed` line over both legs.
//
//   node dist/test/run-suite.js [pattern]       (default: every *.test.js, test/unit/ included)
//
// The venv is .venv in the repo (OPFORGE_TEST_VENV: elsewhere), made once (again when
// requirements-test.txt changes). OPFORGE_PYTHON set: that Python runs the first leg and no venv
// is made. OPFORGE_TEST_LEGACY=0 skips the second leg; OPFORGE_TEST_LEGACY_PYTHON names its
// interpreter (default /usr/bin/python3).
//
// What an optional tool adds is skipped where it is missing, saying so and how to install it: the
// venv (a Python without venv/ensurepip), the second leg (no Debian torch), and the tests of
// helpers/optional-tools.ts. OPFORGE_REQUIRE_TOOLS=1 (CI) makes them required: a venv that cannot
// be made or a missing second leg fails the run before any test, and those tests fail.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { currentTests } from './helpers/compiled-tests.js';
import { EVERYTHING, type Job, nextJob, sharedResources, WEIGHT_UNKNOWN, WEIGHTS } from './helpers/suite-schedule.js';
import { REQUIRE_TOOLS } from './helpers/optional-tools.js';
import { PROBE_ENV, probePython } from './helpers/python-probe.js';
import { findPython } from '../runtime/python-env.js';
import { root } from './helpers/paths.js';

/** What the second leg needs (Debian 12): torch 1.13, onnx, and the headers the torch extension builds with. */
const LEGACY_PACKAGES = 'python3-torch python3-onnx libtorch-dev pybind11-dev';

/**
 * Test files the second leg runs again with the oldest torch: the seed ops and the spec-space
 * corpus, which between them reach every construct the generated torch code has (the corpus is a
 * cover of the spec space). Not grad.test.ts, op-sets.test.ts or user-ops.test.ts: their torch
 * code is the same generated code on other ops, and what they test beside it (namespaces, lazy
 * references, ops written outside the repo) reads nothing of the torch version
 * (docs/decisions.md, "The oldest-torch leg runs the seed ops and the corpus").
 */
export const PYTHON_FILES = ['opforge-test', 'specspace'];

const venv = path.resolve(root, process.env.OPFORGE_TEST_VENV ?? '.venv');
const requirements = path.join(root, 'requirements-test.txt');
const stamp = path.join(venv, 'opforge-requirements.sha256');

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/**
 * Asks the Python a leg's env finds what it imports, once (python-probe.ts), and hands the answer
 * to the leg's files in that env; its torch version, undefined where torch is not importable.
 */
function probeLeg(env: NodeJS.ProcessEnv): string | undefined {
  const probe = probePython(findPython(env).python);
  env[PROBE_ENV] = JSON.stringify(probe);
  return probe.modules.torch ? probe.torch : undefined;
}

/** .venv with the pinned requirements (made or refreshed when the file changed); undefined when that fails. */
function ensureVenv(): string | undefined {
  const want = createHash('sha256').update(readFileSync(requirements)).digest('hex');
  const py = path.join(venv, 'bin', 'python');
  if (existsSync(py) && existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === want) return py;
  log(`test: installing requirements-test.txt into ${path.relative(root, venv)} (once)`);
  const base = ['python3', 'python'].find(
    (p) => spawnSync(p, ['-c', 'import venv, ensurepip'], { stdio: 'ignore' }).status === 0,
  );
  if (!base) {
    log(
      `test: no python3 with venv and ensurepip (Debian: apt-get install python3-venv): the Python side is not installed`,
    );
    return undefined;
  }
  const steps: [string, string[]][] = [
    [base, ['-m', 'venv', venv]],
    [py, ['-m', 'pip', 'install', '--quiet', '--disable-pip-version-check', '-r', requirements]],
  ];
  for (const [cmd, args] of steps) {
    const r = spawnSync(cmd, args, { stdio: 'inherit' });
    if (r.status !== 0) {
      log(`test: ${cmd} ${args.join(' ')} failed (exit ${r.status}): the Python side is not installed`);
      return undefined;
    }
  }
  writeFileSync(stamp, `${want}\n`);
  return py;
}

interface Leg {
  name: string;
  env: NodeJS.ProcessEnv;
  pattern: string;
}

/** What one job (one test file in one leg) reported: uvu's counts, and its output. */
interface Ended {
  passed: number;
  skipped: number;
  failed: number;
  ok: boolean;
  seconds: number;
  /** CPU seconds (user + system) of the file and every process it waited for; NaN where unknown. */
  cpu: number;
}

/** The CPU line bash's `times` prints for waited-for children ("0m1.5s 0m0.3s"), as seconds. */
const TIMES_LINE = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;

/** Strips the two lines `times` printed last from a file's output; the children's user + system seconds. */
function takeCpu(text: string): { text: string; cpu: number } {
  const lines = text.trimEnd().split('\n');
  const m = TIMES_LINE.exec(lines.at(-1) ?? '');
  if (!m || !TIMES_LINE.test(lines.at(-2) ?? '')) return { text, cpu: Number.NaN };
  const cpu = Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
  return { text: lines.slice(0, -2).join('\n'), cpu };
}

/** The compiled test files a leg runs (relative to dist/test), matching its pattern. */
function legFiles(pattern: string): string[] {
  const re = new RegExp(pattern);
  return currentTests().filter((p) => re.test(p));
}

/** Runs one test file under uvu in `env`; its output is printed whole when it ends, so files never interleave. */
function runFile(file: string, env: NodeJS.ProcessEnv, label: string): Promise<Ended> {
  const t0 = performance.now();
  const dir = path.posix.dirname(file);
  const name = path.posix.basename(file).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  return new Promise((resolve) => {
    // Through bash, whose `times` adds the CPU of every process the file waited for: the figure the
    // slowest-files line ranks by, since wall time depends on what ran beside the file.
    const child = spawn(
      'bash',
      [
        '-c',
        '"$@"; s=$?; times >&2; exit $s',
        'bash',
        path.join(root, 'node_modules', '.bin', 'uvu'),
        // The pattern is the file's own name: nothing else (declaration files, stale files) can match.
        path.join('dist', 'test', dir),
        `^${name}$`,
      ],
      { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let text = '';
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    child.stderr.on('data', (c: Buffer) => {
      text += c.toString('utf8');
    });
    child.on('close', (code) => {
      const seconds = (performance.now() - t0) / 1000;
      const { text: out, cpu } = takeCpu(text);
      text = out;
      log(`\n---- ${label} (${seconds.toFixed(0)} s, ${cpu.toFixed(0)} s CPU) ----\n${text.trimEnd()}`);
      // uvu's closing block: "Total: N", "Passed: N", "Skipped: N" (colour codes stripped).
      const plain = text.replace(/\x1b\[[0-9;]*m/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      // uvu's Total leaves skipped tests out; a file that died before its block counts as one failure.
      const failed = total - passed || (code === 0 ? 0 : 1);
      resolve({ passed, skipped, failed, ok: code === 0, seconds, cpu });
    });
  });
}

interface SuiteJob extends Job {
  file: string;
  leg: Leg;
}

/** Every leg's files as jobs: an oldest-torch job after its file's first run and every first-leg job sharing a folder with it. */
function suiteJobs(legs: readonly Leg[]): SuiteJob[] {
  const jobs: SuiteJob[] = [];
  for (const [i, leg] of legs.entries()) {
    const prefix = leg.env.OPFORGE_TEST_LEG === 'oldest-torch' ? 'legacy:' : i ? `leg${i}:` : '';
    for (const file of legFiles(leg.pattern)) {
      const short = file.replace(/\.test\.js$/, '');
      const resources = sharedResources(readFileSync(path.join(root, 'dist', 'test', file), 'utf8'));
      const after = prefix
        ? jobs
            .filter(
              (j) =>
                j.file === file ||
                (!j.resources.includes(EVERYTHING) && j.resources.some((r) => resources.includes(r))),
            )
            .map((j) => j.id)
        : [];
      jobs.push({
        id: `${prefix}${short}`,
        file,
        leg,
        resources,
        after,
        weight: WEIGHTS[`${prefix}${short}`] ?? WEIGHT_UNKNOWN,
      });
    }
  }
  return jobs;
}

/** Runs the jobs on `workers` at once (suite-schedule.ts decides which may start); the totals, and each job's time. */
async function runJobs(jobs: SuiteJob[], workers: number): Promise<Ended & { took: [string, number, number][] }> {
  const waiting = [...jobs];
  const running = new Map<string, SuiteJob>();
  const ended = new Set<string>();
  const total: Ended & { took: [string, number, number][] } = {
    passed: 0,
    skipped: 0,
    failed: 0,
    ok: true,
    seconds: 0,
    cpu: 0,
    took: [],
  };
  await new Promise<void>((done) => {
    const fill = (): void => {
      while (running.size < workers) {
        const job = nextJob(waiting, [...running.values()], ended);
        if (!job) break;
        waiting.splice(waiting.indexOf(job), 1);
        running.set(job.id, job);
        log(`start ${job.id}${job.leg.env.OPFORGE_TEST_LEG ? ` (${job.leg.name})` : ''}`);
        void runFile(job.file, job.leg.env, job.id).then((r) => {
          running.delete(job.id);
          ended.add(job.id);
          total.passed += r.passed;
          total.skipped += r.skipped;
          total.failed += r.failed;
          total.ok &&= r.ok;
          total.cpu += r.cpu;
          total.took.push([job.id, r.seconds, r.cpu]);
          fill();
        });
      }
      if (!running.size) {
        if (waiting.length) throw new Error(`jobs that can never start: ${waiting.map((j) => j.id).join(', ')}`);
        done();
      }
    };
    fill();
  });
  return total;
}

async function main(): Promise<number> {
  const pattern = process.argv[2] ?? '\\.test\\.js$';
  // The machine cache (the PyTorch extension's Python entry) of this run alone: the suite neither
  // reads nor fills the user's, and its projects share one as a user's would.
  const ownCache = process.env.OPFORGE_CACHE_DIR ? undefined : mkdtempSync(path.join(os.tmpdir(), 'opforge-cache-'));
  if (ownCache) process.env.OPFORGE_CACHE_DIR = ownCache;
  const legs: Leg[] = [];
  // What OPFORGE_REQUIRE_TOOLS=1 turns into a failed run, before any test runs.
  const required: string[] = [];
  const base: NodeJS.ProcessEnv = { ...process.env };
  delete base.OPFORGE_PYTHON;
  if (process.env.OPFORGE_PYTHON) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    legs.push({
      name: `OPFORGE_PYTHON=${process.env.OPFORGE_PYTHON} (torch ${probeLeg(env) ?? 'not importable'})`,
      env,
      pattern,
    });
  } else {
    const py = ensureVenv();
    if (py) {
      // As an activated venv: opforge finds it through VIRTUAL_ENV, as it would a user's.
      const env: NodeJS.ProcessEnv = {
        ...base,
        VIRTUAL_ENV: venv,
        PATH: `${path.join(venv, 'bin')}${path.delimiter}${process.env.PATH ?? ''}`,
      };
      delete env.CONDA_PREFIX;
      legs.push({
        name: `the venv ${path.relative(root, venv)} (torch ${probeLeg(env) ?? 'not importable'})`,
        env,
        pattern,
      });
    } else {
      required.push(`the venv ${venv} could not be made (above: why, and what to install)`);
      const env: NodeJS.ProcessEnv = { ...base };
      probeLeg(env);
      legs.push({
        name: 'no Python side installed: torch, Paddle and JAX columns report themselves skipped',
        env,
        pattern,
      });
    }
  }
  const legacy = process.env.OPFORGE_TEST_LEGACY_PYTHON ?? '/usr/bin/python3';
  const legacyEnv: NodeJS.ProcessEnv = { ...base, OPFORGE_PYTHON: legacy, OPFORGE_TEST_LEG: 'oldest-torch' };
  const legacyTorch = process.env.OPFORGE_TEST_LEGACY === '0' ? undefined : probeLeg(legacyEnv);
  if (legacyTorch) {
    // Anchored: only the top-level files of that name, never a test/unit/ file ending like one.
    const files = `^(${PYTHON_FILES.join('|')})\\.test\\.js$`;
    const re = new RegExp(pattern);
    const chosen = PYTHON_FILES.filter((f) => re.test(`${f}.test.js`));
    if (chosen.length)
      legs.push({
        name: `oldest torch: ${legacy} (torch ${legacyTorch}): ${chosen.join(', ')}`,
        env: legacyEnv,
        pattern: pattern === '\\.test\\.js$' ? files : pattern,
      });
  } else if (process.env.OPFORGE_TEST_LEGACY !== '0') {
    const why = `no torch importable by ${legacy} (Debian: apt-get install ${LEGACY_PACKAGES})`;
    log(`test: no second leg: ${why}`);
    required.push(`the oldest-torch leg: ${why}`);
  }
  if (REQUIRE_TOOLS && required.length) {
    log(`\ntest: OPFORGE_REQUIRE_TOOLS=1, and not everything is there:\n${required.map((r) => `  ${r}`).join('\n')}`);
    if (ownCache) rmSync(ownCache, { recursive: true, force: true });
    return 1;
  }
  for (const leg of legs) log(`leg: ${leg.name}`);
  // Files at once: one per core (OPFORGE_TEST_JOBS overrides), since a file's builds leave a
  // core idle while its Python harness or a link runs.
  const workers = Number(process.env.OPFORGE_TEST_JOBS) || Math.max(1, os.availableParallelism());
  const t0 = performance.now();
  const r = await runJobs(suiteJobs(legs), workers);
  // By CPU: a file's wall time depends on what ran beside it.
  const took = r.took.sort((a, b) => b[2] - a[2] || b[1] - a[1]);
  log(
    `\nslowest files (CPU; wall): ${took
      .slice(0, 16)
      .map(([f, t, c]) => `${f} ${c.toFixed(0)} s; ${t.toFixed(0)} s`)
      .join(', ')}`,
  );
  log(`(${workers} at once: ${((performance.now() - t0) / 1000).toFixed(0)} s, ${r.cpu.toFixed(0)} s CPU)`);
  const { passed, skipped, failed, ok } = r;
  if (ownCache) rmSync(ownCache, { recursive: true, force: true });
  log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped (each said why above)` : ''}`);
  return ok && failed === 0 ? 0 : 1;
}

process.exit(await main());
