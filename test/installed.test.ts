// Installed, not cloned: `npm pack` this repo, install the tarball into a fresh project
// outside the repo (npm hoists opforge's dependencies to the project's node_modules), then the
// README quickstart there as a user follows it: new, edit (the README's blocks), check, gen, build,
// run, test, the Node snippet, the PyTorch eager call and the ONNX export; README's "Ship it" (the
// wheel, and a namespaced project's beside it, run from a fresh venv with no compiler); then a wrong kernel that
// `opforge test` must catch, and a missing tool that must be named. Guards the runtime's tool
// lookups (runtime/resolve.ts), which once assumed <opforge>/node_modules/<dep>.

import {
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
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../generator/model/project.js';
import { root } from './helpers/paths.js';
import { PYTHON, hasModule, hasPaddle, testWith } from './helpers/python.js';
import { markedBlocks, quickstartBlocks } from './helpers/readme.js';
import { caseInputs, mismatch, reference, type T } from './helpers/references.js';
import { planSpec, type SpecPlan } from './specspace/plan.js';
import { renderSpec } from './specspace/render.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-installed-'));
const app = path.join(tmp, 'app');

// npm's lifecycle variables (when run under `npm test`) would point the inner npm at this repo.
// torch is Debian's, in /usr/bin/python3 (a user's python3 would have it).
const env: NodeJS.ProcessEnv = { ONNXRUNTIME_NODE_INSTALL: 'skip', OPFORGE_PYTHON: PYTHON };
for (const [k, v] of Object.entries(process.env)) {
  if (!k.startsWith('npm_') || /^npm_config_(cache|nodedir|registry|userconfig)$/.test(k)) env[k] ??= v;
}

/** The Python entry `opforge test` built beside the extension in dir (its name carries Python's ABI tag). */
function entryFile(dir: string): string {
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => /^opforge_torch_py\..*\.so$/.test(f)) : [];
  assert.is(found.length, 1, `one opforge_torch_py module in ${dir}: ${found.join(', ')}`);
  return path.join(dir, found[0]!);
}

function run(cmd: string, args: string[], cwd: string): { ok: boolean; out: string } {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 << 20 });
  return { ok: r.status === 0, out: `$ ${cmd} ${args.join(' ')} (exit ${r.status})\n${r.stdout}${r.stderr}` };
}

function must(cmd: string, args: string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  assert.ok(r.ok, r.out);
  return r.out;
}

test.after(() => rmSync(tmp, { recursive: true, force: true }));

