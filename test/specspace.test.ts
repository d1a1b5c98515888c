// The spec-space test: a fixed corpus of generated specs (test/specspace/plan.ts, one per seed)
// that together cover what the schema allows, each with kernels and a reference computing one
// closed form of its inputs and attributes. Every spec goes through `opforge test` (the Node addon,
// the PyTorch extension, ONNX Runtime and the legacy-exported models against the reference on
// every case; the serialization round trip); nvcc and (with their headers) TensorRT compile.
// test/specspace/long.ts runs any number of seeds the same way.

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { differentiableUnder, caseInputDtype, caseOutputDtype, presentOutputs } from '../generator/model/ir-helpers.js';
import type { OpIR, TestCaseIR } from '../generator/model/ir.js';
import { NVCC } from './helpers/optional-tools.js';
import { LEG_BACKENDS, firstLegTest, hasModule, hasPaddle, torchAtLeast, testWith } from './helpers/python.js';
import { root } from './helpers/paths.js';
import { FIXED_SEEDS, writeCorpus, type Corpus } from './specspace/corpus.js';
import { checkCoverage } from './specspace/coverage.js';
import {
  compileCuda,
  describeFailures,
  compileTrt,
  prepare,
  runOpforgeTest,
  type BackendReport,
  type Project,
} from './specspace/run.js';

const dir = path.join(root, 'build', 'specspace');
let corpus: Corpus;
let project: Project;

function clean(r: BackendReport): void {
  assert.is(r.failures.length, 0, describeFailures(r));
}

test.before(() => {
  corpus = writeCorpus(dir, FIXED_SEEDS);
  project = prepare(dir);
});

test('the fixed corpus covers the spec space (coverage.ts), and its snake: forms and CUDA training gaps reach the files and `opforge check`', () => {
  const gaps = checkCoverage(corpus.plans, project.ops);
  for (const p of corpus.plans.filter((q) => q.snake))
    assert.ok(existsSync(path.join(dir, 'out', 'include', 'opforge', 'ops', `${p.snake}.h`)), `${p.snake}.h`);
  const check = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'check'], {
    cwd: dir,
    encoding: 'utf8',
  });
  assert.is(check.status, 0, check.stderr);
  const warned = check.stderr.split('\n').filter((l) => /cannot train there/.test(l));
  assert.equal(
    warned,
    gaps.map(
      (n) =>
        `warning: ops/${project.ops.find((o) => o.name === n)!.ident.snake}.yaml: ${n} runs on CUDA (kernels.cuda) but cannot train there: ${n}Grad has no kernels.cuda (a CUDA tensor that needs its gradient raises)`,
    ),
  );
});

