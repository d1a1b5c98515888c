// The opforge command's gen and check, run as a user runs them (a Node process each): exit codes
// and located errors, the no-op fast path, the code cache, --out values that are refused, and
// out/CMakeLists.txt finding the kernels wherever --out puts out/ (CMake configures and builds it).
// The generator itself, in-process: test/unit/gen.test.ts.

import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../generator/output/gen.js';
import { listTree } from '../generator/output/write-out.js';
import { opsDir, root } from './helpers/paths.js';

const tmp = (): string => mkdtempSync(path.join(os.tmpdir(), 'opforge-gen-'));
const cli = path.join(root, 'dist', 'cli', 'opforge.js');
const run = (args: string[], cwd = root) =>
  spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });

function snapshot(dir: string): Map<string, string> {
  return new Map(listTree(dir).map((p) => [p, readFileSync(path.join(dir, p), 'utf8')]));
}

test('the no-op fast path notices edited outputs and changed specs', () => {
  const a = tmp();
  cpSync(opsDir, path.join(a, 'ops'), { recursive: true });
  const out = path.join(a, 'out');
  const gen = (): ReturnType<typeof run> => run(['gen', '--json', '--ops', path.join(a, 'ops'), '--out', out], a);
  assert.is(JSON.parse(gen().stdout).upToDate, false);
  assert.is(JSON.parse(gen().stdout).upToDate, true);
  const f = path.join(out, 'include/opforge/ops/my_add.h');
  const original = readFileSync(f, 'utf8');
  writeFileSync(f, `${original}// hand edit\n`);
  const r = JSON.parse(gen().stdout);
  assert.is(r.upToDate, false);
  assert.equal(r.written, ['include/opforge/ops/my_add.h']);
  assert.is(readFileSync(f, 'utf8'), original);
  const spec = path.join(a, 'ops', 'my_add.yaml');
  writeFileSync(spec, readFileSync(spec, 'utf8').replace('2 * a + b for', '2 * a + b, for'));
  assert.is(JSON.parse(gen().stdout).upToDate, false);
});

test('the command keeps a V8 code cache in the user cache dir: written once a gen generated, then used; output alike without it', async () => {
  const a = tmp();
  cpSync(opsDir, path.join(a, 'ops'), { recursive: true });
  const cache = path.join(a, 'xdg');
  const gen = (out: string, env: Record<string, string>): string => {
    const r = spawnSync(
      process.execPath,
      [cli, 'gen', '--json', '--ops', path.join(a, 'ops'), '--out', path.join(a, out)],
      { encoding: 'utf8', env: { ...process.env, XDG_CACHE_HOME: cache, ...env } },
    );
    assert.is(r.status, 0, r.stderr);
    return r.stdout;
  };
  gen('out', {});
  const files = (): string[] =>
    existsSync(path.join(cache, 'opforge')) ? readdirSync(path.join(cache, 'opforge')) : [];
  const { default: nodeModule } = await import('node:module');
  if ('enableCompileCache' in nodeModule) {
    // Node >= 22.1: Node's own compile cache, in the same place.
    assert.equal(files(), ['node']);
    assert.ok(readdirSync(path.join(cache, 'opforge', 'node')).length > 0);
    assert.match(gen('out', {}), '"upToDate":true');
  } else {
    const [file, ...rest] = files();
    assert.ok(file !== undefined && /^[0-9a-f]{16}-gen\.v8$/.test(file) && rest.length === 0, files().join());
    const before = statSync(path.join(cache, 'opforge', file!)).mtimeMs;
    assert.match(gen('out', {}), '"upToDate":true'); // loads it; a no-op adds nothing worth writing
    assert.is(statSync(path.join(cache, 'opforge', file!)).mtimeMs, before);
  }
  // Without the cache (Node's own switch): nothing written, and the same files.
  rmSync(cache, { recursive: true });
  gen('out2', { NODE_DISABLE_COMPILE_CACHE: '1' });
  assert.equal(files(), []);
  const x = snapshot(path.join(a, 'out'));
  const y = snapshot(path.join(a, 'out2'));
  assert.equal([...y.keys()], [...x.keys()]);
  for (const [p, c] of x) if (!p.startsWith('.opforge')) assert.ok(y.get(p) === c, p);
  // A cache dir that cannot be made runs without it (mkdirSync's recursive mode never returned on /proc).
  const r = spawnSync(process.execPath, [cli, 'check', '--quiet', '--ops', path.join(a, 'ops')], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, XDG_CACHE_HOME: '/proc/opforge-none' },
  });
  assert.is(r.status, 0, r.stderr);
});

test('invalid specs: exit 1, all errors reported, nothing written', () => {
  const a = tmp();
  cpSync(opsDir, path.join(a, 'ops'), { recursive: true });
  const out = path.join(a, 'out');
  generate({ opsDir: path.join(a, 'ops'), outDir: out });
  const before = snapshot(out);
  const spec = path.join(a, 'ops', 'my_add.yaml');
  writeFileSync(spec, readFileSync(spec, 'utf8').replace('dtype: T\n    shape: a', 'dtype: Q\n    shape: a'));
  const other = path.join(a, 'ops', 'knn_query.yaml');
  writeFileSync(other, readFileSync(other, 'utf8').replace('min: 1', 'min: one'));
  const r = run(['gen', '--ops', path.join(a, 'ops'), '--out', out], a);
  assert.is(r.status, 1, r.stderr);
  assert.match(r.stderr, /ops\/my_add\.yaml:\d+:\d+: inputs\[1\]\.dtype: unknown dtype or type variable `Q`/);
  assert.match(r.stderr, /ops\/knn_query\.yaml:\d+:\d+: attributes\[0\]\.min: expected number/);
  assert.match(r.stderr, /2 error\(s\); nothing written/);
  assert.equal(snapshot(out), before);
});