/** `npm pack` this repo into tmp; the tarball's path, after checking it ships what users need and nothing else. */
function packTarball(): string {
  // dist/ is built (this test runs from it), so skip `prepare`.
  must('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], root);
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote no tarball');
  // What users need and nothing else (package.json `files`; README and package.json come anyway).
  const shipped = must('tar', ['-tzf', path.join(tmp, tarball)], tmp)
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  for (const f of [
    'dist/cli/opforge.js',
    'dist/generator/cli/cli.js',
    'dist/runtime/index.js',
    'schema/op.schema.json',
    'generator/static/cpp/opforge/core.h',
    'generator/static/python/opforge_ops/_runtime.py',
    'runtime/ort-session/session.cpp',
    'README.md',
  ]) {
    assert.ok(shipped.includes(f), `the package lacks ${f}`);
  }
  assert.equal(
    shipped.filter(
      (f) =>
        /^(test|bench|ops|out|examples|scripts|dist\/test|dist\/bench)\//.test(f) ||
        (/\.ts$/.test(f) && !f.endsWith('.d.ts')),
    ),
    [],
    'the package ships tests, benchmarks, seed ops, generated output or TypeScript sources',
  );
  return path.join(tmp, tarball);
}

/** Installs the tarball into a fresh project, app, and checks npm hoisted opforge's dependencies. */
function installInApp(tarball: string): void {
  mkdirSync(app);
  writeFileSync(
    path.join(app, 'package.json'),
    `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`,
  );
  const install = ['install', '--no-audit', '--no-fund', tarball];
  if (!run('npm', [...install, '--offline', '--prefer-offline'], app).ok) must('npm', install, app);
  // Hoisted, as npm installs it: the lookups must not expect opforge's own node_modules.
  for (const dep of ['cmake-js', 'node-addon-api']) {
    assert.ok(existsSync(path.join(app, 'node_modules', dep, 'package.json')), `${dep} not hoisted`);
    assert.not.ok(
      existsSync(path.join(app, 'node_modules', 'opforge', 'node_modules', dep)),
      `${dep} nested under opforge`,
    );
  }
}

/**
 * The README quickstart up to `opforge run`, block by block, as a user who installed the tarball
 * follows it, with spec-space seed 3 beside MyScale; returns that seed's plan.
 */
function followQuickstart(): SpecPlan {
  const blocks = quickstartBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'));
  // onnxruntime-node and the ORT headers are optional peers a user installs for the ORT backend;
  // linked from this repo's install (a copy would be 670 MB), found by the same module resolution.
  for (const dep of ['onnxruntime-node', 'com.github.asus4.onnxruntime'])
    symlinkSync(path.join(root, 'node_modules', dep), path.join(app, 'node_modules', dep), 'dir');
  must('npx', ['opforge', 'new', 'MyScale'], app);
  rmSync(path.join(app, 'ops', 'kernels', 'my_scale.cu'));
  for (const [file, content] of blocks) {
    mkdirSync(path.dirname(path.join(app, file)), { recursive: true });
    writeFileSync(path.join(app, file), content);
  }
  // Beside it, an op as a user writes one with a `snake:` override (spec-space seed 3: named3_op),
  // so every backend of the installed package runs an overridden name.
  const seed = planSpec(3);
  assert.is(seed.snake, 'named3_op');
  for (const [rel, text] of Object.entries(renderSpec(seed).files)) writeFileSync(path.join(app, 'ops', rel), text);
  assert.match(
    must('npx', ['opforge', 'check'], app),
    new RegExp(`2 op\\(s\\) valid \\((MyScale, ${seed.name}|${seed.name}, MyScale)\\)`),
  );
  must('npx', ['opforge', 'gen'], app);
  must('npx', ['opforge', 'build'], app);
  assert.ok(existsSync(path.join(app, 'build', 'node', 'Release', 'opforge_node.node')));
  assert.match(
    must('npx', ['opforge', 'run', 'MyScale', '--input', 'x=4,8', '--attr', 'factor=3'], app),
    /MyScale on cpu/,
  );
  return seed;
}

/** `opforge test` in app: every column this machine can run, and every one agrees, for MyScale and the seed op. */
function opforgeTestPasses(seed: SpecPlan): void {
  const tested = must('npx', ['opforge', 'test'], app);
  // MyScale has no backward: the grad column checks that a gradient through it raises. The
  // dynamo export runs on torch >= 2.5 (the venv's torch; Debian's 1.13 skips it by name).
  // Paddle's columns run where paddle is installed (the test venv: the packed project runs them too).
  // JAX's columns too where jax is installed (jax-grad: MyScale has no backward, so it raises).
  assert.ok(
    /^op\s+torch\s+grad\s+node\s+(paddle\s+paddle-infer\s+)?(jax\s+jax-grad\s+)?ort\s+ort-legacy\s+(ort-dynamo\s+)?serialize$/m.test(
      tested,
    ),
    tested,
  );
  assert.ok(
    /^MyScale\s+ok 1 0\s+raises 1\s+ok 1 0\s+(ok 1 0\s+ok 1 0\s+)?(ok 1 0\s+raises 1\s+)?ok 1 0\s+ok 1 0\s+(ok 1 0\s+)?ok 1 0$/m.test(
      tested,
    ),
    tested,
  );
  if (hasPaddle) assert.match(tested, /^op\s+torch\s+grad\s+node\s+paddle\s+paddle-infer\s/m);
  if (hasModule('jax'))
    assert.match(tested, /^op\s+torch\s+grad\s+node\s+(paddle\s+paddle-infer\s+)?jax\s+jax-grad\s/m);
  const seedRow = tested.split('\n').find((l) => l.startsWith(`${seed.name} `));
  assert.ok(seedRow && !/FAIL|not run/.test(seedRow) && /ok \d/.test(seedRow), tested);
  assert.ok(existsSync(path.join(app, 'out', 'include', 'opforge', 'ops', 'named3_op.h')));
}

/** The README's Node snippet, PyTorch eager call and ONNX export in app, and what opforge_ops loaded for them. */
function readmeSnippetsRun(seed: SpecPlan): void {
  const { FORCE_COLOR: _, ...plain } = env; // uvu forces colour; the README shows plain output
  const node = spawnSync(process.execPath, ['app.mjs'], {
    cwd: app,
    encoding: 'utf8',
    env: { ...plain, NO_COLOR: '1' },
  });
  assert.is(node.status, 0, node.stderr);
  assert.is(node.stdout.trim(), '[ 3 ] Float32Array(3) [ 3, -6, 1.5 ]');
  // PyTorch eager and the ONNX export; `opforge test` built build/torch, which opforge_ops now loads.
  const pyEnv = { ...env, PYTHONPATH: path.join(app, 'out', 'python'), PYTHONDONTWRITEBYTECODE: '1' };
  const py = spawnSync(PYTHON, ['export.py'], { cwd: app, encoding: 'utf8', env: pyEnv });
  assert.is(py.status, 0, py.stderr);
  assert.is(py.stdout.trim(), 'tensor([ 3.0000, -6.0000,  1.5000])');
  const info = spawnSync(
    PYTHON,
    [
      '-c',
      `import onnx, opforge_ops
m = onnx.load("my_scale.onnx")
print([(n.domain, n.op_type, [(a.name, a.f) for a in n.attribute]) for n in m.graph.node])
print(opforge_ops.backend("MyScale"), opforge_ops.extension_path())
print(opforge_ops.entry_path())
print(opforge_ops.named3_op.__name__, opforge_ops.backend("${seed.name}"))`,
    ],
    { cwd: app, encoding: 'utf8', env: pyEnv },
  );
  assert.is(info.status, 0, info.stderr);
  assert.equal(info.stdout.trim().split('\n'), [
    "[('custom', 'MyScale', [('factor', 3.0)])]",
    `extension ${path.join(app, 'build', 'torch', 'libopforge_torch.so')}`,
    entryFile(path.join(app, 'build', 'torch')),
    'named3_op extension',
  ]);
}

/** The platform-tagged wheel in dir (one). */
function wheelIn(dir: string): string {
  const found = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.whl')) : [];
  assert.is(found.length, 1, `one wheel in ${dir}: ${found.join(', ')}`);
  assert.match(found[0]!, /-cp3\d+-cp3\d+-manylinux_2_\d+_x86_64\.whl$/, 'a manylinux tag (auditwheel)');
  return path.join(dir, found[0]!);
}

/**
 * README's "Ship it" in app (the wheel of MyScale and the seed op), and beside it the seed ops as
 * another project with its own namespace (acme_ops) whose wheel has the JAX and Paddle packages
 * where this Python has them. Both go into one fresh venv, and run where PATH holds the venv alone:
 * no compiler, no cmake, no Node, no opforge. Every spec case agrees with its reference, forward and
 * gradient, in each package; a wheel under another torch than its own refuses to load, naming both.
 */
function shipWheels(): void {
  const ship = markedBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'), 'ship');
  const build = ship.get('build');
  const install = ship.get('install');
  assert.ok(build && install, 'README has the ship: build and ship: install blocks');
  // The test builds in unity batches without the precompiled header: a cold build of few units.
  const buildEnv = { ...env, CMAKE_ARGS: '-DOPFORGE_UNITY_BATCH=16 -DOPFORGE_TORCH_PCH=OFF' };
  const r = spawnSync('bash', ['-euo', 'pipefail', '-c', build], { cwd: app, env: buildEnv, encoding: 'utf8' });
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
  const appWheel = wheelIn(path.join(app, 'packages'));
  assert.match(path.basename(appWheel), /^opforge_ops-0\.0\.0-/);

  const seeds = path.join(tmp, 'seeds');
  cpSync(path.join(root, 'ops'), path.join(seeds, 'ops'), { recursive: true });
  writeFileSync(
    path.join(seeds, 'package.json'),
    JSON.stringify({ name: 'seeds', version: '1.2.0-rc.1', opforge: { namespace: 'acme_ops' } }),
  );
  const frameworks = [...(hasModule('jax') ? ['--jax'] : []), ...(hasPaddle ? ['--paddle'] : [])];
  const cli = path.join(app, 'node_modules', 'opforge', 'dist', 'cli', 'opforge.js');
  const packaged = spawnSync(process.execPath, [cli, 'package', ...frameworks], {
    cwd: seeds,
    env: buildEnv,
    encoding: 'utf8',
  });
  assert.is(packaged.status, 0, `${packaged.stdout}${packaged.stderr}`);
  const seedWheel = wheelIn(path.join(seeds, 'packages'));
  assert.match(path.basename(seedWheel), /^acme_ops-1\.2\.0rc1-/);

  // A fresh venv that sees the frameworks of the test's Python (torch, jax, paddle) and nothing else.
  const venv = path.join(tmp, 'venv');
  must(PYTHON, ['-m', 'venv', venv], tmp);
  const vpy = path.join(venv, 'bin', 'python');
  const purelib = (py: string): string =>
    must(py, ['-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])'], tmp)
      .split('\n')
      .slice(1)
      .join('')
      .trim();
  writeFileSync(path.join(purelib(vpy), 'frameworks.pth'), `${purelib(PYTHON)}\n`);
  const bare: NodeJS.ProcessEnv = {
    PATH: path.join(venv, 'bin'),
    HOME: tmp,
    LANG: 'C.UTF-8',
    PIP_NO_INDEX: '1',
    PIP_DISABLE_PIP_VERSION_CHECK: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const inVenv = (cmd: string, args: string[], cwd: string) =>
    spawnSync(cmd, args, { cwd, env: bare, encoding: 'utf8' });
  const tools = inVenv(
    '/bin/sh',
    ['-c', 'command -v g++ || command -v c++ || command -v cmake || command -v node'],
    tmp,
  );
  assert.is.not(tools.status, 0, `on the venv's PATH: ${tools.stdout}`);

  const installed = inVenv('/bin/bash', ['-euo', 'pipefail', '-c', install], app);
  assert.is(installed.status, 0, `${installed.stdout}${installed.stderr}`);
  assert.is(installed.stdout.trim().split('\n').pop(), 'tensor([ 3., -6.])');
  const second = inVenv(path.join(venv, 'bin', 'pip'), ['install', '--no-deps', seedWheel], tmp);
  assert.is(second.status, 0, `${second.stdout}${second.stderr}`);

  const args = [path.join(root, 'test', 'fixtures', 'wheel', 'check_installed.py'), 'opforge_ops', 'acme_ops'];
  if (hasModule('jax')) args.push('--jax', 'acme_ops_jax=acme_ops');
  if (hasPaddle) args.push('--paddle', 'acme_ops_paddle=acme_ops');
  const checked = inVenv(vpy, args, tmp);
  assert.is(checked.status, 0, `${checked.stdout}${checked.stderr}`);
  for (const line of [
    /^opforge_ops 0\.0\.0: .*\/venv\/.*\/opforge_ops\/libopforge_torch\.so$/m,
    /^ {2}my_scale: 1 case\(s\) agree, 0 gradient\(s\)$/m,
    /^ {2}named3_op: \d+ case\(s\) agree/m,
    /^acme_ops 1\.2\.0rc1: .*\/acme_ops\/libacme_ops_torch\.so$/m,
    /^ {2}leaky_relu: 3 case\(s\) agree, [1-9] gradient\(s\)$/m,
    ...(hasModule('jax') ? [/^ {2}acme_ops_jax\.leaky_relu: 3 case\(s\) agree, [1-9] gradient\(s\)$/m] : []),
    ...(hasPaddle ? [/^ {2}acme_ops_paddle\.leaky_relu: 3 case\(s\) agree, [1-9] gradient\(s\)$/m] : []),
    /^ok$/m,
  ])
    assert.match(checked.stdout, line);

  // Under another torch: the wheel's record says which it was built against.
  const info = path.join(purelib(vpy), 'acme_ops', '_build_info.py');
  writeFileSync(info, readFileSync(info, 'utf8').replace(/^TORCH_VERSION = .*$/m, 'TORCH_VERSION = "1.0.0+cpu"'));
  const refused = inVenv(vpy, ['-c', 'import acme_ops'], tmp);
  assert.is.not(refused.status, 0);
  assert.match(
    refused.stderr,
    /ImportError: acme_ops 1\.2\.0rc1 was built against torch 1\.0\.0\+cpu, but torch \S+ is running: install torch==1\.0\.0, or build the wheel again/,
  );
  // And the Paddle op library under another Paddle.
  if (hasPaddle) {
    const paddleInfo = path.join(purelib(vpy), 'acme_ops_paddle', '_build_info.py');
    writeFileSync(
      paddleInfo,
      readFileSync(paddleInfo, 'utf8').replace(/^PADDLE_VERSION = .*$/m, 'PADDLE_VERSION = "2.0.0"'),
    );
    const other = inVenv(vpy, ['-c', 'import acme_ops_paddle; acme_ops_paddle.load()'], tmp);
    assert.is.not(other.status, 0);
    assert.match(
      other.stderr,
      /ImportError: acme_ops_paddle: its op library was built against paddlepaddle 2\.0\.0, but paddle \S+ is running: install paddlepaddle==2\.0\.0/,
    );
  }
}

/**
 * README's npm steps: `opforge package npm` in app, the tarball installed into a fresh project
 * beside it (consumer/), whose README script runs with only node on PATH (no compiler, no opforge),
 * and whose TypeScript compiles against the package's types under --strict (a wrong attribute
 * type refused).
 */
function shipNpm(): void {
  const ship = markedBlocks(readFileSync(path.join(root, 'README.md'), 'utf8'), 'ship');
  const build = ship.get('npm-build');
  const install = ship.get('npm-install');
  const script = ship.get('consumer.mjs');
  assert.ok(build && install && script, 'README has the ship: npm-build, npm-install and consumer.mjs blocks');
  must('bash', ['-euo', 'pipefail', '-c', build], app);
  const tarball = path.join(app, 'packages', 'opforge_ops-0.0.0.tgz');
  const shipped = must('tar', ['-tzf', tarball], tmp);
  for (const f of [
    'main.js',
    'main.d.ts',
    'index.js',
    'index.d.ts',
    'runtime.js',
    'prebuilds/linux-x64/opforge_ops.napi.node',
  ])
    assert.ok(shipped.includes(`package/${f}\n`), `the npm package lacks ${f}: ${shipped}`);

  const consumer = path.join(tmp, 'consumer');
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
  );
  // node-gyp-build, the package's one dependency, from npm's cache when it has it.
  const offline = install.replace(/^npm install /m, 'npm install --offline --no-audit --no-fund ');
  if (!run('bash', ['-euo', 'pipefail', '-c', offline], consumer).ok)
    must('bash', ['-euo', 'pipefail', '-c', install], consumer);
  writeFileSync(path.join(consumer, 'consumer.mjs'), script);
  const nodeOnly = path.join(tmp, 'node-only');
  mkdirSync(nodeOnly);
  symlinkSync(process.execPath, path.join(nodeOnly, 'node'));
  const bare = { PATH: nodeOnly, HOME: tmp, NO_COLOR: '1' };
  const ran = spawnSync(path.join(nodeOnly, 'node'), ['consumer.mjs'], { cwd: consumer, env: bare, encoding: 'utf8' });
  assert.is(ran.status, 0, ran.stderr);
  assert.is(ran.stdout.trim(), 'Float32Array(3) [ 3, -6, 1.5 ]');
  // The seed op beside MyScale runs from the package too, as it does from the project's own build.
  const both = `import { ops as shipped } from 'opforge_ops';
import { bind } from '${pathToFileURL(path.join(app, 'out', 'node', 'index.js')).href}';
import { load } from '${pathToFileURL(path.join(app, 'node_modules', 'opforge', 'dist', 'runtime', 'index.js')).href}';
const local = bind(load('${path.join(app, 'build', 'node')}'));
const names = Object.keys(local).sort();
console.log(JSON.stringify(names) === JSON.stringify(Object.keys(shipped).sort()));
`;
  writeFileSync(path.join(consumer, 'both.mjs'), both);
  const same = spawnSync(path.join(nodeOnly, 'node'), ['both.mjs'], { cwd: consumer, env: bare, encoding: 'utf8' });
  assert.is(same.status, 0, same.stderr);
  assert.is(same.stdout.trim(), 'true');

  writeFileSync(
    path.join(consumer, 'typed.ts'),
    `import { ops, type Tensor } from 'opforge_ops';
const x: Tensor<'float32'> = { dtype: 'float32', dims: [2], data: new Float32Array([1, 2]) };
const { y } = ops.myScale(x, { factor: 2 });
const n: number = y.dims[0]!;
// @ts-expect-error factor is a number
ops.myScale(x, { factor: 'two' });
export { n };
`,
  );
  must(
    process.execPath,
    [
      path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
      '--strict',
      '--noEmit',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      'typed.ts',
    ],
    consumer,
  );
}

/**
 * The seed ops' npm package (the namespaced project shipWheels made) beside app's in the same
 * consumer project: two op sets installed side by side, and every seed op's spec case from the
 * installed package agrees with the TypeScript reference (test/helpers/references.ts).
 */
async function seedNpmPackageAgrees(): Promise<void> {
  const seeds = path.join(tmp, 'seeds');
  const cli = path.join(app, 'node_modules', 'opforge', 'dist', 'cli', 'opforge.js');
  must(process.execPath, [cli, 'package', 'npm', '--quiet'], seeds);
  const consumer = path.join(tmp, 'consumer');
  const tarball = path.join(seeds, 'packages', 'acme_ops-1.2.0-rc.1.tgz');
  const install = ['install', '--no-audit', '--no-fund', tarball];
  if (!run('npm', [...install, '--offline'], consumer).ok) must('npm', install, consumer);
  const installed = path.join(consumer, 'node_modules', 'acme_ops', 'main.js');
  const { ops } = (await import(pathToFileURL(installed).href)) as {
    ops: Record<string, (...a: unknown[]) => Record<string, T>>;
  };
  const project = loadProject({ opsDir: path.join(seeds, 'ops') });
  let cases = 0;
  for (const op of project.ops)
    for (const t of op.tests) {
      const { args, ins } = caseInputs(op, t);
      const bad = mismatch(op, t, ops[op.ident.camel]!(...args, t.attributes), reference(op, ins, t.attributes));
      assert.not.ok(bad, bad);
      cases++;
    }
  assert.ok(cases >= 27, `${cases} cases`);
  // app's package still loads beside it.
  const { FORCE_COLOR: _, ...plain } = process.env; // uvu forces colour; the README shows plain output
  const both = spawnSync(process.execPath, ['consumer.mjs'], {
    cwd: consumer,
    encoding: 'utf8',
    env: { ...plain, NO_COLOR: '1' },
  });
  assert.is(both.stdout.trim(), 'Float32Array(3) [ 3, -6, 1.5 ]', both.stderr);
}

/** A kernel off by one in the attribute: `opforge test` fails, naming the op, case and backends. */
function wrongKernelCaught(): void {
  const kernel = path.join(app, 'ops', 'kernels', 'my_scale.cpp');
  writeFileSync(
    kernel,
    readFileSync(kernel, 'utf8').replace(
      'toCompute(io.x.data[i]) * factor',
      'toCompute(io.x.data[i]) * (factor + C(1))',
    ),
  );
  const wrong = run('npx', ['opforge', 'test', '--backend', 'node,ort'], app);
  assert.not.ok(wrong.ok, wrong.out);
  assert.ok(/MyScale case 0 \[node\]: output y\[0\] = .*, expected/.test(wrong.out), wrong.out);
  assert.match(wrong.out, /MyScale case 0 \[ort\]: output y\[0\] = .*, expected/);
}

/** Without cmake-js, the error names the package to install. */
function missingToolNamed(): void {
  rmSync(path.join(app, 'node_modules', 'cmake-js'), { recursive: true });
  const missing = run('npx', ['opforge', 'build', '--quiet'], app);
  assert.not.ok(missing.ok, missing.out);
  assert.match(missing.out, 'opforge build needs the npm package cmake-js: npm install cmake-js');
}

// One test, in steps that each need the one before: the install, the quickstart's build, then
// what `opforge test` built (the Python snippets load it), then the breakages (last: they leave app broken).
testWith(
  ['torch'],
  'the packed tarball installs into a fresh project, and the README quickstart works there, opforge test included',
  async () => {
    installInApp(packTarball());
    const seed = followQuickstart();
    opforgeTestPasses(seed);
    readmeSnippetsRun(seed);
    shipWheels();
    shipNpm();
    await seedNpmPackageAgrees();
    wrongKernelCaught();
    missingToolNamed();
  },
);

test.run();
