// JAX for real (jax/jaxlib from the test venv): the generated XLA FFI handlers and opforge_jax
// through `opforge test`'s jax and jax-grad columns on the seed ops; jit, vmap, grad, export and
// the errors (wrong dtype and rank from Python and from the C++ handler, bad attributes, no
// backward, a library built for a newer jaxlib) by test/python/jax_api_check.py; the CUDA handlers
// compiled (host code against the CUDA headers; the GPU run is scripts/gpu/jax-check.sh).
// Without jax the columns are skipped with the reason and the install command. The spec-space
// corpus, the user-ops fixture and the packed project run the columns in their own tests.

import { mkdirSync, mkdtempSync, readdirSync, cpSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTests } from './helpers/run-tests.js';
import { loadProject } from '../generator/model/project.js';
import { root } from './helpers/paths.js';
import { PYTHON, hasModule, testWith } from './helpers/python.js';
import { sh } from './helpers/cxx.js';
import { assertColumn, variadicCheck, variadicProject } from './helpers/variadic.js';

const hasJax = hasModule('jax');
const buildDir = path.join(root, 'build', 'jax-run');
const ffiInclude = (): string =>
  spawnSync(PYTHON, ['-c', 'import jax.ffi; print(jax.ffi.include_dir())'], { encoding: 'utf8' }).stdout.trim();

