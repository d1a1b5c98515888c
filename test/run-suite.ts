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
import { testFileIgnoreArgs } from './helpers/compiled-tests.js';
import { REQUIRE_TOOLS } from './helpers/optional-tools.js';
import { root } from './helpers/paths.js';

/** What the second leg needs (Debian 12): torch 1.13, onnx, and the headers the torch extension builds with. */
const LEGACY_PACKAGES = 'python3-torch python3-onnx libtorch-dev pybind11-dev';

/** Test files that run Python (torch, onnx, paddle, jax): the second leg runs these. */
export const PYTHON_FILES = ['grad', 'op-sets', 'opforge-test', 'specspace', 'user-ops'];

const venv = path.resolve(root, process.env.OPFORGE_TEST_VENV ?? '.venv');
const requirements = path.join(root, 'requirements-test.txt');
const stamp = path.join(venv, 'opforge-requirements.sha256');

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

function hasTorch(python: string): string | undefined {
  const r = spawnSync(python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
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

/** Runs uvu over the leg's files, its output streamed through; the counts from uvu's closing block. */
function runLeg(leg: Leg): Promise<{ passed: number; skipped: number; failed: number; ok: boolean }> {
  log(`\n==== ${leg.name} ====`);
  return new Promise((resolve) => {
    // Only compiled test files, none whose test was moved or removed (test/helpers/compiled-tests.ts).
    const child = spawn(
      path.join(root, 'node_modules', '.bin', 'uvu'),
      ['dist/test', leg.pattern, ...testFileIgnoreArgs()],
      {
        cwd: root,
        env: leg.env,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let tail = '';
    // Where the time goes: uvu prints each file's name as it starts it.
    const files: [string, number][] = [];
    let partial = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4000);
      const parts = (partial + text).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        const m = /^(?:\x1b\[[0-9;]*m)*([\w./-]+\.test\.js)(?:\x1b\[[0-9;]*m)*$/.exec(line.trim());
        if (m) files.push([m[1]!, performance.now()]);
      }
    });
    child.on('close', (code) => {
      const end = performance.now();
      const took = files
        .map(([f, t], i) => [f, ((files[i + 1]?.[1] ?? end) - t) / 1000] as const)
        .sort((a, b) => b[1] - a[1]);
      if (took.length)
        log(
          `slowest files: ${took
            .slice(0, 10)
            .map(([f, s]) => `${f.replace('.test.js', '')} ${s.toFixed(0)} s`)
            .join(', ')}`,
        );
      // uvu's closing block: "Total: N", "Passed: N" (colour codes stripped).
      const plain = tail.replace(/\x1b\[[0-9;]*m/g, '');
      const total = Number(/Total:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const passed = Number(/Passed:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      const skipped = Number(/Skipped:\s+(\d+)/.exec(plain)?.[1] ?? 0);
      resolve({ passed, skipped, failed: total - passed, ok: code === 0 }); // uvu's Total leaves skipped tests out
    });
  });
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
    legs.push({
      name: `OPFORGE_PYTHON=${process.env.OPFORGE_PYTHON} (torch ${hasTorch(process.env.OPFORGE_PYTHON) ?? 'not importable'})`,
      env: { ...process.env },
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
        name: `the venv ${path.relative(root, venv)} (torch ${hasTorch(py) ?? 'not importable'})`,
        env,
        pattern,
      });
    } else {
      required.push(`the venv ${venv} could not be made (above: why, and what to install)`);
      legs.push({
        name: 'no Python side installed: torch, Paddle and JAX columns report themselves skipped',
        env: base,
        pattern,
      });
    }
  }
  const legacy = process.env.OPFORGE_TEST_LEGACY_PYTHON ?? '/usr/bin/python3';
  const legacyTorch = process.env.OPFORGE_TEST_LEGACY === '0' ? undefined : hasTorch(legacy);
  if (legacyTorch) {
    // Anchored: only the top-level files of that name, never a test/unit/ file ending like one.
    const files = `^(${PYTHON_FILES.join('|')})\\.test\\.js$`;
    const re = new RegExp(pattern);
    const chosen = PYTHON_FILES.filter((f) => re.test(`${f}.test.js`));
    if (chosen.length)
      legs.push({
        name: `oldest torch: ${legacy} (torch ${legacyTorch}): ${chosen.join(', ')}`,
        env: { ...base, OPFORGE_PYTHON: legacy, OPFORGE_TEST_LEG: 'oldest-torch' },
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
  let passed = 0,
    skipped = 0,
    failed = 0,
    ok = true;
  for (const leg of legs) {
    const t0 = performance.now();
    const r = await runLeg(leg);
    log(`(${leg.name}: ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    passed += r.passed;
    skipped += r.skipped;
    failed += r.failed;
    ok &&= r.ok;
  }
  if (ownCache) rmSync(ownCache, { recursive: true, force: true });
  log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped (each said why above)` : ''}`);
  return ok && failed === 0 ? 0 : 1;
}

process.exit(await main());
