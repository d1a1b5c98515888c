import type { KeyPath } from './diagnostics.js';
import { didYouMean, shown } from './diagnostics.js';
import type { AttrValue, AttributeIR, InputIR, TestCaseIR, TestInputIR, TypeVarIR } from './ir.js';
import { DTYPE_INFO, type DType } from './type-table.js';

import { checkAttrValue, normalizeAttrValue } from './build-attributes.js';
import { evalChoice } from './dtype-choice.js';
import type { ErrFn, RawTest, RawTestInput } from './build-ir.js';

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
    const given = t.inputs[inp.name];
    if (given === undefined) {
      if (!inp.optional) err([...p, 'inputs'], `missing input \`${inp.name}\``);
      continue;
    }
    // A variadic input's case lists its members; any other input's is one tensor.
    const listed = Array.isArray(given) && given.some((x) => typeof x !== 'number');
    if (inp.variadic && !listed) {
      err(
        [...p, 'inputs', inp.name],
        `\`${inp.name}\` is variadic: give its members as a list, one entry (dims or {shape, values, range}) per member`,
      );
      continue;
    }
    if (!inp.variadic && listed) {
      err(
        [...p, 'inputs', inp.name],
        `\`${inp.name}\` is one tensor, not variadic: give its dims or {shape, values, range}`,
      );
      continue;
    }
    const members = inp.variadic ? (given as RawTestInput[]) : [given as RawTestInput];
    if (inp.variadic && members.length < inp.variadic.min)
      err(
        [...p, 'inputs', inp.name],
        `\`${inp.name}\` takes at least ${inp.variadic.min} members (min_count), the test gives ${members.length}`,
      );
    members.forEach((v, m) => {
      const at: KeyPath = inp.variadic ? [...p, 'inputs', inp.name, m] : [...p, 'inputs', inp.name];
      const one = testInput(inp, v, at, err);
      if (one) testInputs.push(inp.variadic ? { ...one, member: m } : one);
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

function defaultRange(inp: InputIR, own: DType | undefined): [number, number] {
  const dt = inp.type.kind === 'fixed' ? inp.type.dtype : (own ?? inp.type.dtypes[0]!);
  if (dt === 'bool') return [0, 1];
  if (dt === 'uint8') return [0, 255];
  if (!DTYPE_INFO[dt].isFloat) return [-100, 100];
  return [-1, 1];
}

/** One tensor of a case (an input, or one member of a variadic input) checked against the input's rank. */
function testInput(inp: InputIR, v: RawTestInput, at: KeyPath, err: ErrFn): TestInputIR | undefined {
  const shape = Array.isArray(v) ? v : v.shape;
  const values = Array.isArray(v) ? undefined : v.values;
  const range = (Array.isArray(v) ? undefined : v.range) ?? defaultRange(inp, Array.isArray(v) ? undefined : v.dtype);
  const what = inp.variadic ? `member ${at[at.length - 1]} of input \`${inp.name}\`` : `input \`${inp.name}\``;
  if ((inp.rank !== null && shape.length !== inp.rank) || (inp.ranks && !inp.ranks.includes(shape.length)))
    err(at, `${what} has rank ${inp.rank ?? inp.ranks!.join(' or ')}, the test gives ${shape.length} dims`);
  const numel = shape.reduce((a, b) => a * b, 1);
  if (numel > 1 << 24) err(at, `test input has ${numel} elements; at most ${1 << 24}`);
  if (values !== undefined && values.length !== numel)
    err([...at, 'values'], `${values.length} values for a shape of ${numel} elements`);
  if (range[0] > range[1]) err([...at, 'range'], `range must be [low, high] with low <= high, got ${shown(range)}`);
  const given = Array.isArray(v) ? undefined : v.dtype;
  const tensor: TestInputIR = {
    name: inp.name,
    shape: [...shape],
    values: values ? [...values] : undefined,
    range: [range[0], range[1]],
  };
  if (inp.type.kind !== 'each') {
    if (given !== undefined)
      err(
        [...at, 'dtype'],
        `\`dtype: ${given}\`, but only a member of a heterogeneous variadic input (\`homogeneous: false\`) has a dtype of its own`,
      );
    return tensor;
  }
  if (given !== undefined && !inp.type.dtypes.includes(given))
    err([...at, 'dtype'], `${given} is not allowed for ${what} (${inp.type.typeVar}: ${inp.type.dtypes.join(', ')})`);
  return { ...tensor, dtype: given ?? inp.type.dtypes[0]! };
}
