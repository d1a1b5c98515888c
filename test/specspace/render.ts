// Renders a spec-space plan (plan.ts) as a user would write it: the YAML spec, a shared
// closed-form header, the CPU kernel (with configure() when the op has state), the CUDA kernel
// and the PyTorch reference. Kernels and reference compute the same closed form in the same
// order in double precision, so integer and bool outputs must match exactly:
//   out_o[i] = base_o + 0.25 (i % 7) + sum_k [present_k] (3 + w_ok x_k[i % n_k])   (optional k)
//                                    + sum_k w_ok x_k[i % n_k]                     (required k)
//                                    + sum_k 0.25 dimsum(k)                        (shape-only k)
//              + (attribute term + state term)
// converted to the output dtype (16-bit floats via float32; integers floored and wrapped; bool:
// odd). Every attribute and state value enters the sum, so a wrong value shows in the output.

import { toSnake } from '../../generator/model/names.js';
import { type CasePlan, countKey, type DimE, type SpecPlan } from './plan.js';
import { choiceText, condText, dimText, dimsYaml, q, type RenderedSpec, yamlValue } from './render-common.js';
import { anyFloat, gradCpu, gradCuda, gradHasCuda, gradPlan, gradReference, gradYaml } from './render-grad.js';
import { cpuKernel, cudaKernel, formHeader } from './render-kernels.js';
import { reference } from './render-reference.js';

export type { RenderedSpec } from './render-common.js';
export { anyFloat, gradHasCuda, gradPlan } from './render-grad.js';

function specYaml(p: SpecPlan, snake: string): string {
  const L: string[] = [
    `# Spec-space op, seed ${p.seed} (test/specspace): a closed form of its inputs and attributes.`,
    `name: ${p.name}`,
  ];
  if (p.snake) L.push(`snake: ${p.snake}`);
  const g = gradPlan(p);
  if (p.domain) L.push(`domain: ${p.domain}`);
  L.push(`version: ${p.version}`);
  if (p.description) L.push(`description: ${q(p.description)}`);
  const each = p.inputs.flatMap((i) => (i.variadic?.each ? [i.variadic.each] : []));
  if (p.vars.length || each.length) {
    L.push('types:');
    for (const v of p.vars) L.push(`  ${v.name}: ${v.choice ? q(choiceText(v.choice)) : `[${v.dtypes.join(', ')}]`}`);
    for (const v of each) L.push(`  ${v.typeVar}: [${v.dtypes.join(', ')}]`);
  }
  L.push('inputs:');
  for (const i of p.inputs) {
    L.push(`  - name: ${i.name}`, `    dtype: ${i.dtype}`);
    if (i.constraint.kind === 'like') L.push(`    shape: ${i.constraint.of}`);
    else {
      if (i.ranks) L.push(`    rank: [${i.ranks.join(', ')}]`);
      else if (i.rank !== null && (i.constraint.kind === 'none' || p.seed % 2 === 0)) L.push(`    rank: ${i.rank}`);
      if (i.constraint.kind === 'dims') L.push(`    shape:${dimsYaml(i.constraint.dims, p.flow, '    ')}`);
    }
    if (i.optional) L.push('    optional: true');
    if (i.shapeOnly) L.push('    shape_only: true');
    if (i.variadic) L.push('    variadic: true', `    min_count: ${i.variadic.min}`);
    if (i.variadic?.each) L.push('    homogeneous: false');
    // With a backward, optional float inputs take no gradient (the gradient op reads only required ones).
    if (g && i.optional && anyFloat(p, i.dtype)) L.push('    differentiable: false');
  }
  L.push('outputs:');
  for (const o of p.outputs) {
    L.push(`  - name: ${o.name}`, `    dtype: ${o.dtype}`);
    // A data dim's entry is its name (a let-like reference prints as its name).
    const dims =
      o.shape.kind === 'dims' && o.dataDim
        ? o.shape.dims.map((d, a): DimE => (a === o.dataDim!.axis ? { k: 'let', name: o.dataDim!.name, e: d } : d))
        : undefined;
    L.push(
      o.shape.kind === 'like'
        ? `    shape: ${o.shape.of}`
        : `    shape:${dimsYaml(dims ?? o.shape.dims, p.flow, '    ')}`,
    );
    if (o.present) L.push(`    present: ${q(condText(o.present))}`);
    if (o.variadic) L.push(`    variadic: ${o.variadic.count}`, `    max_count: ${o.variadic.max}`);
  }
  const dd = p.outputs.find((o) => o.dataDim);
  if (dd?.dataDim && dd.shape.kind === 'dims')
    L.push('data_dims:', `  ${dd.dataDim.name}: ${q(dimText(dd.shape.dims[dd.dataDim.axis]!))}`);
  if (p.attrs.length) {
    L.push('attributes:');
    for (const a of p.attrs) {
      L.push(`  - name: ${a.name}`, `    type: ${a.type}`);
      if (a.required) L.push('    required: true');
      else L.push(`    default: ${yamlValue(a.type, a.default!)}`);
      if (a.enum) L.push(`    enum: [${a.enum.map((e) => (typeof e === 'string' ? q(e) : String(e))).join(', ')}]`);
      if (a.min !== undefined)
        L.push(a.minExclusive ? `    exclusive_min: ${a.type === 'int' ? a.min - 1 : a.min}` : `    min: ${a.min}`);
      if (a.max !== undefined) L.push(`    max: ${a.max}`);
      if (a.length !== undefined)
        L.push(`    length: ${a.longer === undefined ? a.length : `[${a.length}, ${a.longer}]`}`);
    }
  }
  if (p.state.length) {
    L.push('state:');
    for (const s of p.state) L.push(`  - { name: ${s.name}, type: ${s.type} }`);
  }
  if (p.workspace) L.push(`workspace: ${q(dimText(p.workspace))}`);
  if (p.lets.length) {
    L.push('let:');
    for (const l of p.lets) L.push(`  ${l.name}: ${q(dimText(l.e))}`);
  }
  if (p.checks.length) {
    L.push('checks:');
    for (const c of p.checks)
      L.push(
        c.message === undefined
          ? `  - ${q(condText(c.c))}`
          : `  - { check: ${q(condText(c.c))}, message: ${q(c.message)} }`,
      );
  }
  if (g) {
    L.push(
      'backward:',
      `  - op: ${g.name}`,
      `    inputs: { ${[...g.outs.map((o) => `g_${o.name}: grad(${o.name})`), ...g.ins.map((i) => `s_${i.name}: ${i.name}`)].join(', ')} }`,
      `    outputs: { ${g.ins.map((i) => `d_${i.name}: ${i.name}`).join(', ')} }`,
    );
  }
  L.push('kernels:', `  cpu: kernels/${snake}.cpp`);
  if (p.cuda) L.push(`  cuda: kernels/${snake}.cu`);
  L.push(`  reference: kernels/${snake}_ref.py`);
  if (p.tests.length) {
    L.push('tests:');
    for (const t of p.tests) L.push(...caseYaml(p, t));
  }
  return `${L.join('\n')}\n`;
}

