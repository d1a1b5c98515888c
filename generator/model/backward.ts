// A spec's `backward`, resolved against the project: each entry names another op (the gradient
// op) and binds its inputs to the forward's inputs, outputs and output gradients, its attributes
// to the forward's, and its outputs to the forward inputs whose gradients they are. Checked here,
// once every spec is loaded, so emitters read only indices (GradientIR) and can trust that every
// gradient has its input's dtype for every dtype binding of the forward, and its input's shape.

import type { Diagnostic, KeyPath } from './diagnostics.js';
import { didYouMean } from './diagnostics.js';
import type { RawGradient } from './build-ir.js';
import type { DType, GradSource, GradientIR, OpIR, TensorType, TypeBinding } from './ir.js';
import { differentiableUnder, dtypeUnder, trainingBindings } from './ir-helpers.js';

type Err = (p: KeyPath, message: string, opts?: { hint?: string | undefined; at?: 'key' | 'value' }) => void;

const GRAD = /^grad\(([A-Za-z_][A-Za-z0-9_]*)\)$/;

/** Resolves `raw` (the forward `op`'s backward) against `ops`; reports through err; undefined on any error. */
export function resolveBackward(
  op: OpIR,
  raw: readonly RawGradient[],
  ops: ReadonlyMap<string, OpIR>,
  err: Err,
  broken: ReadonlySet<string> = new Set(),
): GradientIR[] | undefined {
  let ok = true;
  const fail: Err = (p, m, o) => {
    ok = false;
    err(p, m, o);
  };
  /** Forward input index -> the gradient op output that gives its gradient (each given once). */
  const covered = new Map<number, string>();
  const out: GradientIR[] = [];
  raw.forEach((g, k) => {
    const p: KeyPath = ['backward', k];
    const grad = ops.get(g.op);
    if (g.op === op.name) {
      fail([...p, 'op'], `\`${op.name}\` cannot be its own gradient op: name another op of the project`);
      return;
    }
    if (!grad && broken.has(g.op)) {
      ok = false;
      return;
    } // its own spec's errors are reported
    if (!grad) {
      fail([...p, 'op'], `no op named \`${g.op}\` in this project`, { hint: didYouMean(g.op, [...ops.keys()]) });
      return;
    }
    const inputs = bindInputs(op, grad, g, p, fail);
    const attributes = bindAttributes(op, grad, g, p, fail);
    const outputs = bindOutputs(op, grad, g, p, covered, fail);
    // Dtypes and shapes are checked only over bindings that are all valid (any earlier entry's included).
    if (!ok) return;
    const entry: GradientIR = { op: grad.name, ident: grad.ident, inputs, attributes, outputs }; // the gradient op's own names (its `snake:` included)
    checkDtypes(op, grad, entry, p, fail);
    checkShapes(op, grad, entry, p, fail);
    out.push(entry);
  });
  op.inputs.forEach((x, i) => {
    if (x.differentiable && !covered.has(i) && ok) {
      fail(
        ['backward'],
        `input \`${x.name}\` is differentiable but no gradient op gives its gradient: map an output of a gradient op to it, or mark the input \`differentiable: false\``,
      );
    }
  });
  return ok ? out : undefined;
}

/**
 * The gradient op's inputs by index: every name is the gradient op's; every value a forward input,
 * output or grad(output).
 */
