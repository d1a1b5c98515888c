// The rendered op's PyTorch reference: the same closed form in double precision.

import type { AttrType } from '../../generator/model/type-table.js';
import type { AttrValue, SpecPlan } from './plan.js';
import { COEF, choicePy, condPy, dimPy, num, q } from './render-common.js';

export function pyValue(type: AttrType, v: AttrValue): string {
  if (type === 'bool') return v ? 'True' : 'False';
  if (type === 'string') return q(v as string);
  if (type === 'float') return num(v as number);
  if (type === 'floats') return `[${(v as number[]).map(num).join(', ')}]`;
  return Array.isArray(v) ? `[${v.join(', ')}]` : String(v);
}

export function reference(p: SpecPlan): string {
  const params = p.inputs.map((i) => (i.optional ? `${i.name}=None` : i.name));
  const kw = p.attrs.map((a) => (a.required ? a.name : `${a.name}=${pyValue(a.type, a.default!)}`));
  const intAttr = p.attrs.find((a) => a.type === 'int');
  const stateLines = p.state.map((s) => {
    switch (s.type) {
      case 'int':
        return `    ${s.name} = (r * 7 + sum(dims)${intAttr ? ` + int(_enc_int(${intAttr.name}))` : ''}) % 89`;
      case 'float':
        return `    ${s.name} = 0.5 * r + 0.25`;
      case 'bool':
        return `    ${s.name} = r % 2 == 0`;
      case 'string':
        return `    ${s.name} = "q" * (r % 5 + 1)`;
      case 'ints':
        return `    ${s.name} = list(dims)`;
      case 'floats':
        return `    ${s.name} = [0.5 * d for d in dims]`;
    }
  });
  const ENC_PY: Record<AttrType, string> = {
    bool: '_enc_bool',
    int: '_enc_int',
    float: '_enc_float',
    string: '_enc_string',
    ints: '_enc_ints',
    floats: '_enc_floats',
  };
  const outs = p.outputs.map((o) => {
    const shape =
      o.shape.kind === 'like'
        ? `tuple(${o.shape.of}.shape)`
        : `(${o.shape.dims.map((d) => (d.k === 'slice' ? `*${dimPy(d)}` : dimPy(d))).join(', ')}${o.shape.dims.length === 1 ? ',' : ''})`;
    const varIn = p.inputs.find((i) => !i.optional && i.dtype === o.dtype);
    const choice = p.vars.find((v) => v.name === o.dtype)?.choice;
    const dtype = choice ? choicePy(choice) : varIn ? `${varIn.name}.dtype` : `torch.${o.dtype}`;
    const terms = p.inputs.map((inp, j) => {
      if (inp.shapeOnly) return `    v = v + 0.25 * _dimsum(${inp.name})`;
      if (inp.variadic)
        return `    for m, x in enumerate(${inp.name}_all):\n        v = _term(v, idx, ${num(o.weights[j]!)} * (m + 1), x)`;
      const t = `v = _term(v, idx, ${num(o.weights[j]!)}, ${inp.name})`;
      return inp.optional ? `    if ${inp.name} is not None:\n        v = v + 3.0\n        ${t}` : `    ${t}`;
    });
    const block = `    shape = ${shape}
    n = _numel(shape)
    idx = torch.arange(n, dtype=torch.int64)
    v = torch.full((n,), ${num(o.base)}, dtype=torch.float64)
    v = v + 0.25 * (idx % 7).to(torch.float64)
${terms.join('\n')}
    v = v + extra`;
    // A variadic output: its members in a list, member m's closed form plus m.
    // (member m of an output following a heterogeneous input: in the dtype of that input's member m)
    if (o.variadic)
      return `    # ${o.name}: ${o.variadic.count} members
    members = []
    for member in range(${o.variadic.count}):
${block.replace(/^/gm, '    ')}
        members.append(_store(v + member, ${o.variadic.follows ? `${o.variadic.follows}_all[member].dtype` : dtype}).reshape(shape))
    outs.append(members)`;
    return `    # ${o.name}
${block}
    outs.append(${o.dataDim ? `_kept(_store(v, ${dtype}), shape, ${o.dataDim.axis})` : `_store(v, ${dtype}).reshape(shape)`})`;
  });
  // Outputs the attributes leave out (`present:`) are not returned.
  const presence = p.outputs.some((o) => o.present)
    ? `    keep = [${p.outputs.map((o) => (o.present ? condPy(o.present) : 'True')).join(', ')}]\n    outs = [o for o, k in zip(outs, keep) if k]\n`
    : '';
  return `"""PyTorch reference of ${p.name} (spec-space seed ${p.seed}): the closed form its kernels compute."""
import torch

_WRAP = {torch.int8: (-128, 256), torch.uint8: (0, 256), torch.int32: (-2 ** 31, 2 ** 32)}


def _kept(flat, shape, axis):
    """A dim the kernel decides (data_dims): half its bound kept, the leading part of the closed form."""
    shape = list(shape)
    shape[axis] = shape[axis] // 2
    return flat[:_numel(shape)].reshape(shape)


def _f32(v):
    return float(torch.tensor(float(v), dtype=torch.float32))


def _scaled(fn, a, f):
    """floor or ceil of a * f, f as its float32, exactly (the spec's floor(d * f))."""
    import fractions
    import math

    x = fractions.Fraction(_f32(f)) * a
    return math.floor(x) if fn == "floor" else math.ceil(x)


def _enc_bool(v):
    return 1.0 if v else 0.0


def _enc_int(v):
    return float(int(v) % 97)


def _enc_float(v):
    return max(-64.0, min(64.0, _f32(v)))


def _enc_string(s):
    acc = 0
    for p, b in enumerate(s.encode("utf-8")):
        acc += (p + 1) * b
    return float(acc % 101)


def _enc_ints(xs):
    acc = 0
    for p, v in enumerate(xs):
        acc += (p + 1) * int(_enc_int(v))
    return float((acc + 3 * len(xs)) % 997)


def _enc_floats(xs):
    acc = 0.0
    for p, v in enumerate(xs):
        acc += float(p + 1) * _enc_float(v)
    return acc + 3.0 * len(xs)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _dimsum(t):
    if t is None:
        return 0.0
    return float(sum((d + 1) * n for d, n in enumerate(t.shape)) % 89)


def _term(v, idx, w, t):
    x = t.reshape(-1).to(torch.float64)
    if x.numel() == 0:
        return v
    return v + w * x[idx % x.numel()]


def _store(v, dtype):
    if dtype in (torch.float32, torch.float64):
        return v.to(dtype)
    if dtype in (torch.float16, torch.bfloat16):
        return v.to(torch.float32).to(dtype)
    u = torch.floor(v).to(torch.int64)
    if dtype == torch.bool:
        return (u % 2) == 1
    if dtype == torch.int64:
        return u
    lo, m = _WRAP[dtype]
    return ((u - lo) % m + lo).to(dtype)


def reference(${[...params, ...(kw.length ? ['*', ...kw] : [])].join(', ')}):
${p.inputs
  .filter((i) => i.variadic)
  .map(
    (i) => `    ${i.name}_all, ${i.name} = list(${i.name}), ${i.name}[0]  # the members; the first, which dims read\n`,
  )
  .join('')}    t = 0.0
${p.attrs.map((a, k) => `    t += ${num(COEF[k % 4]!)} * ${ENC_PY[a.type]}(${a.name})`).join('\n')}
    u = 0.0
${p.state.length ? `    dims = [int(d) for d in ${p.inputs[0]!.name}.shape]\n    r = len(dims)\n${stateLines.join('\n')}\n` : ''}${p.state.map((s, k) => `    u += ${num(COEF[(k + 1) % 4]!)} * ${ENC_PY[s.type]}(${s.type === 'float' ? s.name : s.type === 'floats' ? `[_f32(x) for x in ${s.name}]` : s.name})`).join('\n')}
    extra = t + u
    outs = []
${outs.join('\n')}
${presence}    return outs[0] if len(outs) == 1 else tuple(outs)
`;
}

// ---- the backward (even seeds): one gradient op for every differentiable input ----
// The closed form is linear in each input: out_o[i] += w_ok * x_k[i % n_k], so
// d x_k[j] = sum_o w_ok * sum_{i % n_k = j} g_o[i]. Odd seeds keep no backward (both kinds run).
