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
import { DTYPES, DTYPE_INFO } from '../generator/model/type-table.js';
import { differentiableUnder, dtypeUnder, presentOutputs } from '../generator/model/ir-helpers.js';
import type { OpIR, TestCaseIR } from '../generator/model/ir.js';
import { NVCC } from './helpers/optional-tools.js';
import { LEG_BACKENDS, firstLegTest, hasModule, hasPaddle, torchAtLeast, testWith } from './helpers/python.js';
import { root } from './helpers/paths.js';
import { FIXED_SEEDS, writeCorpus, type Corpus } from './specspace/corpus.js';
import { gradHasCuda, gradPlan } from './specspace/render.js';
import { evalChoice, evalCond, type SpecPlan } from './specspace/plan.js';
import { cudaTrainingGaps } from '../generator/model/cuda-training.js';
import type { ProjectIR } from '../generator/model/ir.js';
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

// The coverage test's checks, one family of features each: a change to plan.ts that loses the
// last spec of a kind fails here, under the family's name.

/** Every dtype is some case's input and some case's output. */
function coversEveryDtype(ps: readonly SpecPlan[]): void {
  const inDtypes = new Set(
    ps.flatMap((p) =>
      p.tests.flatMap((t) => p.inputs.filter((i) => t.dims[i.name]).map((i) => t.types[i.dtype] ?? i.dtype)),
    ),
  );
  const outDtypes = new Set(
    ps.flatMap((p) => p.tests.flatMap((t) => p.outputs.map((o) => t.types[o.dtype] ?? o.dtype))),
  );
  for (const d of DTYPES) {
    assert.ok(inDtypes.has(d), `no case has a ${d} input`);
    assert.ok(outDtypes.has(d), `no case has a ${d} output`);
  }
}

/** Every attribute type, required and with a default; list defaults empty and not; enums and bounds. */
function coversEveryAttributeKind(ps: readonly SpecPlan[]): void {
  const attrs = ps.flatMap((p) => p.attrs);
  for (const t of ['bool', 'int', 'float', 'string', 'ints', 'floats'] as const) {
    assert.ok(
      attrs.some((a) => a.type === t && a.required),
      `no required ${t} attribute`,
    );
    assert.ok(
      attrs.some((a) => a.type === t && !a.required),
      `no ${t} attribute with a default`,
    );
  }
  for (const t of ['ints', 'floats'] as const) {
    assert.ok(
      attrs.some((a) => a.type === t && Array.isArray(a.default) && a.default.length === 0),
      `no ${t} with an empty default`,
    );
    assert.ok(
      attrs.some((a) => a.type === t && Array.isArray(a.default) && a.default.length > 0),
      `no ${t} with a non-empty default`,
    );
  }
  assert.ok(attrs.some((a) => a.type === 'string' && a.enum) && attrs.some((a) => a.type === 'int' && a.enum), 'enums');
  assert.ok(
    attrs.some((a) => a.type === 'float' && a.min !== undefined) &&
      attrs.some((a) => a.type === 'int' && a.min !== undefined),
    'bounds',
  );
  for (const t of ['int', 'float'] as const) {
    assert.ok(
      attrs.some((a) => a.type === t && a.minExclusive),
      `no ${t} attribute with an exclusive bound`,
    );
    assert.ok(
      attrs.some((a) => a.type === t && a.min !== undefined && !a.minExclusive),
      `no ${t} attribute with an inclusive bound`,
    );
  }
}

