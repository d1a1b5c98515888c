// Benchmarks are not timed tests: CI only runs them on tiny sizes to show they work.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { buildTorchExtension } from '../runtime/testing/backends/pytorch/build.js';
import { probeTorch } from '../runtime/testing/python-session.js';
import { outDir, root } from './helpers/paths.js';
import { PYTHON, testWith } from './helpers/python.js';
import { buildJaxLibrary } from '../runtime/testing/backends/jax/build.js';

test('generation benchmark runs (5 ops, 2 runs): cold, no-op, incremental and watch, each byte-identical to a cold run', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'gen.js'), '--ops', '5', '--runs', '2'], {
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| cold gen \(empty out\/\) \| \d+ ms/);
  assert.match(r.stdout, /one-op change \(incremental\) \| \d+ ms/);
  assert.match(r.stdout, /one-op change, 2 forward ops with gradient ops instead \| \d+ ms/);
  assert.match(r.stdout, /`gen --watch`: save to written files \| \d+ ms/);
  assert.match(
    r.stdout,
    /byte-identical across cold runs, and the incremental run's to a cold run of the edited specs: yes/,
  );
});

test('build-time benchmark runs (2 ops, the Node addon): cold, a kernel edit, a spec edit', () => {
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'dist', 'bench', 'build.js'), '--ops', '2', '--backends', 'node'],
    { encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| node addon \(opforge build\) \| 2 \| [\d.]+ s \| [\d.]+ s \| [\d.]+ s \|/);
});

test('incremental build benchmark: one touched kernel rebuilds one object', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'incremental.js')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /touch ops\/kernels\/knn_query\.cpp \| 1 \(knn_query\.cpp\.o\)/);
});

test('binding overhead benchmark runs (quick) against onnxruntime-node with identical results', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'binding.js'), '--quick'], {
    encoding: 'utf8',
  });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\| latency \| [\d.]+ µs \| [\d.]+ µs \|/);
});

testWith(['torch'], 'PyTorch call-path benchmark runs (quick) through the compiled extension', async () => {
  const torch = await probeTorch(PYTHON);
  assert.ok(torch.version, torch.why);
  const library = await buildTorchExtension({
    root,
    outDir,
    buildDir: path.join(root, 'build', 'torch'),
    prefix: torch.prefix!,
    python: PYTHON,
    cuda: false,
  });
  const r = spawnSync(
    PYTHON,
    [path.join(root, 'bench', 'python', 'torch_call.py'), '--library', library, '--calls', '300', '--repeat', '1'],
    {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') },
    },
  );
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /backend extension, Python entry yes/);
  assert.match(
    r.stdout,
    /\| custom_relu \| [\d.]+ \| [\d.]+ \| [\d.]+ \(torch\.relu\) \| [\d.]+ \| [\d.]+x \| [\d.]+x \| [\d.]+x \| [\d.]+x \|/,
  );
});

testWith(
  ['jax'],
  'JAX call-path benchmark runs (quick): opforge_jax under jit against jax.nn.relu, equal results',
  async () => {
    const library = await buildJaxLibrary({ root, outDir, buildDir: path.join(root, 'build', 'jax'), python: PYTHON });
    const r = spawnSync(
      PYTHON,
      [
        path.join(root, 'bench', 'python', 'jax_call.py'),
        '--package',
        path.join(outDir, 'jax'),
        '--library',
        library,
        '--calls',
        '200',
        '--repeat',
        '1',
      ],
      {
        encoding: 'utf8',
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', TF_CPP_MIN_LOG_LEVEL: '2' },
      },
    );
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /\| custom_relu \| [\d.]+ µs \| [\d.]+ µs \(jax\.nn\.relu\) \| [\d.]+x \| [\d.]+ µs \|/);
  },
);

test.run();