function caseYaml(p: SpecPlan, t: CasePlan): string[] {
  const L = ['  - inputs:'];
  for (const i of p.inputs) {
    const d = t.dims[i.name];
    if (!d) continue;
    const shape = `[${d.join(', ')}]`;
    const one = t.values[i.name]
      ? `{ shape: ${shape}, values: [${t.values[i.name]!.join(', ')}] }`
      : t.ranges[i.name]
        ? `{ shape: ${shape}, range: [${t.ranges[i.name]!.join(', ')}] }`
        : shape;
    // A variadic input's members, each of its dims (random data differs from member to member);
    // a heterogeneous one's each with its dtype (values in that dtype's default range).
    const own = t.memberDtypes?.[i.name];
    if (own) L.push(`      ${i.name}: [${own.map((d) => `{ shape: ${shape}, dtype: ${d} }`).join(', ')}]`);
    else if (i.variadic) L.push(`      ${i.name}: [${Array(t.dims[countKey(i.name)]![0]).fill(one).join(', ')}]`);
    else L.push(`      ${i.name}: ${one}`);
  }
  if (Object.keys(t.types).length)
    L.push(
      `    types: { ${Object.entries(t.types)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')} }`,
    );
  const attrs = p.attrs.filter((a) => a.name in t.attrs);
  if (attrs.length) {
    L.push('    attributes:');
    for (const a of attrs) L.push(`      ${a.name}: ${yamlValue(a.type, t.attrs[a.name]!)}`);
  }
  if (t.rtol !== undefined) L.push(`    rtol: ${t.rtol}`);
  if (t.atol !== undefined) L.push(`    atol: ${t.atol}`);
  return L;
}

// ---- C++ ------------------------------------------------------------------------------

export function renderSpec(p: SpecPlan): RenderedSpec {
  const snake = p.snake ?? toSnake(p.name);
  const files: Record<string, string> = {
    [`${snake}.yaml`]: specYaml(p, snake),
    [`kernels/${snake}_form.h`]: formHeader(p, snake),
    [`kernels/${snake}.cpp`]: cpuKernel(p, snake),
    [`kernels/${snake}_ref.py`]: reference(p),
  };
  if (p.cuda) files[`kernels/${snake}.cu`] = cudaKernel(p, snake);
  const g = gradPlan(p);
  if (g) {
    files[`${snake}_grad.yaml`] = gradYaml(p, g, snake);
    files[`kernels/${snake}_grad.cpp`] = gradCpu(p, g, snake);
    if (gradHasCuda(p)) files[`kernels/${snake}_grad.cu`] = gradCuda(p, g, snake);
    files[`kernels/${snake}_grad_ref.py`] = gradReference(p, g);
  }
  return { snake, files };
}