/** Optional inputs present and absent, shape-only and constrained inputs, every way of shaping an output, ranks 0 and 8. */
function coversInputsAndOutputShapes(ps: readonly SpecPlan[]): void {
  const cases = ps.flatMap((p) => p.tests.map((t) => ({ p, t })));
  assert.ok(
    cases.some(({ p, t }) => p.inputs.some((i) => i.optional && t.dims[i.name])),
    'an optional input present',
  );
  assert.ok(
    cases.some(({ p, t }) => p.inputs.some((i) => i.optional && !t.dims[i.name])),
    'an optional input absent',
  );
  assert.ok(
    ps.some((p) => p.inputs.some((i) => i.shapeOnly)),
    'shape_only',
  );
  assert.ok(
    ps.some((p) => p.inputs.some((i) => i.constraint.kind === 'dims' && i.constraint.dims.some((d) => d !== '?'))),
    'input dims constrained by expressions',
  );
  const outs = ps.flatMap((p) => p.outputs);
  assert.ok(
    outs.some((o) => o.shape.kind === 'like'),
    'output shaped like an input',
  );
  const exprs = outs.flatMap((o) => (o.shape.kind === 'dims' ? [JSON.stringify(o.shape.dims)] : []));
  assert.ok(
    exprs.some((e) => e.includes('"dim"') && /ceil_div|"\/\/"|max|min/.test(e)),
    'output shaped by expressions of inputs',
  );
  assert.ok(
    exprs.some((e) => e.includes('"attr"') && !e.includes('"dim"')),
    'output shaped by attributes only',
  );
  assert.ok(
    exprs.some((e) => e !== '[]' && !e.includes('"attr"') && !e.includes('"dim"')),
    'output shaped by constants',
  );
  assert.ok(exprs.includes('[]'), 'rank-0 output');
  assert.ok(
    cases.some(({ p, t }) => p.inputs.some((i) => t.dims[i.name]?.length === 8)),
    'rank-8 input',
  );
  assert.ok(
    cases.some(({ p, t }) => p.inputs.some((i) => t.dims[i.name]?.length === 0)),
    'rank-0 input',
  );
  assert.ok(
    ps.some((p) => new Set(p.outputs.map((o) => o.dtype)).size >= 2 && p.outputs.length >= 2),
    'several outputs of different dtypes',
  );
}

