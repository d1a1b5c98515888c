// Each kernel compiled once per device configuration: a cold `opforge test` of a small
// project outside ops/ through every backend that links kernels, with a launcher that logs every
// compiler invocation (CMAKE_CXX_COMPILER_LAUNCHER, the path ccache takes; CUDACXX for the
// TensorRT lifecycle driver's nvcc). The Node addon, the JAX library, the Paddle op library, the
// ONNX Runtime library and the TensorRT driver link the objects of one kernel build; the PyTorch extension's build (configured here, not
// compiled: its torch headers cost a minute on CI) lists no kernel source of its own and links
// those objects. Then a kernel edit: one compile of that kernel, and a rerun with nothing changed:
// no compile at all. Every case still agrees with the reference.

import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, appendFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildKernels } from '../runtime/kernels.js';
import { probeTorch } from '../runtime/testing/python-session.js';
import { trtIncludeDir } from '../runtime/testing/backends/trt/lifecycle.js';
import { fixtures, root } from './helpers/paths.js';
import { PYTHON, hasModule, testWith } from './helpers/python.js';
import type { Backend } from './helpers/run-tests.js';
import { describeFailures, prepare, runOpforgeTest, type Project } from './specspace/run.js';

const dir = path.join(root, 'build', 'compile-once');
const log = path.join(dir, 'compiles.log');
const OPS = ['channel_scale', 'max_pool2x2'];
let project: Project;

/** The kernel sources each logged invocation compiled (project-relative), one entry per compile. */
function compiled(): string[] {
  const lines = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [];
  return lines
    .flatMap((l) => {
      const args = l.split(' ');
      return args
        .filter((a, k) => /\.(cpp|cu)$/.test(a) && args[k - 1] !== '-o')
        .map((a) => path.relative(dir, path.resolve(a)))
        .filter((a) => a.startsWith('ops/kernels/'));
    })
    .sort();
}

const logText = (): string => (existsSync(log) ? readFileSync(log, 'utf8') : '');

test.before(() => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'ops', 'kernels'), { recursive: true });
  for (const op of OPS) {
    cpSync(path.join(fixtures, 'user-ops', 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_impl.h', '_ref.py']) {
      const f = path.join(fixtures, 'user-ops', 'ops', 'kernels', `${op}${ext}`);
      if (existsSync(f)) cpSync(f, path.join(dir, 'ops', 'kernels', `${op}${ext}`));
    }
  }
  const launcher = path.join(dir, 'launch');
  writeFileSync(launcher, '#!/bin/sh\nprintf \'%s\\n\' "$*" >> "$OPFORGE_COMPILE_LOG"\nexec "$@"\n');
  chmodSync(launcher, 0o755);
  const nvcc = spawnSync('sh', ['-c', 'command -v nvcc'], { encoding: 'utf8' }).stdout.trim();
  const nvccLogged = path.join(dir, 'nvcc');
  if (nvcc) {
    writeFileSync(nvccLogged, `#!/bin/sh\nprintf 'nvcc %s\\n' "$*" >> "$OPFORGE_COMPILE_LOG"\nexec ${nvcc} "$@"\n`);
    chmodSync(nvccLogged, 0o755);
  }
  // The builds run in child processes, which inherit these; CCACHE_DISABLE: a cache hit is no compile to count.
  Object.assign(process.env, {
    OPFORGE_COMPILE_LOG: log,
    CMAKE_CXX_COMPILER_LAUNCHER: launcher,
    CCACHE_DISABLE: '1',
    ...(nvcc ? { CUDACXX: nvccLogged } : {}),
  });
  project = prepare(dir);
});

test.after(() => {
  for (const k of ['OPFORGE_COMPILE_LOG', 'CMAKE_CXX_COMPILER_LAUNCHER', 'CCACHE_DISABLE', 'CUDACXX'])
    delete process.env[k];
});