function bindInputs(op: OpIR, grad: OpIR, g: RawGradient, p: KeyPath, fail: Err): (GradSource | undefined)[] {
  const inputs: (GradSource | undefined)[] = grad.inputs.map(() => undefined);
  for (const [name, value] of Object.entries(g.inputs)) {
    const j = grad.inputs.findIndex((x) => x.name === name);
    if (j < 0) {
      fail([...p, 'inputs', name], `\`${g.op}\` has no input \`${name}\``, {
        at: 'key',
        hint: didYouMean(
          name,
          grad.inputs.map((x) => x.name),
        ),
      });
      continue;
    }
    const src = source(op, value);
    if (typeof src === 'string') {
      fail([...p, 'inputs', name], src);
      continue;
    }
    // A variadic input's members travel as one list: only into a variadic input of the gradient op.
    const variadic = src.kind === 'input' && !!op.inputs[src.index]!.variadic;
    if (variadic !== !!grad.inputs[j]!.variadic) {
      fail(
        [...p, 'inputs', name],
        variadic
          ? `\`${value}\` is variadic: bind it to a variadic input of \`${g.op}\` (\`${name}\` is one tensor)`
          : `\`${g.op}\`'s input \`${name}\` is variadic: bind it to a variadic input of \`${op.name}\``,
      );
      continue;
    }
    const heterogeneous = eachDtypesMissing(
      src.kind === 'input' ? op.inputs[src.index]!.type : undefined,
      grad.inputs[j]!.type,
    );
    if (heterogeneous) {
      fail([...p, 'inputs', name], `\`${value}\` is a heterogeneous variadic input: ${heterogeneous}`);
      continue;
    }
    inputs[j] = src;
  }
  grad.inputs.forEach((x, j) => {
    if (!inputs[j] && !x.optional)
      fail(
        [...p, 'inputs'],
        `\`${g.op}\`'s required input \`${x.name}\` is not bound: map it to an input, an output or grad(<output>) of \`${op.name}\``,
      );
  });
  return inputs;
}

/**
 * The forward attribute each gradient op attribute takes: explicit, else the forward attribute of
 * the same name, else (undefined) the gradient op's default.
 */
function bindAttributes(op: OpIR, grad: OpIR, g: RawGradient, p: KeyPath, fail: Err): (string | undefined)[] {
  const attributes: (string | undefined)[] = grad.attributes.map((a) =>
    op.attributes.some((f) => f.name === a.name && f.type === a.type) ? a.name : undefined,
  );
  for (const [name, from] of Object.entries(g.attributes ?? {})) {
    const j = grad.attributes.findIndex((a) => a.name === name);
    if (j < 0) {
      fail([...p, 'attributes', name], `\`${g.op}\` has no attribute \`${name}\``, {
        at: 'key',
        hint: didYouMean(
          name,
          grad.attributes.map((a) => a.name),
        ),
      });
      continue;
    }
    const f = op.attributes.find((a) => a.name === from);
    if (!f) {
      fail([...p, 'attributes', name], `\`${op.name}\` has no attribute \`${from}\``, {
        hint: didYouMean(
          from,
          op.attributes.map((a) => a.name),
        ),
      });
      continue;
    }
    if (f.type !== grad.attributes[j]!.type) {
      fail(
        [...p, 'attributes', name],
        `\`${op.name}\`.${from} is ${f.type}, \`${g.op}\`.${name} is ${grad.attributes[j]!.type}`,
      );
      continue;
    }
    attributes[j] = from;
  }
  grad.attributes.forEach((a, j) => {
    if (a.required && attributes[j] === undefined)
      fail(
        [...p, 'attributes'],
        `\`${g.op}\`'s required attribute \`${a.name}\` is not bound: map it to an attribute of \`${op.name}\``,
      );
  });
  return attributes;
}

/**
 * The forward input each gradient op output is the gradient of: a differentiable one, each input's
 * gradient given once across all the backward's entries (`covered`, which this adds to).
 */
function bindOutputs(
  op: OpIR,
  grad: OpIR,
  g: RawGradient,
  p: KeyPath,
  covered: Map<number, string>,
  fail: Err,
): (number | undefined)[] {
  const outputs: (number | undefined)[] = grad.outputs.map(() => undefined);
  for (const [name, target] of Object.entries(g.outputs)) {
    const j = grad.outputs.findIndex((x) => x.name === name);
    if (j < 0) {
      fail([...p, 'outputs', name], `\`${g.op}\` has no output \`${name}\``, {
        at: 'key',
        hint: didYouMean(
          name,
          grad.outputs.map((x) => x.name),
        ),
      });
      continue;
    }
    const i = op.inputs.findIndex((x) => x.name === target);
    if (i < 0) {
      fail(
        [...p, 'outputs', name],
        `\`${op.name}\` has no input \`${target}\` (outputs map to the input whose gradient they are)`,
        {
          hint: didYouMean(
            target,
            op.inputs.map((x) => x.name),
          ),
        },
      );
      continue;
    }
    if (!op.inputs[i]!.differentiable) {
      fail(
        [...p, 'outputs', name],
        `input \`${target}\` is not differentiable (integer, bool, shape_only or marked \`differentiable: false\`)`,
      );
      continue;
    }
    const prev = covered.get(i);
    if (prev) {
      fail([...p, 'outputs', name], `the gradient of \`${target}\` is already given by ${prev}`);
      continue;
    }
    covered.set(i, `\`${g.op}\`.${name}`);
    outputs[j] = i;
  }
  return outputs;
}

