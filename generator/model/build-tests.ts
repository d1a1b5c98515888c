import type { KeyPath } from './diagnostics.js';
import { didYouMean, shown } from './diagnostics.js';
import type { AttrValue, AttributeIR, InputIR, TestCaseIR, TestInputIR, TypeVarIR } from './ir.js';
import { DTYPE_INFO, type DType } from './type-table.js';

import { checkAttrValue, normalizeAttrValue } from './build-attributes.js';
import { evalChoice } from './dtype-choice.js';
import type { ErrFn, RawTest } from './build-ir.js';

export function buildTest(
  t: RawTest,
  i: number,
  inputs: readonly InputIR[],
  attributes: readonly AttributeIR[],
  typeVars: readonly TypeVarIR[],
  err: ErrFn,
): TestCaseIR {
  const p: KeyPath = ['tests', i];
  const vars: Record<string, DType> = {};
  for (const tv of typeVars) {
    const chosen = t.types?.[tv.name];
    if (tv.choice || !tv.dtypes.length) {
      // The attributes choose it (below), not the case.
      if (chosen !== undefined)
        err([...p, 'types', tv.name], `type variable \`${tv.name}\` is chosen by attributes; set them instead`, {
          at: 'key',
        });
      continue;
    }
    if (chosen !== undefined && !tv.dtypes.includes(chosen))
      err(
        [...p, 'types', tv.name],
        `${chosen} is not allowed for type variable \`${tv.name}\` (${tv.dtypes.join(', ')})`,
      );
    vars[tv.name] = chosen ?? tv.dtypes[0]!;
  }
  for (const k of Object.keys(t.types ?? {}))
    if (!typeVars.some((tv) => tv.name === k))
      err([...p, 'types', k], `unknown type variable \`${k}\``, {
        at: 'key',
        hint: didYouMean(
          k,
          typeVars.map((x) => x.name),
        ),
      });
  const testInputs: TestInputIR[] = [];
  for (const k of Object.keys(t.inputs))
    if (!inputs.some((x) => x.name === k))
      err([...p, 'inputs', k], `unknown input \`${k}\``, {
        at: 'key',
        hint: didYouMean(
          k,
          inputs.map((x) => x.name),
        ),
      });
  for (const inp of inputs) {
    const v = t.inputs[inp.name];
    if (v === undefined) {
      if (!inp.optional) err([...p, 'inputs'], `missing input \`${inp.name}\``);
      continue;
    }
    const shape = Array.isArray(v) ? v : v.shape;
    const values = Array.isArray(v) ? undefined : v.values;
    const range = (Array.isArray(v) ? undefined : v.range) ?? defaultRange(inp);
    if ((inp.rank !== null && shape.length !== inp.rank) || (inp.ranks && !inp.ranks.includes(shape.length)))
      err(
        [...p, 'inputs', inp.name],
        `input \`${inp.name}\` has rank ${inp.rank ?? inp.ranks!.join(' or ')}, the test gives ${shape.length} dims`,
      );
    const numel = shape.reduce((a, b) => a * b, 1);
    if (numel > 1 << 24) err([...p, 'inputs', inp.name], `test input has ${numel} elements; at most ${1 << 24}`);
    if (values !== undefined && values.length !== numel)
      err([...p, 'inputs', inp.name, 'values'], `${values.length} values for a shape of ${numel} elements`);
    if (range[0] > range[1])
      err([...p, 'inputs', inp.name, 'range'], `range must be [low, high] with low <= high, got ${shown(range)}`);
    testInputs.push({
      name: inp.name,
      shape: [...shape],
      values: values ? [...values] : undefined,
      range: [range[0], range[1]],
    });
  }
  const attrs: Record<string, AttrValue> = {};
  for (const [k, v] of Object.entries(t.attributes ?? {})) {
    const a = attributes.find((x) => x.name === k);
    if (!a) {
      err([...p, 'attributes', k], `unknown attribute \`${k}\``, {
        at: 'key',
        hint: didYouMean(
          k,
          attributes.map((x) => x.name),
        ),
      });
      continue;
    }
    const problem = checkAttrValue(v, a);
    if (problem) err([...p, 'attributes', k], problem);
    else attrs[k] = normalizeAttrValue(v, a.type);
  }
  const given = attributes.filter((a) => attrs[a.name] !== undefined).map((a) => a.name);
  for (const a of attributes) {
    if (attrs[a.name] !== undefined) continue;
    if (a.required) err([...p, 'attributes'], `missing required attribute \`${a.name}\``);
    else attrs[a.name] = a.default!;
  }
  for (const tv of typeVars)
    if (tv.choice && attributes.every((a) => attrs[a.name] !== undefined)) vars[tv.name] = evalChoice(tv.choice, attrs);
  const suffix = typeVars.map((tv) => DTYPE_INFO[vars[tv.name] ?? tv.dtypes[0] ?? 'float32'].short).join('_');
  return {
    index: i,
    binding: { vars, suffix },
    inputs: testInputs,
    attributes: attrs,
    given,
    rtol: t.rtol ?? 1e-5,
    atol: t.atol ?? 1e-6,
    seed: t.seed ?? 1000 + i,
  };
}

function defaultRange(inp: InputIR): [number, number] {
  const dt = inp.type.kind === 'fixed' ? inp.type.dtype : inp.type.dtypes[0]!;
  if (dt === 'bool') return [0, 1];
  if (dt === 'uint8') return [0, 255];
  if (!DTYPE_INFO[dt].isFloat) return [-100, 100];
  return [-1, 1];
}
