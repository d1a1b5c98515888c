// Paddle for real (the pip wheel in the test venv): the generated PD_BUILD_OP / PD_BUILD_GRAD_OP
// code built with Paddle's JIT loader, through `opforge test`'s paddle, paddle-grad and
// paddle-infer columns; a deliberately wrong InferShape is caught; wrong calls from Paddle raise
// errors naming the op. Without paddle the columns are skipped with the reason and the install
// command (checked too). The spec-space corpus and the user-ops fixture run these columns in
// specspace.test.ts and user-ops.test.ts.

import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTests } from '../runtime/testing/run.js';
import { runPaddle } from '../runtime/testing/paddle.js';
import { loadProject } from '../generator/project.js';
import { root } from './helpers/paths.js';
import { PYTHON } from './helpers/python.js';

const paddle = spawnSync(PYTHON, ['-c', 'import paddle; print(paddle.__version__)'], { encoding: 'utf8' }).stdout?.trim() ?? '';

/** A project holding copies of seed ops (spec and kernels). */
function seedProject(ops: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-paddle-'));
  for (const op of ops) {
    cpSync(path.join(root, 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_ref.py']) cpSync(path.join(root, 'ops', 'kernels', `${op}${ext}`), path.join(dir, 'ops', 'kernels', `${op}${ext}`));
  }
  return dir;
}

test('without paddle the columns are skipped, with the reason and the install command', async () => {
  // A Python with neither torch nor paddle: a bare venv.
  const venv = mkdtempSync(path.join(os.tmpdir(), 'opforge-bare-'));
  assert.is(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status, 0);
  const dir = seedProject(['my_add', 'my_add_grad']);
  const r = await runTests({ root: dir, backends: ['paddle'], python: path.join(venv, 'bin', 'python') });
  assert.ok(r.ok);
  for (const b of ['paddle', 'paddle-grad', 'paddle-infer']) assert.match(r.skipped[b] ?? '', /paddle is not importable by .* \(install: pip install paddlepaddle==\d/);
});

if (paddle) {
  test(`seed ops on Paddle ${paddle}: paddle, paddle-grad and paddle-infer agree on every case`, async () => {
    const r = await runTests({ root, backends: ['paddle'], python: PYTHON, buildDir: path.join(root, 'build', 'paddle-run') });
    assert.ok(r.ok, JSON.stringify(r.results.filter((x) => x.status === 'fail')));
    // LeakyRelu's Paddle type is leaky_relu, one of Paddle's own ops: skipped by name.
    const project = loadProject({ opsDir: path.join(root, 'ops'), root });
    const keys = (ops: typeof project.ops) => ops.flatMap((op) => op.tests.map((t) => `${op.name}#${t.index}`)).sort();
    const runs = project.ops.filter((op) => op.name !== 'LeakyRelu');
    const ok = (b: string) => r.results.filter((x) => x.backend === b && x.status === 'ok').map((x) => `${x.op}#${x.case}`).sort();
    assert.equal(ok('paddle'), keys(runs));
    assert.equal(ok('paddle-infer'), keys(runs));
    assert.equal(ok('paddle-grad'), keys(runs.filter((op) => op.backward)));
    assert.ok(r.results.filter((x) => x.op === 'LeakyRelu' && x.backend === 'paddle').every((x) => x.status === 'skip' && /Paddle has a built-in op leaky_relu/.test(x.message ?? '')));
    assert.ok(r.results.filter((x) => x.backend === 'paddle' && x.status === 'ok').every((x) => x.compared === 'reference'));
    assert.is(r.env.paddle, paddle);
  });

  test('a deliberately wrong InferShape is caught by paddle-infer, naming the op, output and dims', async () => {
    const dir = seedProject(['my_add', 'my_add_grad']);
    const first = await runTests({ root: dir, backends: ['paddle'], python: PYTHON });
    assert.ok(first.ok, JSON.stringify(first.results.filter((x) => x.status === 'fail')));
    // Edit the generated InferShape (an extra dim) and run the Paddle side on the same cases.
    const unit = path.join(dir, 'out', 'paddle', 'my_add', 'my_add_op.cc');
    const text = readFileSync(unit, 'utf8');
    const wrong = text.replace(/(std::vector<std::vector<int64_t>> InferShape\([^)]*\) \{\n)\s*return (bridge::inferShape<op::PaddleOp>\([^;]*\));/, '$1  auto r = $2;\n  r[0].push_back(1);\n  return r;');
    assert.ok(wrong !== text, 'the InferShape was not found to edit');
    writeFileSync(unit, wrong);
    const project = loadProject({ opsDir: path.join(dir, 'ops'), root: dir });
    const pd = await runPaddle({ python: PYTHON, root: dir, outDir: path.join(dir, 'out'), buildDir: path.join(dir, 'build', 'paddle'), casesDir: path.join(dir, 'build', 'test', 'cases'), ops: project.ops, grad: false, infer: true });
    const infer = pd.cases.filter((c) => c.op === 'MyAdd').map((c) => c['paddle-infer']);
    assert.is(infer.length, 2);
    for (const c of infer) assert.match(JSON.stringify(c), /output c: the static graph \(InferShape\) gives dims \[[\d, ]+, 1\], the kernel wrote \[/);
  });

  test('wrong calls from Paddle raise Paddle errors naming the op and the problem', () => {
    const dir = seedProject(['custom_relu', 'custom_relu_grad']);
    const g = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'gen', '--quiet'], { cwd: dir, encoding: 'utf8' });
    assert.is(g.status, 0, g.stderr);
    const script = `
import os, paddle, sys
from paddle.utils.cpp_extension import load
d = sys.argv[1]
os.makedirs(f"{d}/build", exist_ok=True)
mod = load(name="opforge_err_ops", sources=[f"{d}/out/paddle/custom_relu/custom_relu_op.cc", f"{d}/ops/kernels/custom_relu.cpp", f"{d}/ops/kernels/custom_relu_grad.cpp"],
           extra_include_paths=[f"{d}/out/include", f"{d}/out/paddle", f"{d}/out/paddle/include"], extra_cxx_cflags=["-std=c++17"], build_directory=f"{d}/build", verbose=False)
for what, call in [("dtype", lambda: mod.custom_relu(paddle.to_tensor([1, 2], dtype="int32"), 0.5)),
                   ("attribute", lambda: mod.custom_relu(paddle.to_tensor([1.0, 2.0]), float("nan")))]:
    try:
        call()
        print(what, "no error")
    except Exception as e:
        print(what, type(e).__name__, str(e).replace("\\n", " ")[:600])
`;
    const r = spawnSync(PYTHON, ['-c', script, dir], { encoding: 'utf8', env: { ...process.env, GLOG_minloglevel: '2' } });
    assert.is(r.status, 0, r.stderr.slice(-2000));
    const lines = r.stdout.trim().split('\n').filter((l) => /^(dtype|attribute) /.test(l));
    assert.is(lines.length, 2, r.stdout);
    for (const l of lines) {
      assert.not.match(l, 'no error');
      assert.match(l, 'CustomRelu');
    }
    assert.match(lines[0]!, /int32/);
    assert.match(lines[1]!, /alpha/);
  });
}

test.run();