/** What a spec has beside its tensors: type variables, state, workspace, domain and version, YAML style, CUDA. */
function coversSpecLevelFeatures(ps: readonly SpecPlan[]): void {
  assert.ok(
    ps.some((p) => p.vars.length >= 3 && p.vars.slice(1).some((v) => v.dtypes.length > 1) && p.tests.length > 1),
    'three type variables',
  );
  assert.ok(ps.some((p) => p.state.length) && ps.some((p) => p.workspace), 'state and workspace');
  const workspaceText = (p: SpecPlan): string => JSON.stringify([p.workspace ?? null, p.lets.map((l) => l.e)]);
  assert.ok(
    ps.some(
      (p) => /"k":"sizeof","type":"[^"]*","input"/.test(workspaceText(p)) && p.vars.some((v) => v.dtypes.length > 1),
    ) && ps.some((p) => /"k":"sizeof","type":"[^"]*","bytes"/.test(workspaceText(p))),
    "sizeof() in workspaces: a type variable's of several dtypes, a dtype's",
  );
  const shapes = (p: SpecPlan): string => JSON.stringify([p.outputs.map((o) => o.shape), p.workspace ?? null]);
  assert.ok(
    ps.some((p) => /"k":"elem","name":"[^"]*","index":-/.test(shapes(p))) &&
      ps.some((p) => /"k":"elem","name":"[^"]*","index":\d/.test(shapes(p))) &&
      ps.some((p) => shapes(p).includes('"k":"len"')) &&
      ps.some((p) => p.tests.some((t) => p.attrs.some((a) => a.length !== undefined && a.name in t.attrs))) &&
      ps.some((p) =>
        p.tests.some((t) =>
          p.attrs.some((a) => a.longer !== undefined && (t.attrs[a.name] as number[] | undefined)?.length === a.longer),
        ),
      ),
    'list attributes of declared length: elements (from either end) and len() in shapes, values set by cases, a second length some case uses',
  );
  assert.ok(
    ps.some((p) => p.outputs.some((o) => JSON.stringify(o.shape).includes('"k":"let"'))) &&
      ps.some((p) => JSON.stringify(p.workspace ?? null).includes('"k":"let"')) &&
      ps.some((p) => p.lets.some((l) => JSON.stringify(l.e).includes('"k":"let"'))),
    'lets read by output dims, the workspace and later lets',
  );
  const has = (re: RegExp): boolean => ps.some((p) => re.test(shapes(p)));
  assert.ok(
    has(/"k":"cond","c":\{"k":"cmp"/) &&
      ['flag', 'is', 'not', 'logic'].every((k) =>
        ps.some((p) => JSON.stringify([p.outputs.map((o) => o.shape), p.checks]).includes(`"k":"${k}"`)),
      ) &&
      has(/"op":"%"/) &&
      has(/"k":"round","fn":"floor"/) &&
      has(/"k":"round","fn":"ceil"/) &&
      ps.some((p) => p.tests.some((t) => t.attrs.fscale === 0.3 || t.attrs.fscale === 0.1)),
    'conditions (comparisons, bool and string attributes, not/and/or), %, floor/ceil of a float attribute set to values with no exact binary form',
  );
  assert.ok(
    ps.filter((p) => p.checks.length).length >= 5 && ps.some((p) => p.checks.some((c) => c.message !== undefined)),
    'checks:, some with a message',
  );
  const outsText = (p: SpecPlan): string => JSON.stringify(p.outputs.map((o) => o.shape));
  assert.ok(
    ps.some((p) => outsText(p).includes('"k":"slice"')) &&
      ps.some((p) => /"k":"slice","input":"[^"]*","start":\{"k":"bin"/.test(outsText(p))) &&
      ps.some((p) => /"k":"dim","input":"[^"]*","axis":-/.test(outsText(p)) && p.inputs.some((i) => i.ranks)) &&
      ps.some((p) => p.checks.some((c) => JSON.stringify(c.c).includes('"k":"rank"'))) &&
      ps.some((p) => p.checks.some((c) => /"op":"==","l":\{"k":"slice"/.test(JSON.stringify(c.c)))),
    'rank-generic shapes: slices spliced into outputs (bounds of rank()), an input of several ranks indexed from the end, rank() and slice comparisons in checks',
  );
  const chosenSides = (p: SpecPlan): number =>
    Math.max(
      0,
      ...p.vars.map((v) =>
        v.choice
          ? new Set(
              p.tests.map((t) =>
                evalChoice(v.choice!, Object.fromEntries(p.attrs.map((a) => [a.name, t.attrs[a.name] ?? a.default!]))),
              ),
            ).size
          : 0,
      ),
    );
  assert.ok(
    ps.filter((p) => chosenSides(p) > 0).length >= 3 && ps.some((p) => chosenSides(p) >= 2),
    'output dtypes the attributes choose, some op with cases on both sides',
  );
  const readsOptional = (p: SpecPlan): string[] =>
    p.inputs
      .filter((i) => i.optional && p.checks.some((c) => JSON.stringify(c.c).includes(`"input":"${i.name}"`)))
      .map((i) => i.name);
  assert.ok(
    ps.some(
      (p) =>
        readsOptional(p).some((n) => p.tests.some((t) => !t.dims[n])) &&
        readsOptional(p).some((n) => p.tests.some((t) => t.dims[n])),
    ),
    'checks reading an optional input, with cases where it is present and absent',
  );
  coversPresence(ps);
  assert.ok(ps.some((p) => p.domain?.includes('.')) && ps.some((p) => p.version > 1), 'dotted domain, version > 1');
  assert.ok(ps.some((p) => p.flow) && ps.some((p) => !p.flow), 'flow and block dims lists');
  assert.ok(
    ps.some((p) => p.cuda),
    'CUDA kernels',
  );
}

/** Outputs the attributes leave out (`present:`), with cases on both sides. */
function coversPresence(ps: readonly SpecPlan[]): void {
  const presence = (p: SpecPlan): Set<number> =>
    new Set(
      p.tests.map(
        (t) =>
          p.outputs.filter(
            (o) =>
              !o.present ||
              evalCond(o.present, {}, Object.fromEntries(p.attrs.map((a) => [a.name, t.attrs[a.name] ?? a.default!]))),
          ).length,
      ),
    );
  assert.ok(
    ps.filter((p) => presence(p).size >= 2).length >= 3 &&
      ps.some((p) => p.outputs.filter((o) => o.present).length === 2 && presence(p).size === 3),
    'outputs the attributes leave out (`present:`), with cases on both sides; two such outputs with cases of 1, 2 and 3 outputs',
  );
}

/** The gradient ops and `snake:` overrides the corpus asks for are all generated, under the names given. */
function backwardsAndSnakeOverridesGenerated(ps: readonly SpecPlan[], grads: readonly SpecPlan[]): void {
  assert.ok(grads.length >= 4, `${grads.length} specs with a backward`);
  assert.ok(
    grads.some((p) => p.vars.length) && grads.some((p) => p.outputs.length > 1),
    'backward over type variables and several outputs',
  );
  assert.is(project.ops.length, ps.length + grads.length, 'every spec is valid and generated');
  for (const p of grads) assert.ok(project.ops.find((o) => o.name === p.name)!.backward, `${p.name} has its backward`);
  // `snake:` overrides (seeds = 3 mod 7): the op and its gradient op take the given forms everywhere.
  const renamed = ps.filter((p) => p.snake);
  assert.ok(renamed.length >= 4 && renamed.some((p) => gradPlan(p)), `${renamed.length} specs with snake:`);
  for (const p of renamed) {
    const op = project.ops.find((o) => o.name === p.name)!;
    assert.is(op.ident.snake, p.snake);
    assert.ok(existsSync(path.join(dir, 'out', 'include', 'opforge', 'ops', `${p.snake}.h`)), `${p.snake}.h`);
    if (gradPlan(p)) assert.is(project.ops.find((o) => o.name === `${p.name}Grad`)!.ident.snake, `${p.snake}_grad`);
  }
}

/** The ops that cannot train on CUDA are exactly those planned so, and `opforge check` warns once for each. */
function cudaTrainingGapsWarned(grads: readonly SpecPlan[]): void {
  // Ops that run on CUDA but cannot train there (seeds divisible by 3: their gradient op has no
  // CUDA kernel): `opforge check` warns once per op; the others' gradient ops have CUDA kernels.
  const gaps = cudaTrainingGaps({ ops: project.ops } as ProjectIR).map((g) => g.op);
  assert.equal(
    gaps,
    grads
      .filter((p) => p.cuda && !gradHasCuda(p))
      .map((p) => p.name)
      .sort(),
  );
  assert.ok(gaps.length >= 2 && grads.some((p) => gradHasCuda(p)), `${gaps.length} ops cannot train on CUDA`);
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
}

/**
 * Type variables mixing float and integer dtypes on inputs that take gradients, with and without
 * a backward, run in a float binding by some case: the grad column covers both (issue: no silent
 * zero gradient through an integer-capable op).
 */
function mixedVariablesReachFloatBindings(): void {
  const mixedCases = (withBackward: boolean) =>
    project.ops
      .filter((o) => !!o.backward === withBackward && o.typeVars.length)
      .flatMap((o) =>
        o.tests.filter((t) =>
          o.inputs.some(
            (i) =>
              i.type.kind === 'var' &&
              i.type.dtypes.some((d) => !DTYPE_INFO[d].isFloat) &&
              differentiableUnder(i, t.binding),
          ),
        ),
      );
  assert.ok(
    mixedCases(true).length >= 3 && mixedCases(false).length >= 3,
    `mixed float/integer variables in a float binding: ${mixedCases(true).length} cases with a backward, ${mixedCases(false).length} without`,
  );
}

test('the fixed corpus covers the spec space', () => {
  const ps = corpus.plans;
  assert.ok(ps.length >= 40);
  coversEveryDtype(ps);
  coversEveryAttributeKind(ps);
  coversInputsAndOutputShapes(ps);
  coversSpecLevelFeatures(ps);
  // Even seeds with a differentiable input and output also get a gradient op (render.ts, gradPlan).
  const grads = ps.filter((p) => gradPlan(p));
  backwardsAndSnakeOverridesGenerated(ps, grads);
  cudaTrainingGapsWarned(grads);
  mixedVariablesReachFloatBindings();
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
      o.inputs.some((i) => t.inputs.some((x) => x.name === i.name) && dtypeUnder(i.type, t.binding) === 'bfloat16') ||
      presentOutputs(o, t.attributes).some((x) => dtypeUnder(x.type, t.binding) === 'bfloat16');
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
    // paddle-grad: the cases of ops with a backward in which an input takes a gradient and an output carries one.
    const paddleGraded = project.ops
      .filter((o) => o.backward)
      .reduce(
        (n, o) =>
          n +
          o.tests.filter((t) =>
            o.inputs.some((i) => differentiableUnder(i, t.binding) && t.inputs.some((x) => x.name === i.name)),
          ).length,
        0,
      );
    for (const r of reports) {
      if (r.backend === 'paddle-grad')
        assert.ok(r.cases > 0 && r.cases <= paddleGraded, `paddle-grad: ${r.cases} of ${paddleGraded}`);
      // jax-grad: the graded cases whose outputs are not empty (an empty cotangent has nothing to check).
      else if (r.backend === 'jax-grad')
        assert.ok(r.cases > 0 && r.cases <= graded, `jax-grad: ${r.cases} of ${graded}`);
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