test('a huge spec file fails fast with a located error', () => {
  const a = tmp();
  mkdirSync(path.join(a, 'ops'));
  writeFileSync(path.join(a, 'ops', 'huge.yaml'), `name: Huge\ndescription: "${'x'.repeat(10 * 1024 * 1024)}"\n`);
  const t0 = performance.now();
  const r = run(['check', '--ops', path.join(a, 'ops')], a);
  assert.ok(performance.now() - t0 < 5000);
  assert.is(r.status, 1);
  assert.match(r.stderr, /huge\.yaml:1:1: \(file\): file is \d+ bytes; specs are limited to/);
});

test('CLI: usage errors exit 2, check exits 0 and writes nothing, --json', () => {
  assert.is(run(['frobnicate']).status, 2);
  assert.is(run(['gen', '--bogus']).status, 2);
  const a = tmp();
  const r = run(['check', '--ops', opsDir, '--json'], a);
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).ops.length, 9);
  assert.not.ok(existsSync(path.join(a, 'out')));
  assert.is(run(['gen', '--ops', opsDir, '--out', path.join(a, 'o'), '--only', 'Nope'], a).status, 2);
});

test('--out holding the ops dir, the project root or a kernel is refused (exit 2): out/ is replaced whole, it would delete them', () => {
  const project = path.join(tmp(), 'p');
  cpSync(opsDir, path.join(project, 'specs'), { recursive: true });
  const before = snapshot(project);
  for (const [out, what] of [
    ['specs', 'the ops directory'],
    ['.', 'the project root'],
    ['..', 'the project root'],
    ['specs/kernels', 'the kernel specs/kernels/'],
  ] as const) {
    const r = run(['gen', '--ops', 'specs', '--out', out], project);
    assert.is(r.status, 2, `--out ${out}: ${r.stdout}${r.stderr}`);
    assert.ok(r.stderr.includes(`--out ${out} holds ${what}`), r.stderr);
    assert.equal(snapshot(project), before, `--out ${out} changed the project`);
  }
  assert.is(run(['gen', '--quiet', '--ops', 'specs', '--out', 'specs/out'], project).status, 0);
  for (const [p, content] of before) assert.is(readFileSync(path.join(project, p), 'utf8'), content, p);
});

test('CMake finds the kernels wherever --out puts the output: inside the ops dir, beside it, outside the project (paths with spaces and $)', () => {
  const base = tmp();
  const project = path.join(base, 'my project');
  const specs = path.join(project, 'specs');
  mkdirSync(path.join(specs, 'k $dir'), { recursive: true });
  writeFileSync(
    path.join(specs, 'scale.yaml'),
    [
      'name: Scale',
      'version: 1',
      'inputs: [{ name: x, dtype: float32 }]',
      'outputs: [{ name: y, dtype: float32, shape: x }]',
      'attributes: [{ name: s, type: float, default: 2.0 }]',
      "kernels: { cpu: 'k $dir/scale.cpp' }",
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(specs, 'k $dir', 'scale.cpp'),
    [
      '#include "opforge/ops/scale.h"',
      'namespace opforge { namespace ops { namespace scale {',
      'Status cpu(const Attrs& attrs, const State&, const Io& io, const CpuContext&) {',
      '  for (int64_t i = 0; i < io.x.numel(); ++i) io.y.data[i] = io.x.data[i] * attrs.s;',
      '  return Status::Ok();',
      '}',
      '}}}',
      '',
    ].join('\n'),
  );
  const layouts: [string, string, string][] = [
    // [name, --out as given (cwd = project), root as out/CMakeLists.txt finds it]
    ['inside the ops dir', 'specs/out', '../..'],
    ['beside the ops dir', 'out', '..'],
    ['outside the project', path.join(base, 'elsewhere', 'gen'), '../../my project'],
  ];
  for (const [name, out, rel] of layouts) {
    const r = run(['gen', '--quiet', '--ops', 'specs', '--out', out], project);
    assert.is(r.status, 0, `${name}: ${r.stderr}`);
    const outAbs = path.resolve(project, out);
    const cmake = readFileSync(path.join(outAbs, 'CMakeLists.txt'), 'utf8');
    assert.ok(
      cmake.includes(`set(OPFORGE_PROJECT_ROOT "\${CMAKE_CURRENT_SOURCE_DIR}/${rel}" CACHE PATH`),
      `${name}: ${cmake.split('\n').find((l) => l.includes('OPFORGE_PROJECT_ROOT "'))}`,
    );
    assert.ok(cmake.includes('opforge_add_op(scale CPU "specs/k \\$dir/scale.cpp")'), name);
    const build = path.join(base, 'build', name.replace(/ /g, '-'));
    for (const args of [
      ['-S', outAbs, '-B', build],
      ['--build', build, '-j2'],
    ]) {
      const c = spawnSync('cmake', args, { encoding: 'utf8' });
      assert.is(c.status, 0, `${name}: cmake ${args.join(' ')}:\n${c.stdout}\n${c.stderr}`);
    }
    // The kernel object was compiled from the project's file (and nothing else was needed).
    const objects = listTree(build).filter((p) => p.endsWith('scale.cpp.o'));
    assert.is(objects.length, 1, `${name}: ${objects.join(', ')}`);
  }
});

test.run();
