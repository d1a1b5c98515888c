// Paddle for real (the pip wheel in the test venv): the generated PD_BUILD_OP / PD_BUILD_GRAD_OP
// code in the op library CMake builds against the wheel, through `opforge test`'s paddle,
// paddle-grad and paddle-infer columns; a deliberately wrong InferShape is caught; wrong calls
// from Paddle raise errors naming the op (the ops built by Paddle's JIT loader, the other way users
// build them); the library built by hand with CMake as a user does and loaded by
// opforge_paddle.load, whose checked functions turn hostile calls into errors naming the op and
// the argument. Without paddle the columns are skipped with the reason and the install
// command (checked too). The spec-space corpus and the user-ops fixture run these columns in
// specspace.test.ts and user-ops.test.ts.

import { cpSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runTests } from './helpers/run-tests.js';
import { cachedValues } from '../runtime/cmake-cache.js';
import { buildPaddleLibrary, runPaddle } from '../runtime/testing/backends/paddle/build.js';
import { loadProject } from '../generator/model/project.js';
import { differentiableUnder } from '../generator/model/ir-helpers.js';
import { root } from './helpers/paths.js';
import { PYTHON } from './helpers/python.js';
import { assertColumn, variadicCheck, variadicProject } from './helpers/variadic.js';

const paddle =
  spawnSync(PYTHON, ['-c', 'import paddle; print(paddle.__version__)'], { encoding: 'utf8' }).stdout?.trim() ?? '';

