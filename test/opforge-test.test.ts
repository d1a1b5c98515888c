// `opforge test` (runtime/testing): the seed ops agree on every backend here; a deliberately wrong
// kernel is caught on every backend that runs it, naming the op, case and backend; an op without
// a reference is held to its CPU kernel; usage errors are clear.

import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../generator/model/project.js';
import type { TestReport } from '../runtime/testing/results.js';
import { trtIncludeDir } from '../runtime/testing/backends/trt/lifecycle.js';
import { root } from './helpers/paths.js';
import { runOpforge, seedProject } from './helpers/seed-project.js';
import { PYTHON, firstLegTest, hasModule, hasPaddle, torchAtLeast, testWith } from './helpers/python.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-test-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

testWith(['torch'], 'the seed ops: every case agrees on node, torch, ort, the legacy export and serialization', () => {
  // Every backend but Paddle's (test/paddle-run.test.ts runs the seed ops through those).
  const r = runOpforge(root, ['test', '--json', '--backend', 'node,torch,grad,ort,export,serialize,trt']);
  assert.is(r.status, 0, `${r.out}\n${r.err.slice(-3000)}`);
  const report = JSON.parse(r.out) as TestReport;
  assert.ok(report.ok);
  for (const b of ['node', 'torch', 'grad', 'ort', 'ort-legacy', 'serialize'])
    assert.ok(report.backends.includes(b), `${b} did not run: ${JSON.stringify(report.skipped)}`);
  // The dynamo exporter runs on torch >= 2.5 (the venv's); older torch skips it with its reason, not silently.
  if (torchAtLeast(2, 5)) assert.ok(report.backends.includes('ort-dynamo'), JSON.stringify(report.skipped));
  else assert.match(report.skipped['ort-dynamo'] ?? '', /torch 1\.13.* < 2\.5/);
  // No TensorRT headers in CI: the trt column says why it did not run (test/trt.test.ts runs it with headers).
  if (!trtIncludeDir())
    assert.match(report.skipped.trt ?? '', /no TensorRT headers \(set TENSORRT_ROOT or TENSORRT_INCLUDE_DIR\)/);
  const cases = loadProject({ opsDir: path.join(root, 'ops'), root }).ops.flatMap((op) =>
    op.tests.map((t) => `${op.name}#${t.index}`),
  );
  for (const b of ['node', 'torch', 'ort', 'ort-legacy', 'serialize']) {
    const ran = report.results
      .filter((x) => x.backend === b && x.status === 'ok')
      .map((x) => `${x.op}#${x.case}`)
      .sort();
    assert.equal(ran, [...cases].sort(), `backend ${b}`);
  }
  assert.ok(report.env.extension, 'the torch column ran the compiled extension');
  assert.equal(report.summary, { cases: cases.length, reference: cases.length, backends: 0, nothing: 0 });
  // grad: every case of the ops with a backward (CustomRelu, LeakyRelu, MyAdd, DynamicTRTResize)
  // against autograd of the reference; every case of the differentiable ops without one (the
  // gradient ops) raises the named error; KNNQuery takes no gradient.
  const seed = loadProject({ opsDir: path.join(root, 'ops'), root }).ops;
  const keys = (ops: typeof seed) => ops.flatMap((op) => op.tests.map((t) => `${op.name}#${t.index}`)).sort();
  const grad = report.results.filter((x) => x.backend === 'grad' && x.status === 'ok');
  assert.equal(
    grad
      .filter((x) => x.compared === 'reference')
      .map((x) => `${x.op}#${x.case}`)
      .sort(),
    keys(seed.filter((op) => op.backward)),
  );
  assert.equal(
    grad
      .filter((x) => x.message === 'no backward: asking for a gradient raises the named error')
      .map((x) => `${x.op}#${x.case}`)
      .sort(),
    keys(seed.filter((op) => !op.backward && op.inputs.some((i) => i.differentiable))),
  );
});