/** `name` or `grad(name)` against the forward op; a message when it names nothing usable. */
function source(op: OpIR, value: string): GradSource | string {
  const m = GRAD.exec(value);
  if (m) {
    const k = op.outputs.findIndex((o) => o.name === m[1]);
    if (k < 0)
      return `\`${value}\`: \`${op.name}\` has no output \`${m[1]}\` to take the gradient of${hintText(
        m[1]!,
        op.outputs.map((o) => o.name),
      )}`;
    if (!op.outputs[k]!.differentiable)
      return `\`${value}\`: output \`${m[1]}\` carries no gradient (integer, bool or marked \`differentiable: false\`)`;
    return { kind: 'grad', index: k };
  }
  const i = op.inputs.findIndex((x) => x.name === value);
  if (i >= 0) return { kind: 'input', index: i };
  const k = op.outputs.findIndex((o) => o.name === value);
  if (k >= 0 && op.outputs[k]!.present)
    return `\`${value}\` is present only where \`${op.outputs[k]!.present!.source}\` holds; a gradient op reads outputs that always are`;
  if (k >= 0) return { kind: 'output', index: k };
  return `\`${value}\` is not an input or output of \`${op.name}\` (or grad(<output>))${hintText(
    value,
    [...op.inputs, ...op.outputs].map((x) => x.name),
  )}`;
}

function hintText(name: string, names: string[]): string {
  const h = didYouMean(name, names);
  return h ? `; ${h}` : '';
}

/** The forward tensor a source stands for, its dtype under a forward binding. */
function sourceType(op: OpIR, s: GradSource): TensorType {
  return s.kind === 'input' ? op.inputs[s.index]!.type : op.outputs[s.index]!.type;
}

/**
 * For every dtype binding of the forward in which some input takes a gradient (a mixed type
 * variable's integer bindings need no backward): the gradient op's type variables follow from what
 * feeds its inputs, that binding must be one the gradient op has, and each gradient of an input
 * that is a float in it must have the input's dtype (a gradient for an integer input is dropped).
 */
function checkDtypes(op: OpIR, grad: OpIR, g: GradientIR, p: KeyPath, fail: Err): void {
  const seen = new Set<string>();
  for (const b of trainingBindings(op)) {
    const vars: Record<string, DType> = {};
    const problem = ((): string | undefined => {
      for (const [j, s] of g.inputs.entries()) {
        if (!s) continue;
        const from = sourceType(op, s);
        const t = grad.inputs[j]!.type;
        // Members of their own dtypes: eachDtypesMissing checked the gradient op allows them all.
        if (from.kind === 'each') continue;
        const d = dtypeUnder(from, b);
        if (t.kind === 'each') {
          if (!t.dtypes.includes(d))
            return `\`${grad.name}\`.${grad.inputs[j]!.name} allows ${t.dtypes.join(', ')}, it would get ${d}`;
          continue;
        }
        if (t.kind === 'fixed') {
          if (t.dtype !== d) return `\`${grad.name}\`.${grad.inputs[j]!.name} is ${t.dtype}, it would get ${d}`;
          continue;
        }
        if (vars[t.name] && vars[t.name] !== d)
          return `\`${grad.name}\`'s ${t.name} would be both ${vars[t.name]} and ${d}`;
        vars[t.name] = d;
      }
      // A variable no bound input fixes follows from the gradient it outputs.
      for (const [j, i] of g.outputs.entries()) {
        const t = grad.outputs[j]!.type;
        if (i !== undefined && t.kind === 'var' && !vars[t.name]) vars[t.name] = dtypeUnder(op.inputs[i]!.type, b);
      }
      for (const v of grad.typeVars) {
        if (!vars[v.name]) return `nothing bound fixes \`${grad.name}\`'s type variable ${v.name}`;
        if (!v.dtypes.includes(vars[v.name]!)) return `\`${grad.name}\` has no ${vars[v.name]} for ${v.name}`;
      }
      for (const [j, i] of g.outputs.entries()) {
        if (i === undefined || !differentiableUnder(op.inputs[i]!, b)) continue;
        const got = dtypeUnder(grad.outputs[j]!.type, { vars, suffix: '' } as TypeBinding);
        const want = dtypeUnder(op.inputs[i]!.type, b);
        if (got !== want)
          return `\`${grad.name}\`.${grad.outputs[j]!.name} would be ${got}, the gradient of \`${op.inputs[i]!.name}\` must be ${want}`;
      }
      return undefined;
    })();
    if (problem && !seen.has(problem)) {
      seen.add(problem);
      fail([...p, 'op'], `${problem} (when \`${op.name}\` runs with ${bindingText(b)})`);
    }
  }
}

