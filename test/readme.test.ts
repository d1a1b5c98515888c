// The README's quickstart, run as a new user would: `opforge new`, the README's blocks written
// over the stubs, check, gen, build, the Node snippet, `opforge run`, and the PyTorch/ONNX snippet.
// Each block the README marks `<!-- quickstart: PATH -->` is taken verbatim, so the README
// cannot drift from what works.

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PYTHON, hasModule, python, testWith } from './helpers/python.js';
import { root } from './helpers/paths.js';
import { quickstartBlocks } from './helpers/readme.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');

const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
const blocks = quickstartBlocks(readme);

test('the README marks the quickstart files', () => {
  assert.equal([...blocks.keys()].sort(), [
    'app.mjs',
    'export.py',
    'jax_app.py',
    'ops/kernels/my_scale.cpp',
    'ops/kernels/my_scale_ref.py',
    'ops/my_scale.yaml',
  ]);
  assert.equal(
    (readme.match(/<!-- quickstart: /g) ?? []).length,
    blocks.size,
    'every marker is followed by a fenced block',
  );
});

testWith(['torch'], 'the README quickstart works as written', () => {
  // A project like the user's checkout: its package.json (so `opforge/runtime` resolves to itself),
  // the installed packages and compiled generator, the schema; no ops yet.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-readme-'));
  try {
    cpSync(path.join(root, 'package.json'), path.join(dir, 'package.json'));
    symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    symlinkSync(path.join(root, 'dist'), path.join(dir, 'dist'));
    cpSync(path.join(root, 'schema'), path.join(dir, 'schema'), { recursive: true });
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
      assert.is(r.status, 0, `opforge ${args.join(' ')}:\n${r.stdout}${r.stderr}`);
      return r.stdout;
    };

    // 1. new, then the README's spec, reference and kernel over the stubs.
    run(['new', 'MyScale']);
    rmSync(path.join(dir, 'ops', 'kernels', 'my_scale.cu'));
    for (const [file, content] of blocks) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), content);
    }
    // 2-3. check and gen; the contract the README shows is the one generated.
    assert.match(run(['check']), /1 op\(s\) valid \(MyScale\)/);
    run(['gen']);
    const header = readFileSync(path.join(dir, 'out', 'include', 'opforge', 'ops', 'my_scale.h'), 'utf8').replaceAll(
      'opforge::float16',
      'float16',
    );
    const contract = readme.slice(readme.indexOf('It declares the kernel contract:'));
    for (const line of contract
      .split('\n')
      .filter((l) => l.trim().startsWith('Status cpu('))
      .slice(0, 2)) {
      assert.ok(header.includes(line.trim()), `generated header lacks: ${line.trim()}`);
    }
    // 5. Node: build, the snippet, `opforge run`.
    run(['build']);
    const { FORCE_COLOR: _, ...plain } = process.env; // uvu forces colour; the README shows plain output
    const app = spawnSync(process.execPath, ['app.mjs'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...plain, NO_COLOR: '1' },
    });
    assert.is(app.status, 0, app.stderr);
    assert.is(app.stdout.trim(), '[ 3 ] Float32Array(3) [ 3, -6, 1.5 ]');
    assert.match(run(['run', 'MyScale', '--input', 'x=4,8', '--attr', 'factor=3']), /MyScale on cpu/);
    // 6. PyTorch eager (the reference) and the ONNX export.
    const py = spawnSync(PYTHON, ['export.py'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PYTHONPATH: path.join(dir, 'out', 'python'), PYTHONDONTWRITEBYTECODE: '1' },
    });
    assert.is(py.status, 0, py.stderr);
    assert.is(py.stdout.trim(), 'tensor([ 3.0000, -6.0000,  1.5000])');
    const model = path.join(dir, 'my_scale.onnx');
    assert.ok(existsSync(model));
    const nodes = python(
      `import onnx, sys
m = onnx.load(sys.argv[1])
print([(n.domain, n.op_type, [(a.name, a.f) for a in n.attribute]) for n in m.graph.node])`,
      [model],
    );
    assert.is(nodes.trim(), "[('custom', 'MyScale', [('factor', 3.0)])]");
    // 9. JAX: the library built as the README says, the snippet with PYTHONPATH=out/jax.
    if (hasModule('jax')) {
      const cmake = (args: string[]) => {
        const r = spawnSync('cmake', args, { cwd: dir, encoding: 'utf8' });
        assert.is(r.status, 0, r.stdout + r.stderr);
      };
      cmake(['-S', 'out', '-B', 'build', '-DWITH_JAX=ON', `-DJAX_PYTHON=${PYTHON}`]);
      cmake(['--build', 'build', '--target', 'opforge_jax_ops']);
      const jx = spawnSync(PYTHON, ['jax_app.py'], {
        cwd: dir,
        encoding: 'utf8',
        env: {
          ...process.env,
          PYTHONPATH: path.join(dir, 'out', 'jax'),
          PYTHONDONTWRITEBYTECODE: '1',
          TF_CPP_MIN_LOG_LEVEL: '2',
        },
      });
      assert.is(jx.status, 0, jx.stderr);
      assert.equal(jx.stdout.trim().split('\n'), ['[ 3.  -6.   1.5]', '[  6. -12.   3.]', '[ 3.  -6.   1.5]']);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