firstLegTest(
  'without torch or paddle (a bare venv): node, ort and serialize agree between themselves; every Python column says why, with the install command',
  () => {
    const venv = path.join(tmp, 'bare-venv');
    assert.is(spawnSync('python3', ['-m', 'venv', '--without-pip', venv]).status, 0);
    const dir = seedProject(path.join(tmp, 'bare'), ['my_add'], { grads: true });
    const r = runOpforge(dir, ['test', '--json'], { OPFORGE_PYTHON: path.join(venv, 'bin', 'python') });
    assert.is(r.status, 0, `${r.out}\n${r.err.slice(-3000)}`);
    const report = JSON.parse(r.out) as TestReport;
    assert.ok(report.ok);
    for (const b of ['reference', 'torch', 'grad', 'ort-legacy', 'ort-dynamo']) {
      assert.match(
        report.skipped[b] ?? '',
        /^torch is not importable by .*bare-venv.* \(install: pip install torch onnx onnxruntime onnxscript; /,
        b,
      );
    }
    for (const b of ['paddle', 'paddle-grad', 'paddle-infer'])
      assert.match(
        report.skipped[b] ?? '',
        /^paddle is not importable by .* \(install: pip install paddlepaddle==\d/,
        b,
      );
    const cases = loadProject({ opsDir: path.join(dir, 'ops'), root: dir })
      .ops.flatMap((op) => op.tests.map((t) => `${op.name}#${t.index}`))
      .sort();
    for (const b of ['node', 'ort', 'serialize']) {
      assert.equal(
        report.results
          .filter((x) => x.backend === b && ['ok', 'base'].includes(x.status))
          .map((x) => `${x.op}#${x.case}`)
          .sort(),
        cases,
        b,
      );
    }
    assert.ok(report.results.filter((x) => x.backend === 'ort').every((x) => x.compared === 'backends'));
    // Nothing claims a reference it did not have.
    assert.equal(report.summary, { cases: cases.length, reference: 0, backends: cases.length, nothing: 0 });
  },
);

testWith(
  ['torch'],
  'a wrong kernel fails on every backend that runs it, naming the op, case and backend; the table says so',
  () => {
    const dir = seedProject(path.join(tmp, 'wrong'), ['custom_relu'], { grads: true });
    const kernel = path.join(dir, 'ops', 'kernels', 'custom_relu.cpp');
    // Squares alpha: cases 1 (alpha 0.25) and 3 (alpha -0.5) must fail, cases 0 and 2 (alpha 0) pass.
    writeFileSync(
      kernel,
      readFileSync(kernel, 'utf8').replace('v > C(0) ? v : scaled', 'v > C(0) ? v : alpha * scaled'),
    );
    // Paddle's columns aside (test/paddle-run.test.ts): here the torch/ONNX/Node columns' table.
    const r = runOpforge(dir, ['test', '--backend', 'node,torch,grad,ort,export,serialize,trt']);
    assert.is(r.status, 1, `${r.out}\n${r.err.slice(-2000)}`);
    for (const b of ['node', 'torch', 'ort', 'ort-legacy']) {
      for (const k of [1, 3])
        assert.match(r.out, new RegExp(`CustomRelu case ${k} \\[${b}\\]: output y\\[\\d+\\] = `), `${b} case ${k}`);
      for (const k of [0, 2]) assert.not.match(r.out, `CustomRelu case ${k} [${b}]`);
    }
    // grad too: gradcheck compares the declared backward (alpha) with the wrong forward's slope (alpha^2).
    for (const k of [1, 3]) assert.match(r.out, new RegExp(`CustomRelu case ${k} \\[grad\\]: `), `grad case ${k}`);
    // torch >= 2.5: the dynamo-exported model fails too (one more column).
    const dynamo = torchAtLeast(2, 5);
    assert.match(r.out, new RegExp(`CustomRelu\\s+(FAIL 2/4\\s+){${dynamo ? 6 : 5}}ok 4`));
    assert.match(
      r.out,
      `opforge test: 2 op(s), 7 case(s), ${dynamo ? 7 : 6} backend(s): ${dynamo ? 12 : 10} failure(s)`,
    );

    // A kernel that does not compile: a failure of that op on every backend that builds it, naming
    // the file and line; the other ops of the same builds are not run because of it (not failures).
    writeFileSync(kernel, readFileSync(kernel, 'utf8').replace('return Status::Ok();', 'return Status::Ok()'));
    const broken = runOpforge(dir, ['test', '--backend', 'node,torch,ort']);
    assert.is(broken.status, 1, broken.out);
    for (const b of ['node', 'torch', 'ort'])
      assert.match(
        broken.out,
        new RegExp(
          `CustomRelu case - \\[${b}\\]: its kernel does not compile \\(ops/kernels/custom_relu\\.cpp:\\d+\\): .*\\n.*custom_relu\\.cpp:\\d+:\\d+: error`,
        ),
        b,
      );
    assert.match(broken.out, /CustomReluGrad\s+not run\s+not run\s+not run/);
    assert.match(
      broken.out,
      /not run \(another op broke the build they share\):\n {2}CustomReluGrad \[torch, node, ort\]: not run: the kernel of CustomRelu \(ops\/kernels\/custom_relu\.cpp:\d+\) broke this build/,
    );
    assert.match(broken.out, ': 3 failure(s)');
    assert.not.match(broken.out, 'CustomReluGrad case');
    assert.not.match(broken.out, 'skipped:');
  },
);

/** opforge test on this machine runs Paddle's and JAX's harnesses beside the PyTorch side's (two cores or more). */
const APART = os.availableParallelism() >= 2;
const sessions = (n: number): string[] => Array(n).fill('opforge_session.py');

testWith(
  ['torch'],
  'the PyTorch side runs in one Python per run, started before the builds; none when nothing changed; the Python entry is compiled once per machine',
  () => {
    const dir = seedProject(path.join(tmp, 'session'), ['custom_relu'], { grads: true });
    // A machine cache of this test's own: the first run compiles the entry and keeps it.
    const machine = path.join(dir, 'machine-cache');
    // A Python that logs each start (its script) and runs the real one.
    const log = path.join(dir, 'starts.log');
    const python = path.join(dir, 'python');
    writeFileSync(python, `#!/bin/sh\nprintf '%s\\n' "$(basename "$1")" >> '${log}'\nexec '${PYTHON}' "$@"\n`);
    chmodSync(python, 0o755);
    const starts = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
    const run = (backends = 'torch,grad,export,node'): TestReport => {
      rmSync(log, { force: true });
      const r = runOpforge(dir, ['test', '--json', '--backend', backends], {
        OPFORGE_PYTHON: python,
        OPFORGE_CACHE_DIR: machine,
      });
      assert.is(r.status, 0, `${r.out}\n${r.err.slice(-3000)}`);
      return JSON.parse(r.out) as TestReport;
    };
    // Cold: the probe and the harness (reference, extension, exports, gradients) in one interpreter.
    const cold = run();
    assert.ok(cold.results.some((x) => x.backend === 'torch' && x.status === 'ok'));
    assert.ok(cold.results.some((x) => x.backend === 'ort-legacy' || x.backend === 'grad'));
    assert.equal(starts(), ['opforge_session.py']);
    // Nothing changed: the probe and the harness's results are kept, so no Python starts.
    const again = run();
    assert.equal(again.results, cold.results);
    assert.equal(starts(), []);
    // A kernel edit: the harness runs again (the probe is kept): one interpreter, started for it
    // without the imports a cold run makes while it builds.
    const kernel = path.join(dir, 'ops', 'kernels', 'custom_relu.cpp');
    writeFileSync(kernel, `${readFileSync(kernel, 'utf8')}\nint opforge_session_edit() { return 1; }\n`);
    const edited = run();
    assert.equal(edited.results, cold.results);
    assert.equal(starts(), ['opforge_session.py']);

    // The entry is the same file for every project: the cold run kept it in the machine cache, and
    // a build of the extension with nothing kept (a fresh project's) copies it instead of compiling it.
    const torchBuild = path.join(dir, 'build', 'torch');
    const entryIn = (d: string): string[] => readdirSync(d).filter((f) => /^opforge_torch_py\..*\.so$/.test(f));
    const folders = readdirSync(path.join(machine, 'torch-entry'));
    assert.is(folders.length, 1);
    const kept = path.join(machine, 'torch-entry', folders[0]!);
    assert.equal(entryIn(kept), entryIn(torchBuild));
    const units = (): string[] =>
      (JSON.parse(readFileSync(path.join(torchBuild, 'compile_commands.json'), 'utf8')) as { file: string }[]).map(
        (e) => path.basename(e.file),
      );
    assert.ok(units().includes('python_entry.cpp'), units().join(' '));
    rmSync(path.join(dir, 'build'), { recursive: true, force: true });
    // (with Paddle's and JAX's columns, where this Python has them: their harnesses run beside the
    // PyTorch side's, each in an interpreter of its own, where the machine has two cores or more;
    // else in the same one, after it)
    const others = hasPaddle && hasModule('jax');
    const fresh = run(others ? 'torch,grad,export,node,paddle,jax' : 'torch,grad,export,node');
    const ran = (b: string): string[] =>
      fresh.results.filter((x) => x.backend === b && x.status === 'ok').map((x) => `${x.op}#${x.case}`);
    assert.equal(
      fresh.results.filter((x) => !/^(paddle|jax)/.test(x.backend)),
      cold.results,
    );
    if (others) {
      for (const b of ['paddle', 'jax']) assert.ok(ran(b).length > 0, `${b}: ${JSON.stringify(fresh.skipped)}`);
      assert.equal(ran('paddle'), ran('torch'));
      assert.equal(ran('jax'), ran('torch'));
    }
    assert.equal(starts(), sessions(others && APART ? 3 : 1));
    assert.not.ok(units().includes('python_entry.cpp'), units().join(' '));
    assert.match(readFileSync(path.join(torchBuild, 'CMakeCache.txt'), 'utf8'), 'OPFORGE_TORCH_PYTHON:BOOL=OFF');
    const [name] = entryIn(kept);
    assert.ok(readFileSync(path.join(torchBuild, name!)).equals(readFileSync(path.join(kept, name!))));
    // The harness called the ops through it.
    assert.match(String(fresh.env.entry ?? ''), /opforge_torch_py\./);
  },
);

testWith(
  ['torch', 'jax'],
  'the JAX and Paddle columns: nothing changed, no Python starts and nothing is rebuilt (results kept by content); a kernel edit that changes a value fails them',
  () => {
    const dir = seedProject(path.join(tmp, 'kept'), ['custom_relu'], { grads: true });
    const log = path.join(dir, 'starts.log');
    const python = path.join(dir, 'python');
    writeFileSync(python, `#!/bin/sh\nprintf '%s\\n' "$(basename "$1")" >> '${log}'\nexec '${PYTHON}' "$@"\n`);
    chmodSync(python, 0o755);
    const starts = (): string[] => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : []);
    const backends = hasPaddle ? ['jax', 'paddle'] : ['jax'];
    const run = (): TestReport => {
      rmSync(log, { force: true });
      const r = runOpforge(dir, ['test', '--json', '--backend', backends.join(',')], { OPFORGE_PYTHON: python });
      return JSON.parse(r.out) as TestReport;
    };
    const cells = (r: TestReport, status: string): string[] =>
      r.results
        .filter((x) => backends.includes(x.backend) && x.status === status)
        .map((x) => `${x.backend} ${x.op}#${x.case}`);
    const cold = run();
    assert.ok(cold.ok, JSON.stringify(cold.results.filter((x) => x.status === 'fail')));
    for (const b of backends)
      assert.ok(
        cells(cold, 'ok').some((c) => c.startsWith(`${b} `)),
        JSON.stringify(cold.skipped),
      );
    // The PyTorch side (the reference) and, apart, one interpreter per harness.
    assert.equal(starts(), sessions(APART ? 1 + backends.length : 1));
    // The built libraries and objects (the kernels', the JAX library, the Paddle module), by time.
    const built = (): string[] =>
      ['kernels', 'jax', 'paddle'].flatMap((d) =>
        spawnSync('find', [path.join(dir, 'build', d), '-name', '*.o', '-o', '-name', '*.so'], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean)
          .sort()
          .map((f) => `${f} ${statSync(f).mtimeMs}`),
      );
    const before = built();
    assert.ok(
      before.some((f) => f.includes('libopforge_jax_ops.so')) &&
        (!hasPaddle || before.some((f) => f.includes(`${path.sep}paddle${path.sep}`))),
      before.join('\n'),
    );
    const again = run();
    assert.equal(again.results, cold.results);
    assert.equal(starts(), []);
    assert.equal(built(), before);
    // A kernel edit that changes the positive outputs: every case with one fails in both columns
    // (kept results would still pass).
    const kernel = path.join(dir, 'ops', 'kernels', 'custom_relu.cpp');
    const text = readFileSync(kernel, 'utf8');
    const wrong = text.replace('v > C(0) ? v : scaled', 'v > C(0) ? v + C(1) : scaled');
    assert.ok(wrong !== text);
    writeFileSync(kernel, wrong);
    const edited = run();
    // The reference's results are kept; the two harnesses run again.
    assert.equal(starts(), sessions(APART ? backends.length : 1));
    const failed = cells(edited, 'fail');
    assert.equal(
      failed,
      cells(cold, 'ok').filter((c) => /^(jax|paddle) CustomRelu#/.test(c)),
    );
    assert.ok(failed.length >= 2 * backends.length, failed.join(', '));
  },
);

// Node and ONNX Runtime only: the oldest-torch leg leaves it to the first.
firstLegTest(
  'without a reference the CPU kernel is the baseline; --only and --backend select; bad arguments are usage errors',
  () => {
    const dir = seedProject(path.join(tmp, 'noref'), ['my_add', 'leaky_relu'], { grads: true });
    const spec = path.join(dir, 'ops', 'my_add.yaml');
    writeFileSync(spec, readFileSync(spec, 'utf8').replace(/^ {2}reference: .*\n/m, ''));
    const r = runOpforge(dir, ['test', '--only', 'MyAdd', '--backend', 'node,ort', '--json']);
    assert.is(r.status, 0, `${r.out}\n${r.err.slice(-2000)}`);
    const report = JSON.parse(r.out) as TestReport;
    assert.equal(report.backends, ['node', 'ort']);
    assert.equal([...new Set(report.results.map((x) => x.op))], ['MyAdd']);
    // The CPU kernel's cells are the baseline, unchecked themselves; ORT is compared with them.
    assert.ok(
      report.results
        .filter((x) => x.backend === 'node')
        .every(
          (x) =>
            x.status === 'base' && /^baseline: the other backends are compared with this output/.test(x.message ?? ''),
        ),
    );
    assert.ok(
      report.results.filter((x) => x.backend === 'ort').every((x) => x.status === 'ok' && x.compared === 'backends'),
      JSON.stringify(report.results),
    );
    assert.equal(report.summary, { cases: 2, reference: 0, backends: 2, nothing: 0 });
    const table = runOpforge(dir, ['test', '--only', 'MyAdd', '--backend', 'node,ort']);
    assert.match(table.out, /MyAdd\s+base 2\s+ok 2 /);
    assert.match(
      table.out,
      'opforge test: 1 op(s), 2 case(s), 2 backend(s): all agree (0 compared with the reference, 2 only between backends, 0 with nothing)',
    );
    // The baseline alone: nothing was compared, and the summary does not say "agree".
    const alone = runOpforge(dir, ['test', '--only', 'MyAdd', '--backend', 'node']);
    assert.is(alone.status, 0, alone.out);
    assert.match(alone.out, /MyAdd\s+base 2\n/);
    assert.match(
      alone.out,
      'opforge test: 1 op(s), 2 case(s), 1 backend(s): no disagreement, but 2 case(s) were compared with nothing (0 compared with the reference, 0 only between backends, 2 with nothing)',
    );
    assert.not.match(alone.out, 'all agree');

    const bad = runOpforge(dir, ['test', '--backend', 'node,tensorflow']);
    assert.is(bad.status, 2);
    assert.match(
      bad.err,
      'unknown backend tensorflow (backends: node, torch, grad, ort, export, paddle, jax, serialize, trt)',
    );
    const only = runOpforge(dir, ['test', '--only', 'Nope']);
    assert.is(only.status, 2);
    assert.match(only.err, '--only: no op named Nope (ops: LeakyRelu, LeakyReluGrad, MyAdd, MyAddGrad)');
    const batch = runOpforge(dir, ['test', '--backend', 'torch'], { OPFORGE_UNITY_BATCH: '4x' });
    assert.is.not(batch.status, 0);
    assert.match(batch.err, 'OPFORGE_UNITY_BATCH must be a positive integer, not "4x"');
  },
);

test.run();
