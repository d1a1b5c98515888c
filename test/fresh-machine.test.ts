// README's test path on a machine without the optional tools: run-suite.ts over the files whose
// tests need them (fuzz: clang++ with libFuzzer; ccache-launcher: ccache), with a PATH that hides
// clang and ccache, python3/python without venv's ensurepip (Debian without python3-venv) and a
// second-leg Python without torch (Debian without python3-torch). Without OPFORGE_REQUIRE_TOOLS
// the run passes and every skip names its tool and install command; with OPFORGE_REQUIRE_TOOLS=1
// (CI) the same run fails naming them. Seconds: every gated test is skipped, or fails at once.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../generator/model/project.js';
import { CCACHE, CLANG_LIBFUZZER } from './helpers/optional-tools.js';
import { opsDir, root } from './helpers/paths.js';
import { PYTHON } from './helpers/python.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-fresh-'));
const FILES = '^(fuzz|ccache-launcher)\\.test\\.js$';
const HIDDEN = /^(clang|clang\+\+|clang-[\d.]+|clang\+\+-[\d.]+|ccache)$/;
const ops = loadProject({ opsDir }).ops;

test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** A directory of links to every command on PATH (the first of each name) but clang's and ccache. */
function pathWithout(): string {
  const dir = path.join(tmp, 'bin');
  mkdirSync(dir);
  const seen = new Set<string>();
  for (const d of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    // /usr/lib/ccache holds compiler names that run ccache.
    if (path.basename(d) === 'ccache' || !existsSync(d) || !statSync(d).isDirectory()) continue;
    for (const name of readdirSync(d)) {
      if (seen.has(name) || HIDDEN.test(name)) continue;
      seen.add(name);
      symlinkSync(path.join(d, name), path.join(dir, name));
    }
  }
  return dir;
}

/** The system Python (not a venv's), as a command path. */
const systemPython = existsSync('/usr/bin/python3')
  ? '/usr/bin/python3'
  : spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' }).stdout.trim();

function script(file: string, body: string): string {
  writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

const bin = pathWithout();
// python3 and python that cannot make a venv: ensurepip is not importable, as on Debian without python3-venv.
const noVenv = path.join(tmp, 'no-venv');
mkdirSync(path.join(noVenv, 'lib'), { recursive: true });
writeFileSync(path.join(noVenv, 'lib', 'ensurepip.py'), 'raise ImportError("no ensurepip")\n');
for (const name of ['python3', 'python'])
  script(path.join(noVenv, name), `PYTHONPATH=${noVenv}/lib exec ${systemPython} -S "$@"`);
// A Python without torch for the second leg: -S leaves out site- and dist-packages.
const noTorch = script(path.join(tmp, 'python-without-torch'), `exec ${systemPython} -S "$@"`);

/** run-suite.ts over the gated files in the fresh-machine environment, with `env` on top. */
function suite(env: Record<string, string | undefined>): { status: number | null; out: string } {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of [
    'OPFORGE_REQUIRE_TOOLS',
    'OPFORGE_TEST_LEGACY',
    'OPFORGE_TEST_LEG',
    'OPFORGE_PYTHON',
    'VIRTUAL_ENV',
    'CONDA_PREFIX',
    'OPFORGE_CACHE_DIR',
    'OPFORGE_TEST_PYTHON_PROBE',
  ])
    delete e[k];
  Object.assign(e, {
    PATH: `${noVenv}${path.delimiter}${bin}`,
    OPFORGE_TEST_VENV: path.join(tmp, 'venv'),
    OPFORGE_TEST_LEGACY_PYTHON: noTorch,
    NO_COLOR: '1',
  });
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete e[k];
    else e[k] = v;
  }
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'test', 'run-suite.js'), FILES], {
    cwd: root,
    env: e,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  return { status: r.status, out: `${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
}

const CLANG_SKIP = `clang++ is not installed: ${CLANG_LIBFUZZER.install}`;
const CCACHE_SKIP = `ccache is not installed: ${CCACHE.install}`;
const CCACHE_TESTS = [
  'CMAKE_CXX_COMPILER_LAUNCHER=ccache: a fresh kernel build dir after another compiles from the cache',
  "opforge's launcher: a copy of the project at another path compiles from the cache",
];

test('without the optional tools: the run passes, and each skip names its tool and install command', () => {
  const { status, out } = suite({});
  assert.is(status, 0, out);
  for (const op of ops)
    assert.ok(out.includes(`skipped (${CLANG_SKIP}): fuzz ${op.name} deserialize`), `${op.name}:\n${out}`);
  for (const t of CCACHE_TESTS) assert.ok(out.includes(`skipped (${CCACHE_SKIP}): ${t}`), `${t}:\n${out}`);
  assert.match(out, 'test: no python3 with venv and ensurepip (Debian: apt-get install python3-venv)');
  assert.match(
    out,
    `test: no second leg: no torch importable by ${noTorch} (Debian: apt-get install python3-torch python3-onnx libtorch-dev pybind11-dev)`,
  );
  assert.match(out, `0 passed, 0 failed, ${ops.length + CCACHE_TESTS.length} skipped`);
});

test('OPFORGE_REQUIRE_TOOLS=1: each test that needs a missing tool fails, naming it and its install command', () => {
  const { status, out } = suite({ OPFORGE_REQUIRE_TOOLS: '1', OPFORGE_PYTHON: PYTHON, OPFORGE_TEST_LEGACY: '0' });
  assert.is(status, 1, out);
  assert.not.match(out, 'skipped (');
  assert.match(out, `required with OPFORGE_REQUIRE_TOOLS=1: ${CLANG_SKIP}`);
  assert.match(out, `required with OPFORGE_REQUIRE_TOOLS=1: ${CCACHE_SKIP}`);
  assert.match(out, `0 passed, ${ops.length + CCACHE_TESTS.length} failed`);
});

test('OPFORGE_REQUIRE_TOOLS=1: no venv and no second leg fail the run before any test, naming what to install', () => {
  const { status, out } = suite({ OPFORGE_REQUIRE_TOOLS: '1' });
  assert.is(status, 1, out);
  assert.match(out, 'test: OPFORGE_REQUIRE_TOOLS=1, and not everything is there:');
  assert.match(out, 'apt-get install python3-venv');
  assert.match(out, `the oldest-torch leg: no torch importable by ${noTorch}`);
  assert.not.match(out, 'fuzz ', 'no test ran');
});

test.run();