testWith(
  ['torch'],
  'opforge test: every case of every spec = the reference on node, torch, ort and the legacy export; serialization round-trips',
  async () => {
    // The extension, the Node addon and the ONNX Runtime library in unity batches of 16 (opforge
    // test's default batches at most 8): every spec's unit must also compile beside many others,
    // and fewer units parse the torch headers fewer times (each unit about 7 s of CPU with the
    // precompiled header; the suite runs files side by side, so the build's own parallelism matters less).
    // (The oldest-torch leg asks for the columns that depend on torch alone: LEG_BACKENDS.)
    const { reports, report } = await runOpforgeTest(project, {
      unityBatch: 16,
      ...(LEG_BACKENDS ? { backends: [...LEG_BACKENDS] } : {}),
    });
    for (const r of reports) clean(r);
    // Paddle's columns run where paddle is installed (the test venv), and are skipped by name elsewhere.
    const paddle = ['paddle', 'paddle-grad', 'paddle-infer'];
    // JAX's columns likewise (jit on every case, vmap on each op's first; jax-grad: the backward or the named error).
    const jax = ['jax', 'jax-grad'];
    assert.equal(
      report.backends.filter((b) => b !== 'ort-dynamo' && !paddle.includes(b) && !jax.includes(b)),
      LEG_BACKENDS ? ['torch', 'grad', 'ort-legacy'] : ['torch', 'grad', 'node', 'ort', 'ort-legacy', 'serialize'],
    );
    if (LEG_BACKENDS)
      assert.equal(
        report.backends.filter((b) => paddle.includes(b) || jax.includes(b)),
        [],
      );
    else {
      if (hasPaddle)
        assert.equal(
          report.backends.filter((b) => paddle.includes(b)),
          paddle,
        );
      else for (const b of paddle) assert.match(report.skipped[b] ?? '', /paddle is not importable/);
      if (hasModule('jax'))
        assert.equal(
          report.backends.filter((b) => jax.includes(b)),
          jax,
        );
      else for (const b of jax) assert.match(report.skipped[b] ?? '', /jax is not importable/);
    }
    assert.is(
      report.backends.includes('ort-dynamo'),
      torchAtLeast(2, 5),
      'the dynamo export runs exactly where torch has it',
    );
    const cases = project.ops.reduce((n, o) => n + o.tests.length, 0);
    // grad: every case in which an input takes a gradient (a float in the case's binding) and an output
    // can carry one: with a backward, gradcheck where float64 allows and autograd of the reference;
    // without, the named error (opforge_test.py: check_grad, check_no_backward).
    // Paddle skips cases with an empty input (it hands custom ops empty tensors without dtype and
    // dims); paddle-infer also those with a bfloat16 tensor (the predictor's go through numpy).
    const empty = (_o: OpIR, t: TestCaseIR) => t.inputs.some((x) => x.shape.includes(0));
    const bf16 = (o: OpIR, t: TestCaseIR) =>
      t.inputs.some((x) => caseInputDtype(o, t, x) === 'bfloat16') ||
      presentOutputs(o, t.attributes).some((x) => caseOutputDtype(o, t, x) === 'bfloat16');
    const emptyCases = project.ops.reduce((n, o) => n + o.tests.filter((t) => empty(o, t)).length, 0);
    const bf16Cases = project.ops.reduce((n, o) => n + o.tests.filter((t) => !empty(o, t) && bf16(o, t)).length, 0);
    const graded = project.ops.reduce(
      (n, o) =>
        n +
        o.tests.filter(
          (t) =>
            o.inputs.some((i) => differentiableUnder(i, t.binding) && t.inputs.some((x) => x.name === i.name)) &&
            (o.backward
              ? o.outputs.some((x) => x.differentiable)
              : o.outputs.some((x) => differentiableUnder(x, t.binding))),
        ).length,
      0,
    );
    for (const r of reports) {
      // jax-grad and paddle-grad: the graded cases but those whose outputs are empty (an empty
      // cotangent has nothing to check), or (Paddle) whose inputs are rank 0 or empty.
      if (r.backend === 'jax-grad' || r.backend === 'paddle-grad')
        assert.ok(r.cases > 0 && r.cases <= graded, `${r.backend}: ${r.cases} of ${graded}`);
      else
        assert.is(
          r.cases,
          r.backend === 'grad'
            ? graded
            : r.backend === 'paddle-infer'
              ? cases - emptyCases - bf16Cases
              : r.backend === 'paddle'
                ? cases - emptyCases
                : cases,
          `${r.backend}: ${r.cases} cases agree`,
        );
    }
    // The torch column ran through the Python entry for every op (every schema kind converts).
    assert.match(String(report.env.entry), /opforge_torch_py\./);
    assert.equal(report.env.entryBypassed, []);
    assert.ok(
      existsSync(
        path.join(project.root, 'build', 'torch', 'CMakeFiles', 'opforge_torch.dir', 'Unity', 'unity_0_cxx.cxx'),
      ),
      'the extension was not built in unity batches',
    );
  },
);

firstLegTest('a wrong kernel is caught, naming the op, case and output', async () => {
  // The attribute/state term off by 65 (odd, so bool outputs flip too) in one op's kernel, in a
  // project of that op (and its gradient op) alone: only that op may fail.
  const victim = corpus.plans.find((p) => p.attrs.length && p.tests.length)!;
  const mutated = writeCorpus(path.join(dir, 'mutated'), [victim.seed]);
  const one = prepare(mutated.root);
  const header = path.join(one.opsDir, 'kernels', `${one.ops.find((o) => o.name === victim.name)!.ident.snake}_form.h`);
  writeFileSync(header, readFileSync(header, 'utf8').replace('  return t + u;', '  return t + u + 65.0;'));
  const { reports } = await runOpforgeTest(one, { backends: ['node'] });
  const failures = reports.flatMap((r) => r.failures);
  assert.ok(failures.length > 0, 'the mutated kernel passed');
  assert.equal([...new Set(failures.map((f) => f.op))], [victim.name]);
  assert.match(failures[0]!.message, /output \w+\[\d+\] = .*, expected/);
});

firstLegTest('every CUDA kernel compiles with nvcc (-Werror)', () => clean(compileCuda(project)), [NVCC]);

// TensorRT's headers are not installable here: with TENSORRT_INCLUDE_DIR (':'-separated for
// several versions, see docs/tensorrt.md) every generated plugin unit is compiled -Werror.
for (const [k, inc] of (process.env.TENSORRT_INCLUDE_DIR ?? '').split(':').filter(Boolean).entries()) {
  test(`TensorRT units compile against ${inc} (-Werror)`, () => clean(compileTrt(project, inc, String(k))));
}

test('a version above 1000 is rejected where it is written (ONNX Runtime refuses such a custom domain)', () => {
  const bad = path.join(dir, 'bad-version');
  writeCorpus(bad, [1]);
  const yaml = path.join(bad, 'ops', `${project.ops.find((o) => o.name === corpus.plans[0]!.name)!.ident.snake}.yaml`);
  writeFileSync(yaml, readFileSync(yaml, 'utf8').replace(/^version: \d+$/m, 'version: 1001'));
  const r = spawnSync(
    process.execPath,
    [path.join(root, 'dist', 'cli', 'opforge.js'), 'check', '--ops', path.join(bad, 'ops')],
    { encoding: 'utf8' },
  );
  assert.is.not(r.status, 0);
  assert.match(`${r.stdout}${r.stderr}`.replace(/\x1b\[[0-9;]*m/g, ''), /\.yaml:\d+:10: version: must be <= 1000/);
});

test.run();
