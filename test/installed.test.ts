// Installed, not cloned (issue 17): `npm pack` this repo, install the tarball into a fresh project
// outside the repo (npm hoists opforge's dependencies to the project's node_modules), then `opforge
// gen`, `opforge build` and the Node binding there, as a user would. Guards the runtime's tool
// lookups (runtime/resolve.ts), which once assumed <opforge>/node_modules/<dep>.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-installed-'));
const app = path.join(tmp, 'app');

// npm's lifecycle variables (when run under `npm test`) would point the inner npm at this repo.
const env: NodeJS.ProcessEnv = { ONNXRUNTIME_NODE_INSTALL: 'skip' };
for (const [k, v] of Object.entries(process.env)) {
  if (!k.startsWith('npm_') || /^npm_config_(cache|nodedir|registry|userconfig)$/.test(k)) env[k] ??= v;
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

test('the packed tarball installs into a fresh project, and gen, build and the Node binding work there', () => {
  // dist/ is built (this test runs from it), so skip `prepare`.
  must('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp], root);
  const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote no tarball');
  // What users need and nothing else (package.json `files`; README and package.json come anyway).
  const shipped = must('tar', ['-tzf', path.join(tmp, tarball)], tmp).split('\n').filter(Boolean).map((f) => f.replace(/^package\//, ''));
  for (const f of ['dist/generator/cli.js', 'dist/runtime/index.js', 'schema/op.schema.json', 'generator/cpp/opforge/core.h', 'generator/python/opforge_ops/_runtime.py', 'runtime/ort-session/session.cpp', 'README.md']) {
    assert.ok(shipped.includes(f), `the package lacks ${f}`);
  }
  assert.equal(shipped.filter((f) => /^(test|bench|ops|out|examples|scripts|dist\/test|dist\/bench)\//.test(f) || /\.ts$/.test(f) && !f.endsWith('.d.ts')), [], 'the package ships tests, benchmarks, seed ops, generated output or TypeScript sources');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), `${JSON.stringify({ name: 'app', private: true, type: 'module' }, null, 2)}\n`);
  const install = ['install', '--no-audit', '--no-fund', path.join(tmp, tarball)];
  if (!run('npm', [...install, '--offline', '--prefer-offline'], app).ok) must('npm', install, app);
  // Hoisted, as npm installs it: the lookups must not expect opforge's own node_modules.
  for (const dep of ['cmake-js', 'node-addon-api']) {
    assert.ok(existsSync(path.join(app, 'node_modules', dep, 'package.json')), `${dep} not hoisted`);
    assert.not.ok(existsSync(path.join(app, 'node_modules', 'opforge', 'node_modules', dep)), `${dep} nested under opforge`);
  }

  cpSync(path.join(root, 'test', 'fixtures', 'adapters', 'ops'), path.join(app, 'ops'), { recursive: true });
  must('npx', ['opforge', 'gen', '--quiet'], app);
  const built = must('npx', ['opforge', 'build', '--quiet'], app);
  assert.ok(existsSync(path.join(app, 'build', 'node', 'Release', 'opforge_node.node')), built);

  writeFileSync(path.join(app, 'app.mjs'), [
    "import { load } from 'opforge/runtime';",
    "import { bind } from './out/node/index.js';",
    'const ops = bind(load());',
    "const x = { dtype: 'float32', dims: [2, 4], data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]) };",
    'const { y } = ops.stridedScale(x, undefined, { stride: 2, scale: 0.5 });',
    'console.log(JSON.stringify({ dims: y.dims, data: [...y.data] }));',
    '',
  ].join('\n'));
  const r = run(process.execPath, ['app.mjs'], app);
  assert.ok(r.ok, r.out);
  // y[i, j] = x[i, 2j] * 0.5
  assert.equal(JSON.parse(r.out.trim().split('\n').at(-1)!), { dims: [2, 2], data: [0.5, 1.5, 2.5, 3.5] });

  // Without cmake-js, the error names the package to install.
  rmSync(path.join(app, 'node_modules', 'cmake-js'), { recursive: true });
  const missing = run('npx', ['opforge', 'build', '--quiet'], app);
  assert.not.ok(missing.ok, missing.out);
  assert.match(missing.out, 'opforge build needs the npm package cmake-js: npm install cmake-js');
});

test.run();
