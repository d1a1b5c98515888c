// What the spec-space corpus must contain, one family of features per function: a seed list
// (corpus.ts, FIXED_SEEDS) is a corpus only if checkCoverage passes on its plans and their IR.
// specspace.test.ts runs it on the fixed corpus; minimize.ts finds the cheapest seed list that
// passes, so a change to plan.ts that loses the last spec of a kind fails under the family's name.

import * as assert from 'uvu/assert';
import { differentiableUnder } from '../../generator/model/ir-helpers.js';
import type { OpIR, ProjectIR } from '../../generator/model/ir.js';
import { cudaTrainingGaps } from '../../generator/model/cuda-training.js';
import { DTYPES, DTYPE_INFO } from '../../generator/model/type-table.js';
import { VCOUNT, countKey, evalChoice, evalCond, type SpecPlan } from './plan.js';
import { gradHasCuda, gradPlan } from './render.js';

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
  coversVariadic(ps);
  coversVariadicOutputs(ps);
  assert.ok(
    ps.some((p) => p.outputs.some((o) => o.dataDim)),
    'a dim the kernel decides (data_dims)',
  );
  assert.ok(ps.some((p) => p.domain?.includes('.')) && ps.some((p) => p.version > 1), 'dotted domain, version > 1');
  assert.ok(ps.some((p) => p.flow) && ps.some((p) => !p.flow), 'flow and block dims lists');
  assert.ok(
    ps.some((p) => p.cuda),
    'CUDA kernels',
  );
}

/** Variadic inputs: min_count 1 and 2, cases of different member counts, count() in a check and in an output's dims. */
function coversVariadic(ps: readonly SpecPlan[]): void {
  const vs = ps.filter((p) => p.inputs.some((i) => i.variadic));
  const counts = (p: SpecPlan): Set<number> => {
    const v = p.inputs.find((i) => i.variadic)!;
    return new Set(p.tests.map((t) => t.dims[countKey(v.name)]![0]!));
  };
  assert.ok(
    vs.some((p) => p.inputs.some((i) => i.variadic?.min === 1)) &&
      vs.some((p) => p.inputs.some((i) => i.variadic?.min === 2)) &&
      vs.some((p) => counts(p).size >= 2) &&
      vs.some((p) => p.checks.some((c) => JSON.stringify(c.c).includes('"k":"count"'))) &&
      vs.some((p) => JSON.stringify(p.outputs.map((o) => o.shape)).includes('"k":"count"')),
    'variadic inputs: min_count 1 and 2, cases of different member counts, count() in a check and in output dims',
  );
  // Heterogeneous (`homogeneous: false`): a case whose members have different dtypes.
  assert.ok(
    vs.some((p) => p.tests.some((t) => Object.values(t.memberDtypes ?? {}).some((ds) => new Set(ds).size >= 2))),
    'heterogeneous variadic inputs: a case with members of different dtypes',
  );
}

/** Variadic outputs: one whose members' dims read `member`, with cases of different member counts. */
function coversVariadicOutputs(ps: readonly SpecPlan[]): void {
  const vs = ps.filter((p) => p.outputs.some((o) => o.variadic));
  const counts = (p: SpecPlan): Set<number> => new Set(p.tests.map((t) => Number(t.attrs[VCOUNT])));
  assert.ok(
    vs.some((p) => counts(p).size >= 2 && JSON.stringify(p.outputs.map((o) => o.shape)).includes('"k":"member"')),
    'variadic outputs: member in the dims, cases of different member counts',
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
function backwardsAndSnakeOverrides(ps: readonly SpecPlan[], grads: readonly SpecPlan[], ops: readonly OpIR[]): void {
  assert.ok(grads.length >= 4, `${grads.length} specs with a backward`);
  assert.ok(
    grads.some((p) => p.vars.length) && grads.some((p) => p.outputs.length > 1),
    'backward over type variables and several outputs',
  );
  assert.is(ops.length, ps.length + grads.length, 'every spec is valid and generated');
  for (const p of grads) assert.ok(ops.find((o) => o.name === p.name)!.backward, `${p.name} has its backward`);
  // `snake:` overrides (seeds = 3 mod 7): the op and its gradient op take the given forms everywhere.
  const renamed = ps.filter((p) => p.snake);
  assert.ok(renamed.length >= 4 && renamed.some((p) => gradPlan(p)), `${renamed.length} specs with snake:`);
  for (const p of renamed) {
    assert.is(ops.find((o) => o.name === p.name)!.ident.snake, p.snake);
    if (gradPlan(p)) assert.is(ops.find((o) => o.name === `${p.name}Grad`)!.ident.snake, `${p.snake}_grad`);
  }
}

/**
 * The ops that cannot train on CUDA (seeds divisible by 3: their gradient op has no CUDA kernel)
 * are exactly those planned so; some can. Their names, for the test of `opforge check`'s warnings.
 */
function cudaTrainingGapsPlanned(grads: readonly SpecPlan[], ops: readonly OpIR[]): string[] {
  const gaps = cudaTrainingGaps({ ops } as ProjectIR).map((g) => g.op);
  assert.equal(
    gaps,
    grads
      .filter((p) => p.cuda && !gradHasCuda(p))
      .map((p) => p.name)
      .sort(),
  );
  assert.ok(gaps.length >= 2 && grads.some((p) => gradHasCuda(p)), `${gaps.length} ops cannot train on CUDA`);
  return gaps;
}

/**
 * Type variables mixing float and integer dtypes on inputs that take gradients, with and without
 * a backward, run in a float binding by some case: the grad column covers both (no silent zero
 * gradient through an integer-capable op).
 */
function mixedVariablesReachFloatBindings(ops: readonly OpIR[]): void {
  const mixedCases = (withBackward: boolean) =>
    ops
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

/**
 * Every family above, on a corpus's plans and the IR of its specs (which include the gradient ops);
 * the ops that cannot train on CUDA, for the test of `opforge check`'s warnings.
 */
export function checkCoverage(ps: readonly SpecPlan[], ops: readonly OpIR[]): string[] {
  coversEveryDtype(ps);
  coversEveryAttributeKind(ps);
  coversInputsAndOutputShapes(ps);
  coversSpecLevelFeatures(ps);
  // Even seeds with a differentiable input and output also get a gradient op (render.ts, gradPlan).
  const grads = ps.filter((p) => gradPlan(p));
  backwardsAndSnakeOverrides(ps, grads, ops);
  const gaps = cudaTrainingGapsPlanned(grads, ops);
  mixedVariablesReachFloatBindings(ops);
  return gaps;
}