test('without jax the columns are skipped, with the reason and the install command', async () => {
  const venv = mkdtempSync(path.join(os.tmpdir(), 'opforge-bare-'));
  assert.is(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status, 0);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-jax-'));
  for (const f of ['my_add.yaml', 'my_add_grad.yaml']) cpSync(path.join(root, 'ops', f), path.join(dir, 'ops', f));
  for (const f of readdirSync(path.join(root, 'ops', 'kernels')).filter((f) => f.startsWith('my_add')))
    cpSync(path.join(root, 'ops', 'kernels', f), path.join(dir, 'ops', 'kernels', f));
  const r = await runTests({ root: dir, backends: ['jax'], python: path.join(venv, 'bin', 'python') });
  assert.ok(r.ok);
  for (const b of ['jax', 'jax-grad'])
    assert.match(r.skipped[b] ?? '', /^jax is not importable by .* \(install: pip install jax==\d/);
});

testWith(
  ['jax', 'torch'],
  'seed ops: jax (jit and vmap) and jax-grad agree with the reference on every case',
  async () => {
    const r = await runTests({ root, backends: ['jax'], python: PYTHON, buildDir });
    assert.ok(r.ok, JSON.stringify(r.results.filter((x) => x.status === 'fail')));
    const project = loadProject({ opsDir: path.join(root, 'ops'), root });
    const keys = (ops: typeof project.ops) => ops.flatMap((op) => op.tests.map((t) => `${op.name}#${t.index}`)).sort();
    const ok = (b: string, raised = false) =>
      r.results
        .filter((x) => x.backend === b && x.status === 'ok' && !!x.raised === raised)
        .map((x) => `${x.op}#${x.case}`)
        .sort();
    assert.equal(ok('jax'), keys(project.ops));
    assert.ok(r.results.filter((x) => x.backend === 'jax').every((x) => x.compared === 'reference'));
    assert.equal(ok('jax-grad'), keys(project.ops.filter((op) => op.backward)));
    // The gradient ops declare no backward: differentiating them raises the named error.
    assert.equal(
      ok('jax-grad', true),
      keys(project.ops.filter((op) => !op.backward && op.inputs.some((i) => i.differentiable))),
    );
    assert.match(JSON.stringify(r.env.jax), /"ffiApi":"\d+\.\d+"/);
  },
);

testWith(['jax'], 'jit, vmap, grad, export and the errors (test/python/jax_api_check.py)', () => {
  // A library recording a newer jaxlib than the running one: build_info.cc alone, as CMake builds it.
  const fake = path.join(buildDir, 'fake-newer');
  mkdirSync(fake, { recursive: true });
  const lib = path.join(fake, 'libopforge_jax_ops.so');
  sh('g++', [
    '-std=c++17',
    '-shared',
    '-fPIC',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-isystem',
    ffiInclude(),
    '-DOPFORGE_JAX_JAXLIB_VERSION="99.0.0"',
    path.join(root, 'out', 'jax', 'build_info.cc'),
    '-o',
    lib,
  ]);
  const r = spawnSync(
    PYTHON,
    [
      path.join(root, 'test', 'python', 'jax_api_check.py'),
      path.join(root, 'out', 'jax'),
      path.join(buildDir, 'jax', 'jax', 'libopforge_jax_ops.so'),
      lib,
    ],
    { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', TF_CPP_MIN_LOG_LEVEL: '2' } },
  );
  assert.is(r.status, 0, `${r.stdout}\n${r.stderr.split('\n').slice(-25).join('\n')}`);
  for (const k of ['mismatch', 'loaded', 'jit', 'vmap', 'grad', 'no backward', 'export', 'errors'])
    assert.match(r.stdout, new RegExp(`^${k}:`, 'm'));
});

testWith(
  ['jax', 'torch'],
  'a variadic input (test/fixtures/variadic-grad): jax and jax-grad on every case, and values by hand',
  async () => {
    // node runs too: the baseline of any case the reference does not check.
    // Built in the project's own build/ (a fresh folder each run: CMake's cache names its source).
    const dir = variadicProject();
    const build = path.join(dir, 'build');
    const r = await runTests({ root: dir, backends: ['node', 'jax'], python: PYTHON });
    assertColumn(r, 'jax');
    // The gradient reads the members (MemberMixGrad takes them); the gradient op has no backward.
    assertColumn(r, 'jax-grad');
    const raised = r.results.filter((x) => x.backend === 'jax-grad' && x.raised).map((x) => `${x.op}#${x.case}`);
    assert.equal(raised, ['MemberMixGrad#0', 'MemberMixGrad#1']);
    // jit, vmap, grad and the errors, the handler's own count check included.
    const out = variadicCheck(
      'jax',
      path.join(dir, 'out', 'jax'),
      path.join(build, 'jax', 'jax', 'libopforge_jax_ops.so'),
    );
    for (const k of [
      'jit',
      'weights',
      'order',
      'vmap',
      'grad',
      'one member',
      '33 members',
      'member dtype',
      'handler: one member',
    ])
      assert.match(out, new RegExp(`^${k}:`, 'm'));
  },
);

testWith(
  ['jax'],
  'JAX_PYTHON may name a command on PATH (as OPFORGE_PYTHON=python3 passes it), not only a path',
  () => {
    // A FILEPATH cache entry would make `python3` absolute against the working directory.
    const dir = path.join(buildDir, 'jax-python-on-path');
    const r = spawnSync(
      'cmake',
      [
        '-S',
        path.join(root, 'out'),
        '-B',
        dir,
        '-DWITH_JAX=ON',
        `-DJAX_PYTHON=${path.basename(PYTHON)}`,
        `-DOPFORGE_PROJECT_ROOT=${root}`,
      ],
      {
        encoding: 'utf8',
        cwd: os.tmpdir(),
        env: { ...process.env, PATH: `${path.dirname(PYTHON)}${path.delimiter}${process.env.PATH ?? ''}` },
      },
    );
    assert.is(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /JAX: the XLA FFI headers of jaxlib \d+\.\d+/);
  },
);

test('the CUDA handlers compile (-Wall -Wextra -Werror) against the CUDA headers', () => {
  const cudaInclude = [
    '/usr/local/cuda/include',
    ...(process.env.CUDA_HOME ? [path.join(process.env.CUDA_HOME, 'include')] : []),
  ].find((d) => existsSync(path.join(d, 'cuda_runtime_api.h')));
  if (!hasJax || !cudaInclude) return; // compile-only; nothing to compile against
  const project = loadProject({ opsDir: path.join(root, 'ops'), root });
  const dir = path.join(buildDir, 'cuda-compile');
  mkdirSync(dir, { recursive: true });
  // Every handler unit in one file (as the CMake unity build compiles them).
  const unity = path.join(dir, 'handlers.cc');
  writeFileSync(
    unity,
    project.ops
      .map((op) => `#include "${path.join(root, 'out', 'jax', op.ident.snake, `${op.ident.snake}_jax.cc`)}"\n`)
      .join(''),
  );
  sh('g++', [
    '-std=c++17',
    '-c',
    '-fPIC',
    '-Wall',
    '-Wextra',
    '-Werror',
    '-DOPFORGE_JAX_WITH_CUDA',
    '-isystem',
    ffiInclude(),
    '-isystem',
    cudaInclude,
    '-I',
    path.join(root, 'out', 'include'),
    '-I',
    path.join(root, 'out', 'jax', 'include'),
    unity,
    '-o',
    path.join(dir, 'handlers.o'),
  ]);
  const syms = sh('nm', ['-g', '--defined-only', path.join(dir, 'handlers.o')]);
  for (const op of project.ops)
    for (const k of ['cpu', 'cuda']) assert.match(syms, new RegExp(`\\bopforge_jax_${op.ident.snake}_${k}\\b`));
});

test.run();