/** A project holding copies of seed ops (spec and kernels). */
function seedProject(ops: string[]): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-paddle-'));
  for (const op of ops) {
    cpSync(path.join(root, 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
    // The kernel, its CUDA twin, reference and the headers they share (dynamic_trt_resize_impl.h).
    for (const f of readdirSync(path.join(root, 'ops', 'kernels')).filter((f) => f.startsWith(op)))
      cpSync(path.join(root, 'ops', 'kernels', f), path.join(dir, 'ops', 'kernels', f));
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
  for (const b of ['paddle', 'paddle-grad', 'paddle-infer'])
    assert.match(r.skipped[b] ?? '', /paddle is not importable by .* \(install: pip install paddlepaddle==\d/);
});

if (paddle) {
  test(`seed ops on Paddle ${paddle}: paddle, paddle-grad and paddle-infer agree on every case`, async () => {
    const r = await runTests({
      root,
      backends: ['paddle'],
      python: PYTHON,
      buildDir: path.join(root, 'build', 'paddle-run'),
    });
    assert.ok(r.ok, JSON.stringify(r.results.filter((x) => x.status === 'fail')));
    // LeakyRelu's Paddle type is leaky_relu, one of Paddle's own ops: skipped by name.
    const project = loadProject({ opsDir: path.join(root, 'ops'), root });
    const keys = (ops: typeof project.ops) => ops.flatMap((op) => op.tests.map((t) => `${op.name}#${t.index}`)).sort();
    const runs = project.ops.filter((op) => op.name !== 'LeakyRelu');
    const ok = (b: string) =>
      r.results
        .filter((x) => x.backend === b && x.status === 'ok')
        .map((x) => `${x.op}#${x.case}`)
        .sort();
    assert.equal(ok('paddle'), keys(runs));
    assert.equal(ok('paddle-infer'), keys(runs));
    // Every case where an input takes a gradient: a backward's gradients against autograd, or (no
    // backward) the op's own error raised.
    const graded = (ops: typeof project.ops) =>
      ops
        .flatMap((op) =>
          op.tests
            .filter((t) => op.inputs.some((i) => differentiableUnder(i, t.binding)))
            .map((t) => `${op.name}#${t.index}`),
        )
        .sort();
    assert.equal(ok('paddle-grad'), graded(runs));
    assert.equal(
      r.results
        .filter((x) => x.backend === 'paddle-grad' && x.raised)
        .map((x) => `${x.op}#${x.case}`)
        .sort(),
      graded(runs.filter((op) => !op.backward)),
    );
    assert.ok(
      r.results
        .filter((x) => x.op === 'LeakyRelu' && x.backend === 'paddle')
        .every((x) => x.status === 'skip' && /Paddle has a built-in op leaky_relu/.test(x.message ?? '')),
    );
    assert.ok(
      r.results.filter((x) => x.backend === 'paddle' && x.status === 'ok').every((x) => x.compared === 'reference'),
    );
    assert.is(r.env.paddle, paddle);
  });

  test('a variadic input (test/fixtures/variadic-grad): paddle, paddle-grad, paddle-infer, and the CMake library by hand', async () => {
    // node runs too: the baseline of any case the reference does not check.
    const dir = variadicProject();
    const r = await runTests({ root: dir, backends: ['node', 'paddle'], python: PYTHON });
    assertColumn(r, 'paddle');
    assertColumn(r, 'paddle-infer');
    // MemberMix's grad op reads the members (paddle::Vec); the static training graph too.
    assertColumn(r, 'paddle-grad');
    // The library with the project's warnings as errors, loaded by opforge_paddle.load.
    const build = path.join(dir, 'build', 'cmake');
    const c = spawnSync(
      'cmake',
      ['-S', path.join(dir, 'out'), '-B', build, '-DWITH_PADDLE=ON', `-DPADDLE_PYTHON=${PYTHON}`],
      { encoding: 'utf8' },
    );
    assert.is(c.status, 0, c.stdout + c.stderr);
    const b = spawnSync('cmake', ['--build', build, '--target', 'opforge_paddle_ops', '-j', '2'], { encoding: 'utf8' });
    assert.is(b.status, 0, b.stdout.slice(-4000) + b.stderr.slice(-4000));
    const out = variadicCheck(
      'paddle',
      path.join(dir, 'out', 'paddle'),
      path.join(build, 'paddle', 'libopforge_paddle_ops.so'),
    );
    for (const k of [
      'dygraph',
      'weights',
      'order',
      'paddle.grad',
      'static',
      'one member',
      'member shape',
      'kernel: one member',
    ])
      assert.match(out, new RegExp(`^${k}:`, 'm'));
  });

  test('a deliberately wrong InferShape is caught by paddle-infer, naming the op, output and dims', async () => {
    const dir = seedProject(['my_add', 'my_add_grad']);
    const first = await runTests({ root: dir, backends: ['paddle'], python: PYTHON });
    assert.ok(first.ok, JSON.stringify(first.results.filter((x) => x.status === 'fail')));
    // Edit the generated InferShape (an extra dim) and run the Paddle side on the same cases.
    const unit = path.join(dir, 'out', 'paddle', 'my_add', 'my_add_op.cc');
    const text = readFileSync(unit, 'utf8');
    const wrong = text.replace(
      /(std::vector<std::vector<int64_t>> InferShape\([^)]*\) \{\n)\s*return (bridge::inferShape<op::PaddleOp>\([^;]*\));/,
      '$1  auto r = $2;\n  r[0].push_back(1);\n  return r;',
    );
    assert.ok(wrong !== text, 'the InferShape was not found to edit');
    writeFileSync(unit, wrong);
    const project = loadProject({ opsDir: path.join(dir, 'ops'), root: dir });
    // The library again (its op unit recompiled, the kernel build's objects as opforge test linked them).
    const kernels = cachedValues(path.join(dir, 'build', 'paddle'), ['OPFORGE_KERNELS']).OPFORGE_KERNELS;
    assert.ok(kernels, 'opforge test configured the Paddle build with the kernel build');
    const library = await buildPaddleLibrary({
      root: dir,
      outDir: path.join(dir, 'out'),
      buildDir: path.join(dir, 'build', 'paddle'),
      python: PYTHON,
      kernels: { OPFORGE_KERNELS: kernels },
    });
    const pd = await runPaddle({
      python: PYTHON,
      outDir: path.join(dir, 'out'),
      library,
      casesDir: path.join(dir, 'build', 'test', 'cases'),
      ops: project.ops,
      grad: false,
      infer: true,
    });
    const infer = pd.cases.filter((c) => c.op === 'MyAdd').map((c) => c['paddle-infer']);
    assert.is(infer.length, 2);
    for (const c of infer)
      assert.match(
        JSON.stringify(c),
        /output c: the static graph \(InferShape\) gives dims \[[\d, ]+, 1\], the kernel wrote \[/,
      );
  });

  test('wrong calls from Paddle raise ValueErrors naming the op and the problem (dygraph and a PIR static graph, never a crash)', () => {
    const dir = seedProject(['custom_relu', 'custom_relu_grad', 'dynamic_trt_resize', 'dynamic_trt_resize_grad']);
    const g = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'gen', '--quiet'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.is(g.status, 0, g.stderr);
    // The op units through Paddle's JIT loader (one unity unit), the way users build without CMake.
    const script = `
import os, numpy as np, paddle, sys
from paddle.utils.cpp_extension import load
d = sys.argv[1]
os.makedirs(f"{d}/build", exist_ok=True)
with open(f"{d}/build/unity.cc", "w") as fh:
    fh.write(f'#include "{d}/out/paddle/custom_relu/custom_relu_op.cc"\\n#include "{d}/out/paddle/dynamic_trt_resize/dynamic_trt_resize_op.cc"\\n')
mod = load(name="opforge_err_ops", sources=[f"{d}/build/unity.cc"] + [f"{d}/ops/kernels/{k}.cpp" for k in ["custom_relu", "custom_relu_grad", "dynamic_trt_resize", "dynamic_trt_resize_grad"]],
           extra_include_paths=[f"{d}/out/include", f"{d}/out/paddle", f"{d}/out/paddle/include"], extra_cxx_cflags=["-std=c++17", "-g0"], build_directory=f"{d}/build", verbose=False)

def static_rank():
    # A wrong rank in a PIR static graph: the InferShapeFn cannot raise there (Paddle would end the
    # process), so the graph builds and the kernel raises when it runs.
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            z = paddle.static.data("z", [2, 3], "float32")
            s = paddle.static.data("s", [1, 1, 4, 4], "float32")
            o = mod.dynamic_trt_resize(z, s, False)
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        exe.run(main, feed={"z": np.ones([2, 3], "float32"), "s": np.ones([1, 1, 4, 4], "float32")}, fetch_list=[o])
    finally:
        paddle.disable_static()

for what, call in [("dtype", lambda: mod.custom_relu(paddle.to_tensor([1, 2], dtype="int32"), 0.5)),
                   ("attribute", lambda: mod.custom_relu(paddle.to_tensor([1.0, 2.0]), float("nan"))),
                   ("rank", lambda: mod.dynamic_trt_resize(paddle.ones([2, 3]), paddle.ones([1, 1, 4, 4]), False)),
                   ("static-rank", static_rank)]:
    try:
        call()
        print(what, "no error")
    except Exception as e:
        print(what, type(e).__name__, str(e).replace("\\n", " ")[-600:])
`;
    const r = spawnSync(PYTHON, ['-c', script, dir], {
      encoding: 'utf8',
      env: { ...process.env, GLOG_minloglevel: '2' },
    });
    assert.is(r.status, 0, `exit ${r.status} (${r.signal}): ${r.stderr.slice(-2000)}`);
    const got = new Map(
      r.stdout
        .trim()
        .split('\n')
        .filter((l) => /^(dtype|attribute|rank|static-rank) /.test(l))
        .map((l) => [l.split(' ')[0]!, l]),
    );
    assert.is(got.size, 4, r.stdout);
    for (const l of got.values()) assert.match(l, /^\S+ ValueError /);
    assert.match(got.get('dtype')!, /CustomRelu: input x has dtype int32/);
    assert.match(got.get('attribute')!, /CustomRelu: .*alpha/);
    assert.match(got.get('rank')!, /DynamicTRTResize: input input must have rank 4, got 2/);
    assert.match(got.get('static-rank')!, /DynamicTRTResize: input input must have rank 4, got 2/);
  });

  test('the op library built with CMake against the wheel (-Werror), loaded by opforge_paddle.load: forward, paddle.grad, a static graph', () => {
    const dir = seedProject([
      'custom_relu',
      'custom_relu_grad',
      'my_add',
      'my_add_grad',
      'dynamic_trt_resize',
      'dynamic_trt_resize_grad',
      'knn_query',
    ]);
    const g = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'gen', '--quiet'], {
      cwd: dir,
      encoding: 'utf8',
    });
    assert.is(g.status, 0, g.stderr);
    const build = path.join(dir, 'build', 'cmake');
    const c = spawnSync(
      'cmake',
      ['-S', path.join(dir, 'out'), '-B', build, '-DWITH_PADDLE=ON', `-DPADDLE_PYTHON=${PYTHON}`],
      { encoding: 'utf8' },
    );
    assert.is(c.status, 0, c.stdout + c.stderr);
    assert.match(c.stdout, new RegExp(`Paddle ${paddle.replace(/\./g, '\\.')}: the wheel in `));
    const b = spawnSync('cmake', ['--build', build, '--target', 'opforge_paddle_ops', '-j', '2'], { encoding: 'utf8' });
    assert.is(b.status, 0, b.stdout.slice(-4000) + b.stderr.slice(-4000));
    const script = `
import sys, numpy as np, paddle
sys.path.insert(0, sys.argv[1] + "/out/paddle")
import opforge_paddle
ops = opforge_paddle.load(sys.argv[2])
assert opforge_paddle.load(sys.argv[2]) is ops  # once per library
x = paddle.to_tensor(np.array([-2.0, -0.5, 0.0, 3.0], "float32"), stop_gradient=False)
y = ops.custom_relu(x, 0.25)
assert y.numpy().tolist() == [-0.5, -0.125, 0.0, 3.0], y.numpy()
gx, = paddle.grad([y], [x], [paddle.to_tensor(np.array([1.0, 2.0, 3.0, 4.0], "float32"))])
assert gx.numpy().tolist() == [0.25, 0.5, 0.75, 4.0], gx.numpy()
a = paddle.to_tensor(np.arange(6, dtype="float64").reshape(2, 3), stop_gradient=False)
b = paddle.to_tensor(np.ones((2, 3), "float64") * 0.5, stop_gradient=False)
c = ops.my_add(a, b)
assert c.dtype == paddle.float64 and c.numpy().tolist() == (2 * np.arange(6).reshape(2, 3) + 0.5).tolist(), c.numpy()  # 2a + b
ga, gb = paddle.grad([c], [a, b], [paddle.full([2, 3], 3.0, "float64")])
assert ga.numpy().tolist() == [[6.0] * 3] * 2 and gb.numpy().tolist() == [[3.0] * 3] * 2, (ga.numpy(), gb.numpy())
# Training in a PIR static graph: the grad op's InferShapeFn / InferDtypeFn build it.
paddle.enable_static()
main, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(main, startup):
    xs = paddle.static.data("x", [4], "float32")
    xs.stop_gradient = False
    ys = ops.custom_relu(xs, 0.25)
    gs, = paddle.static.gradients([ys], [xs])
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
yv, gv = exe.run(main, feed={"x": np.array([-2.0, -0.5, 0.0, 3.0], "float32")}, fetch_list=[ys, gs])
assert yv.tolist() == [-0.5, -0.125, 0.0, 3.0] and gv.tolist() == [0.25, 0.25, 0.25, 1.0], (yv, gv)
print("ok", paddle.framework.use_pir_api())
`;
    const r = spawnSync(PYTHON, ['-c', script, dir, path.join(build, 'paddle', 'libopforge_paddle_ops.so')], {
      encoding: 'utf8',
      env: { ...process.env, GLOG_minloglevel: '2' },
    });
    assert.is(r.status, 0, r.stdout + r.stderr.slice(-3000));
    assert.match(r.stdout, /^ok True$/m);

    // Hostile calls through the same library (test/python/paddle_checked_calls.py): each a
    // TypeError/ValueError naming the op and the argument, in dygraph, a PIR static graph and static
    // training, where Paddle's raw functions abort or crash the process; valid calls still right.
    const h = spawnSync(
      PYTHON,
      [
        path.join(root, 'test', 'python', 'paddle_checked_calls.py'),
        path.join(dir, 'out', 'paddle'),
        path.join(build, 'paddle', 'libopforge_paddle_ops.so'),
      ],
      { encoding: 'utf8', env: { ...process.env, GLOG_minloglevel: '2' } },
    );
    assert.is(h.status, 0, `exit ${h.status} (${h.signal}): ${h.stdout.slice(-3000)}${h.stderr.slice(-3000)}`);
    const lines = h.stdout.split('\n').filter((l) => /^(ok|BAD) /.test(l));
    assert.equal(
      lines.filter((l) => l.startsWith('BAD ')),
      [],
    );
    assert.match(h.stdout, new RegExp(`^done ${lines.length}$`, 'm'));
    assert.ok(lines.length >= 50, h.stdout);
    const line = (label: string): string => lines.find((l) => l.startsWith(`ok ${label} | `)) ?? '';
    assert.match(
      line('static str attribute'),
      /TypeError: CustomRelu: attribute 'alpha' must be a float, got str '0\.5'/,
    );
    assert.match(
      line('static torch input'),
      /TypeError: CustomRelu: input 'x' must be a paddle\.pir\.Value in a PIR static graph, got torch\.Tensor/,
    );
    assert.match(line('static None input'), /TypeError: CustomRelu: input 'x' is required/);
    assert.match(line('static nsample 2**63'), /ValueError: KNNQuery: attribute 'nsample' must be within int32/);
    assert.match(line('dygraph numpy input'), /got numpy\.ndarray/);
    assert.match(line('static rank-0 training'), /ValueError: CustomRelu: input 'x' has rank 0 and takes a gradient/);
    assert.match(line('no temporary folder'), /\| \[\]$/);
    assert.ok(line('jit.save and jit.load'), h.stdout);
  });
}

test.run();