testWith(
  ['torch'],
  'a cold opforge test compiles each kernel once for the Node addon, JAX, Paddle, ONNX Runtime and TensorRT; an edit recompiles that kernel once; no change compiles nothing',
  async () => {
    const trt = trtIncludeDir() !== undefined && !!process.env.CUDACXX;
    // The JAX and Paddle libraries (CMake, where jax and paddle are installed) link the same objects.
    const jax = hasModule('jax');
    const paddle = hasModule('paddle');
    const backends: Backend[] = [
      'node',
      ...(jax ? ['jax' as const] : []),
      ...(paddle ? ['paddle' as const] : []),
      'ort',
      'serialize',
      ...(trt ? ['trt' as const] : []),
    ];
    const cold = await runOpforgeTest(project, { backends });
    for (const r of cold.reports) assert.is(r.failures.length, 0, describeFailures(r));
    assert.equal(
      cold.report.backends.filter((b) => b !== 'jax-grad' && b !== 'paddle-grad').sort(),
      [
        'node',
        ...(jax ? ['jax'] : []),
        ...(paddle ? ['paddle', 'paddle-infer'] : []),
        'ort',
        'serialize',
        ...(trt ? ['trt'] : []),
      ].sort(),
    );
    // The CPU kernels once each; the CUDA kernels (no CUDA kernel build on the CPU) only by the
    // TensorRT driver, once each.
    const cpu = OPS.map((o) => `ops/kernels/${o}.cpp`);
    const cuda = trt ? OPS.map((o) => `ops/kernels/${o}.cu`) : [];
    assert.equal(compiled(), [...cpu, ...cuda].sort(), logText());

    rmSync(log, { force: true });
    appendFileSync(path.join(dir, 'ops', 'kernels', 'max_pool2x2.cpp'), '// edited\n');
    const edited = await runOpforgeTest(project, { backends });
    for (const r of edited.reports) assert.is(r.failures.length, 0, describeFailures(r));
    assert.equal(compiled(), ['ops/kernels/max_pool2x2.cpp'], logText());

    rmSync(log, { force: true });
    const again = await runOpforgeTest(project, { backends });
    assert.equal(again.report.results, edited.report.results);
    // (nvcc --version, asked when looking for nvcc, compiles nothing.)
    assert.equal(compiled(), [], logText());
    assert.not.ok(
      logText()
        .split('\n')
        .some((l) => /\.(cpp|cxx|cu)\b/.test(l)),
      logText(),
    );
  },
);

testWith(
  ['torch'],
  "the PyTorch extension's build links the shared kernel objects and compiles no kernel itself",
  async () => {
    const probe = await probeTorch(PYTHON);
    const kernels = await buildKernels({
      root: dir,
      outDir: project.outDir,
      buildDir: path.join(dir, 'build', 'kernels', 'cpu'),
      cuda: false,
      jobs: 2,
    });
    const b = path.join(dir, 'build', 'torch-configure');
    const r = spawnSync(
      'cmake',
      [
        '-S',
        path.join(project.outDir, 'torch'),
        '-B',
        b,
        `-DCMAKE_PREFIX_PATH=${probe.prefix}`,
        `-DPython3_EXECUTABLE=${PYTHON}`,
        `-DOPFORGE_PROJECT_ROOT=${dir}`,
        '-DCMAKE_BUILD_TYPE=Release',
        `-DOPFORGE_KERNELS=${kernels.manifest}`,
      ],
      { encoding: 'utf8' },
    );
    assert.is(r.status, 0, r.stdout + r.stderr);
    const units = (JSON.parse(readFileSync(path.join(b, 'compile_commands.json'), 'utf8')) as { file: string }[]).map(
      (e) => path.resolve(b, e.file),
    );
    assert.ok(
      units.some((f) => f.endsWith(path.join('torch', 'channel_scale.cpp'))),
      units.join('\n'),
    );
    assert.equal(
      units.filter((f) => f.includes(`${path.sep}ops${path.sep}kernels${path.sep}`)),
      [],
    );
    // The link line names every op's kernel object from the kernel build.
    const objects = [...kernels.objects.values()].flat();
    assert.is(objects.length, OPS.length);
    const link = spawnSync(
      'sh',
      ['-c', `grep -rl -- ${JSON.stringify(path.basename(objects[0]!))} ${JSON.stringify(path.join(b, 'CMakeFiles'))}`],
      { encoding: 'utf8' },
    );
    assert.ok(link.stdout.trim().length > 0, `no build rule of the extension names ${objects[0]}`);
  },
);

test.run();