function bindingText(b: TypeBinding): string {
  const vars = Object.entries(b.vars);
  return vars.length ? vars.map(([k, v]) => `${k}=${v}`).join(', ') : 'its fixed dtypes';
}

/** Each gradient's shape must provably be its input's: `shape: <a gradient-op input bound to that input or to a tensor shaped like it>`. */
function checkShapes(op: OpIR, grad: OpIR, g: GradientIR, p: KeyPath, fail: Err): void {
  // Inputs constrained `shape: <earlier input>` share that input's shape: compare their roots.
  const root = (i: number): number => {
    const c = op.inputs[i]!.constraint;
    return c.kind === 'like' ? root(c.inputIndex) : i;
  };
  const shapedLike = (s: GradSource | undefined, i: number): boolean => {
    if (!s) return false;
    if (s.kind === 'input') return root(s.index) === root(i);
    const o = op.outputs[s.index]!;
    return o.shape.kind === 'like' && root(o.shape.inputIndex) === root(i);
  };
  for (const [j, i] of g.outputs.entries()) {
    if (i === undefined) continue;
    const o = grad.outputs[j]!;
    if (o.shape.kind === 'like' && shapedLike(g.inputs[o.shape.inputIndex], i)) continue;
    const bound = grad.inputs.filter((_, k) => shapedLike(g.inputs[k], i)).map((x) => x.name);
    fail(
      [...p, 'outputs', o.name],
      `\`${grad.name}\`.${o.name} must have the shape of \`${op.inputs[i]!.name}\`: declare \`shape: ${bound[0] ?? `<an input bound to ${op.inputs[i]!.name}>`}\` in ${grad.name}'s spec`,
    );
  }
}

/** Resolves every op's backward in place; diagnostics for the specs that are wrong. */
export function resolveProjectBackward(
  ops: OpIR[],
  raws: ReadonlyMap<OpIR, RawGradient[]>,
  errAt: (
    op: OpIR,
    p: KeyPath,
    message: string,
    opts?: { hint?: string | undefined; at?: 'key' | 'value' },
  ) => Diagnostic,
  broken: ReadonlySet<string> = new Set(),
): Diagnostic[] {
  const byName = new Map(ops.map((o) => [o.name, o]));
  const diagnostics: Diagnostic[] = [];
  for (const op of ops) {
    const raw = raws.get(op);
    if (!raw) continue;
    op.backward = resolveBackward(op, raw, byName, (p, m, o) => diagnostics.push(errAt(op, p, m, o)), broken);
  }
  return diagnostics;
}

/**
 * A heterogeneous variadic input (each member its own dtype) binds only a heterogeneous variadic
 * input of the gradient op that allows each of its dtypes: what is wrong, or undefined.
 */
function eachDtypesMissing(from: TensorType | undefined, to: TensorType): string | undefined {
  if (from?.kind !== 'each') return undefined;
  if (to.kind !== 'each') return 'bind it to a variadic input of the gradient op with `homogeneous: false`';
  const missing = from.dtypes.filter((d) => !to.dtypes.includes(d));
  return missing.length ? `the gradient op's input does not allow ${missing.join(', ')}` : undefined;
}
