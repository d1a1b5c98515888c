// The spec space: a seeded generator of valid op specs covering what the schema allows (every
// dtype, every attribute type with and without defaults, required attributes, enums and bounds,
// optional and shape-only inputs, outputs shaped like an input / by input and attribute
// expressions / by attributes only / by constants, rank 0 to 8, several type variables, state,
// workspace, dotted domains, versions > 1) with test cases whose dims satisfy every constraint.
// render.ts turns a plan into the spec, a CPU and a CUDA kernel and a PyTorch reference that all
// compute one closed form of the inputs and attributes, so every backend has a reference.

import { DTYPES, DTYPE_INFO, type AttrType, type DType } from '../../generator/model/type-table.js';
import { rng } from '../helpers/references.js';
import { roundScaled } from '../../generator/model/expr.js';

export type DimE =
  | { k: 'int'; v: number }
  | { k: 'dim'; input: string; axis: number; rank: number }
  | { k: 'attr'; name: string }
  // Element `index` (negative: from the end) of an ints attribute of declared `length`; its count.
  | { k: 'elem'; name: string; index: number; length: number }
  | { k: 'len'; name: string }
  // A name of the spec's `let:` map, standing for `e`.
  | { k: 'let'; name: string; e: DimE }
  | { k: 'bin'; op: '+' | '-' | '*' | '//' | '%'; l: DimE; r: DimE }
  | { k: 'call'; fn: 'ceil_div' | 'max' | 'min'; a: DimE; b: DimE }
  // `a if c else b`; floor/ceil of scale * a float attribute (its float32, exactly).
  | { k: 'cond'; c: CondE; a: DimE; b: DimE }
  | { k: 'round'; fn: 'floor' | 'ceil'; scale: DimE; name: string }
  // rank(x); the dims x[start:end] (bounds of ints and ranks; null: missing): an entry of an
  // output's dims list, or one side of a check's == / != with another slice.
  | { k: 'rank'; input: string }
  // count(x): a variadic input's members (a case's dims record holds it as `x#count`: [n]).
  | { k: 'count'; input: string }
  // `member`: the index of a variadic output's member, in its shape (a case's dims record holds the
  // one being evaluated as `#member`: [m]).
  | { k: 'member' }
  | { k: 'slice'; input: string; start: DimE | null; end: DimE | null }
  // sizeof(type) in the workspace: a type variable (its elements' bytes as `input`, a tensor of that
  // type, holds them) or a dtype (`bytes`).
  | { k: 'sizeof'; type: string; input?: string; bytes?: number };

/** A dtype the attributes choose: a dtype, or `a if c else b` of choices (c reads attributes only). */
export type ChoiceE = { k: 'dtype'; d: DType } | { k: 'if'; c: CondE; a: ChoiceE; b: ChoiceE };

/** A condition: a comparison of dims, a bool attribute, a string attribute's value, not / and / or. */
export type CondE =
  | { k: 'cmp'; op: '==' | '!=' | '<' | '<=' | '>' | '>='; l: DimE; r: DimE }
  | { k: 'flag'; name: string }
  | { k: 'is'; name: string; value: string }
  | { k: 'not'; c: CondE }
  | { k: 'logic'; op: 'and' | 'or'; a: CondE; b: CondE };

export type AttrValue = boolean | number | string | number[];

export interface InPlan {
  name: string;
  /** A dtype or a type variable's name. */
  dtype: string;
  rank: number | null;
  constraint: { kind: 'none' } | { kind: 'like'; of: string } | { kind: 'dims'; dims: (DimE | '?')[] };
  optional: boolean;
  shapeOnly: boolean;
  /** `rank: [rank, rank + 1]` (widenRank): the spec lists two ranks, and the last case uses the higher. */
  ranks?: [number, number];
  /**
   * `variadic: true` with `min_count: min` (addVariadic): the last input, its members all of its
   * dims. `each`: `homogeneous: false`, over a type variable of its own (`typeVar`, not in `vars`),
   * each member of a case the dtype its `memberDtypes` gives.
   */
  variadic?: { min: number; each?: { typeVar: string; dtypes: DType[] } };
}

export interface AttrPlan {
  name: string;
  type: AttrType;
  required: boolean;
  default: AttrValue | undefined;
  enum: (string | number)[] | undefined;
  min: number | undefined;
  max: number | undefined;
  /** Read by dim expressions: small non-negative values (>= 1 when a divisor). */
  dim: boolean;
  /** A list's declared `length` (dim lists only: elements 1 to 4, read as a[i] and len(a)). */
  length?: number;
  /** A second count it may have (`length: [length, longer]`), which some case gives it. */
  longer?: number;
  /**
   * `min` is written `exclusive_min`: an int's `min: 1` as `exclusive_min: 0` (the same values), a
   * float's `min: 0` as `exclusive_min: 0` (values moved off 0). Decided from the values already
   * drawn, so the corpus draws what it drew before.
   */
  minExclusive?: boolean;
}

export interface OutPlan {
  name: string;
  dtype: string;
  shape: { kind: 'like'; of: string } | { kind: 'dims'; dims: DimE[] };
  /** Closed form: base + 0.25 (i % 7) + sum_k weights[k] x_k[i % n_k] + ... */
  base: number;
  /** Per input (0 for shape-only inputs, which add their dims instead). */
  weights: number[];
  /** The spec's `present:` condition over attributes (trailing outputs only; a later one implies the earlier). */
  present?: CondE;
  /** A dim the kernel decides (`data_dims`, addDataDims): `shape.dims[axis]` is its bound. */
  dataDim?: { name: string; axis: number };
  /**
   * A variadic output (addVariadicOutput): `count` members (an int attribute), at most `max`.
   * `follows`: its dtype is the heterogeneous variadic input's type variable (member m has the
   * dtype of that input's member m).
   */
  variadic?: { count: string; max: number; follows?: string };
}

export interface StatePlan {
  name: string;
  type: AttrType;
}

export interface CasePlan {
  types: Record<string, DType>;
  /** Attributes the case sets (the rest take their defaults). */
  attrs: Record<string, AttrValue>;
  /** Dims of every present input. */
  dims: Record<string, number[]>;
  /** Explicit values (bool inputs: random 0/1), else seeded random data in `range`. */
  values: Record<string, number[]>;
  ranges: Record<string, [number, number]>;
  /** A heterogeneous variadic input's members' dtypes, one per member. */
  memberDtypes?: Record<string, DType[]>;
  rtol: number | undefined;
  atol: number | undefined;
}

export interface SpecPlan {
  seed: number;
  name: string;
  /** The spec's `snake:` override (every seed = 3 mod 7; no random draw, so other seeds keep their plans). */
  snake: string | undefined;
  domain: string | undefined;
  version: number;
  description: string;
  /** Type variables; `choice`: the attributes choose it (`TSel: 'float16 if fsel else float32'`), outputs only. */
  vars: { name: string; dtypes: DType[]; choice?: ChoiceE }[];
  inputs: InPlan[];
  attrs: AttrPlan[];
  outputs: OutPlan[];
  state: StatePlan[];
  workspace: DimE | undefined;
  /** The `let:` map, in order (a let reads only earlier ones). */
  lets: { name: string; e: DimE }[];
  /** The spec's `checks:` (each holds in every case), with the spec's message where it has one. */
  checks: { c: CondE; message: string | undefined }[];
  /** How each dims list is written in YAML (flow lists with calls are what users write). */
  flow: boolean;
  cuda: boolean;
  tests: CasePlan[];
}

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
const int = (r: Rand, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const chance = (r: Rand, p: number): boolean => r() < p;

/** Strings that must survive C++, Python, TypeScript, ONNX and TensorRT intact. */
const STRINGS = [
  'plain',
  'a b',
  'quote"d',
  "it's",
  'back\\slash',
  'new\nline',
  '{{x}}',
  '$dollar',
  'tab\there',
  'ünï',
  '',
  'x'.repeat(40),
];
const NAME_STYLES = {
  in: ['x', 'in', 'data', 'Inp', 'tensor_', 'aB'],
  out: ['y', 'out', 'Res', 'val_'],
  attr: ['k', 'alpha', 'mode', 'padsList', 'use_', 'Beta'],
  state: ['s', 'cache', 'Memo'],
};
const WEIGHTS = [1, -1, 0.5, 2, -0.25, 0.125];

/** Value of a dim expression, or undefined on division by zero. */
export function evalDim(e: DimE, dims: Record<string, number[]>, attrs: Record<string, AttrValue>): number | undefined {
  switch (e.k) {
    case 'int':
      return e.v;
    case 'dim': {
      const d = dims[e.input]!;
      return d[e.axis < 0 ? d.length + e.axis : e.axis];
    }
    case 'attr':
      return attrs[e.name] as number;
    case 'elem': {
      const v = attrs[e.name] as number[];
      return v[e.index < 0 ? v.length + e.index : e.index];
    }
    case 'len':
      return (attrs[e.name] as number[]).length;
    case 'let':
      return evalDim(e.e, dims, attrs);
    case 'bin': {
      const a = evalDim(e.l, dims, attrs),
        b = evalDim(e.r, dims, attrs);
      if (a === undefined || b === undefined) return undefined;
      if (e.op === '//') return b === 0 ? undefined : Math.floor(a / b);
      if (e.op === '%') return b === 0 ? undefined : a - b * Math.floor(a / b);
      return e.op === '+' ? a + b : e.op === '-' ? a - b : a * b;
    }
    case 'call': {
      const a = evalDim(e.a, dims, attrs),
        b = evalDim(e.b, dims, attrs);
      if (a === undefined || b === undefined) return undefined;
      if (e.fn === 'ceil_div') return b === 0 ? undefined : -Math.floor(-a / b);
      return e.fn === 'max' ? Math.max(a, b) : Math.min(a, b);
    }
    case 'cond': {
      const c = evalCond(e.c, dims, attrs);
      return c === undefined ? undefined : evalDim(c ? e.a : e.b, dims, attrs);
    }
    case 'round': {
      const a = evalDim(e.scale, dims, attrs);
      return a === undefined ? undefined : roundScaled(e.fn, a, attrs[e.name] as number);
    }
    case 'rank':
      return dims[e.input]!.length;
    case 'count':
      return dims[countKey(e.input)]![0];
    case 'member':
      return dims[MEMBER_KEY]?.[0] ?? 0;
    case 'slice':
      return undefined;
    case 'sizeof':
      // The largest a type variable may give: only the workspace reads it, whose sign is all that matters here.
      return e.bytes ?? 8;
  }
}

/** The dims a slice takes (Python's bounds), undefined outside its input's dims. */
export function evalSliceDims(
  e: Extract<DimE, { k: 'slice' }>,
  dims: Record<string, number[]>,
  attrs: Record<string, AttrValue>,
): number[] | undefined {
  const d = dims[e.input]!;
  const bound = (b: DimE | null, missing: number): number | undefined => {
    if (b === null) return missing;
    const v = evalDim(b, dims, attrs);
    return v === undefined ? undefined : v < 0 ? d.length + v : v;
  };
  const a = bound(e.start, 0);
  const z = bound(e.end, d.length);
  if (a === undefined || z === undefined || a < 0 || z > d.length || z < a) return undefined;
  return d.slice(a, z);
}

/** An output's dims (slices spliced in); undefined entries where an expression divides by zero or a slice is outside. */
export function evalDims(
  list: readonly DimE[],
  dims: Record<string, number[]>,
  attrs: Record<string, AttrValue>,
): (number | undefined)[] {
  return list.flatMap((e) =>
    e.k === 'slice' ? (evalSliceDims(e, dims, attrs) ?? [undefined]) : [evalDim(e, dims, attrs)],
  );
}

/** Value of a condition, or undefined on division by zero. */
export function evalCond(
  c: CondE,
  dims: Record<string, number[]>,
  attrs: Record<string, AttrValue>,
): boolean | undefined {
  switch (c.k) {
    case 'cmp': {
      if (c.l.k === 'slice' && c.r.k === 'slice') {
        const [x, y] = [evalSliceDims(c.l, dims, attrs), evalSliceDims(c.r, dims, attrs)];
        if (!x || !y) return false;
        return (c.op === '==') === (x.length === y.length && x.every((v, k) => v === y[k]));
      }
      const a = evalDim(c.l, dims, attrs),
        b = evalDim(c.r, dims, attrs);
      if (a === undefined || b === undefined) return undefined;
      return { '==': a === b, '!=': a !== b, '<': a < b, '<=': a <= b, '>': a > b, '>=': a >= b }[c.op];
    }
    case 'flag':
      return attrs[c.name] === true;
    case 'is':
      return attrs[c.name] === c.value;
    case 'not': {
      const x = evalCond(c.c, dims, attrs);
      return x === undefined ? undefined : !x;
    }
    case 'logic': {
      const a = evalCond(c.a, dims, attrs);
      if (a === undefined) return undefined;
      if (c.op === 'and' ? !a : a) return a;
      return evalCond(c.b, dims, attrs);
    }
  }
}

interface Scope {
  inputs: InPlan[];
  dimAttrs: AttrPlan[];
  divisorAttrs: AttrPlan[];
}

function atom(r: Rand, s: Scope): DimE {
  const indexable = s.inputs.filter((i) => i.rank !== null && i.rank > 0);
  const roll = r();
  if (indexable.length && roll < 0.6) {
    const i = pick(r, indexable);
    const axis = int(r, 0, i.rank! - 1);
    return { k: 'dim', input: i.name, axis: chance(r, 0.3) ? axis - i.rank! : axis, rank: i.rank! };
  }
  if (s.dimAttrs.length && roll < 0.8) return { k: 'attr', name: pick(r, s.dimAttrs).name };
  return { k: 'int', v: int(r, 1, 4) };
}

function divisor(r: Rand, s: Scope): DimE {
  return s.divisorAttrs.length && chance(r, 0.4)
    ? { k: 'attr', name: pick(r, s.divisorAttrs).name }
    : { k: 'int', v: int(r, 1, 3) };
}

/** A dim expression over the scope; depth-limited. Divisors are positive constants or attributes >= 1. */
function dimExpr(r: Rand, s: Scope, depth = 0): DimE {
  if (depth >= 2 || chance(r, 0.45)) return atom(r, s);
  const roll = r();
  if (roll < 0.2) return { k: 'call', fn: 'ceil_div', a: dimExpr(r, s, depth + 1), b: divisor(r, s) };
  if (roll < 0.35) return { k: 'bin', op: '//', l: dimExpr(r, s, depth + 1), r: divisor(r, s) };
  if (roll < 0.5)
    return {
      k: 'call',
      fn: pick(r, ['max', 'min'] as const),
      a: dimExpr(r, s, depth + 1),
      b: dimExpr(r, s, depth + 1),
    };
  // `a - b` may go negative: the case generator retries such draws; max(.., 0) keeps most valid.
  if (roll < 0.6)
    return {
      k: 'call',
      fn: 'max',
      a: { k: 'bin', op: '-', l: dimExpr(r, s, depth + 1), r: atom(r, s) },
      b: { k: 'int', v: 0 },
    };
  return { k: 'bin', op: pick(r, ['+', '*'] as const), l: dimExpr(r, s, depth + 1), r: dimExpr(r, s, depth + 1) };
}

function attrPlan(r: Rand, name: string, type: AttrType): AttrPlan {
  const a: AttrPlan = {
    name,
    type,
    required: chance(r, 0.2),
    default: undefined,
    enum: undefined,
    min: undefined,
    max: undefined,
    dim: false,
  };
  switch (type) {
    case 'bool':
      a.default = chance(r, 0.5);
      break;
    case 'int':
      if (chance(r, 0.3))
        a.enum = pick(r, [
          [0, 1],
          [1, 2, 4],
          [-3, 7, 2147483647],
        ]);
      else if (chance(r, 0.5)) {
        a.min = int(r, -5, 1);
        a.max = pick(r, [a.min + 9, 2147483647]);
      }
      a.default = a.enum ? pick(r, a.enum) : a.min !== undefined ? int(r, a.min, a.min + 9) : int(r, -20, 20);
      if (a.min === 1 && !a.dim) a.minExclusive = true;
      break;
    case 'float':
      if (chance(r, 0.4)) {
        a.min = pick(r, [-1, 0, 0.5]);
        a.max = a.min + pick(r, [1, 10, 100.5]);
      }
      a.default = a.min !== undefined ? a.min + 0.25 * int(r, 0, 4) : pick(r, [0, 1, -2.5, 0.1, 1e-3, 3.0e38]);
      if (a.min === 0) {
        a.minExclusive = true;
        if (a.default === 0) a.default = 0.25;
      }
      break;
    case 'string':
      if (chance(r, 0.5)) a.enum = [...new Set([pick(r, STRINGS), pick(r, STRINGS), 'plain'])];
      a.default = a.enum ? pick(r, a.enum) : pick(r, STRINGS);
      break;
    case 'ints':
      if (chance(r, 0.3)) {
        a.min = 0;
        a.max = 100;
      }
      a.default = pick(r, [[], [1], [3, 0, 2], [100, 7]]);
      break;
    case 'floats':
      if (chance(r, 0.3)) {
        a.min = -2;
        a.max = 2;
      }
      a.default = pick(r, [[], [1.0], [0.5, -0.25], [1.5, 2, 0.1]]);
      break;
  }
  if (a.required) a.default = undefined;
  return a;
}

/** A value the attribute accepts, different from its default where it can be. */
function attrValue(r: Rand, a: AttrPlan): AttrValue {
  if (a.enum) return pick(r, a.enum);
  const lo = a.min ?? -50,
    hi = a.max ?? 50;
  switch (a.type) {
    case 'bool':
      return chance(r, 0.5);
    case 'int':
      return a.dim
        ? int(r, Math.max(lo, a.min ?? 0), Math.min(hi, 4))
        : chance(r, 0.1) && a.max === undefined
          ? 2147483647
          : int(r, lo, Math.min(hi, lo + 100));
    case 'float':
      return chance(r, 0.15) && a.max === undefined
        ? pick(r, [-3.0e38, 1e-7, 0.3])
        : Math.min(hi, lo + 0.125 * (int(r, 0, 16 * 8) || (a.minExclusive ? 1 : 0)));
    case 'string':
      return pick(r, STRINGS);
    case 'ints':
      if (a.length !== undefined) return Array.from({ length: a.length }, () => int(r, 1, 4));
      return Array.from({ length: int(r, 0, 4) }, () => int(r, Math.max(lo, -9), Math.min(hi, 30)));
    case 'floats':
      return Array.from({ length: int(r, 0, 4) }, () =>
        Math.max(lo, Math.min(hi, pick(r, [0.5, -1.25, 2, 0.1, 1.75]))),
      );
  }
}

function dtypeOf(t: string, vars: SpecPlan['vars'], types: Record<string, DType>): DType {
  return vars.some((v) => v.name === t) ? types[t]! : (t as DType);
}

const numel = (d: number[]): number => d.reduce((a, b) => a * b, 1);

/** Draws a test case whose dims satisfy every constraint, or undefined when the draws keep failing. */
function drawCase(r: Rand, p: SpecPlan, opt: 'present' | 'absent' | 'random', rList: Rand): CasePlan | undefined {
  for (let tries = 0; tries < 60; tries++) {
    const types = Object.fromEntries(p.vars.map((v) => [v.name, pick(r, v.dtypes)]));
    const attrs: Record<string, AttrValue> = {};
    for (const a of p.attrs)
      if (a.length !== undefined) {
        if (chance(rList, 0.7)) attrs[a.name] = attrValue(rList, a);
      } else if (a.required || a.dim || chance(r, 0.5))
        attrs[a.name] = a.dim && !a.required && chance(r, 0.3) ? a.default! : attrValue(r, a);
    const full = Object.fromEntries(p.attrs.map((a) => [a.name, attrs[a.name] ?? a.default!]));
    const dims: Record<string, number[]> = {};
    let ok = true;
    for (const i of p.inputs) {
      if (i.optional && (opt === 'absent' || (opt === 'random' && chance(r, 0.5)))) continue;
      const small = (rank: number) =>
        Array.from({ length: rank }, () =>
          rank >= 5 ? int(r, 1, 2) : chance(r, 0.06) && !i.optional ? 0 : int(r, 1, 4),
        );
      if (i.constraint.kind === 'like') dims[i.name] = [...dims[i.constraint.of]!];
      else if (i.constraint.kind === 'dims') {
        const d = i.constraint.dims.map((e) => (e === '?' ? int(r, 1, 4) : evalDim(e, dims, full)));
        if (d.some((x) => x === undefined || x < 0 || x > 12)) {
          ok = false;
          break;
        }
        dims[i.name] = d as number[];
      } else dims[i.name] = small(i.rank ?? int(r, 0, 3));
      if (i.optional && numel(dims[i.name]!) === 0) {
        ok = false;
        break;
      } // absent vs empty: kernels see data == nullptr for both
    }
    if (!ok) continue;
    for (const o of p.outputs) {
      if (o.shape.kind === 'like') continue;
      const d = evalDims(o.shape.dims, dims, full);
      if (d.some((x) => x === undefined || x < 0) || numel(d as number[]) > 4096) {
        ok = false;
        break;
      }
    }
    if (p.workspace) {
      const w = evalDim(p.workspace, dims, full);
      if (w === undefined || w < 0) ok = false;
    }
    if (!ok) continue;
    const values: Record<string, number[]> = {};
    const ranges: Record<string, [number, number]> = {};
    for (const i of p.inputs) {
      if (!dims[i.name] || i.shapeOnly) continue;
      const dt = dtypeOf(i.dtype, p.vars, types);
      if (dt === 'bool') values[i.name] = Array.from({ length: numel(dims[i.name]!) }, () => int(r, 0, 1));
      else if (dt === 'uint8') ranges[i.name] = [0, 200];
      else if (dt === 'int8') ranges[i.name] = [-100, 100];
    }
    const outDtypes = p.outputs.map((o) => dtypeOf(o.dtype, p.vars, types));
    const half = outDtypes.some((d) => d === 'float16' || d === 'bfloat16');
    return { types, attrs, dims, values, ranges, rtol: half ? 1e-2 : undefined, atol: half ? 1e-2 : undefined };
  }
  return undefined;
}

// planSpec draws in a fixed order from one generator per seed: the helpers below are its steps,
// called in that order, so a seed's plan never changes (move a draw and every seed's plan does).

/** Type variables, each over 1 to 3 dtypes, with at most 8 combinations in all (each is a build). */
function planVars(r: Rand): SpecPlan['vars'] {
  const nVars = pick(r, [0, 0, 1, 1, 1, 2, 3]);
  const vars: SpecPlan['vars'] = [];
  let combos = 1;
  for (let v = 0; v < nVars; v++) {
    const n = Math.min(int(r, 1, 3), Math.floor(8 / combos));
    if (n < 1) break;
    const dtypes = [...DTYPES].sort(() => r() - 0.5).slice(0, n);
    vars.push({ name: pick(r, ['T', 'U', 'TIdx', 'V_']) + v, dtypes });
    combos *= n;
  }
  return vars;
}

/** Attributes of every type, and sometimes one that shape expressions read. */
function planAttrs(r: Rand): AttrPlan[] {
  const nAttrs = pick(r, [0, 1, 2, 3, 4, 6]);
  const attrs: AttrPlan[] = [];
  for (let a = 0; a < nAttrs; a++)
    attrs.push(
      attrPlan(
        r,
        `${pick(r, NAME_STYLES.attr)}${a}`,
        pick(r, ['bool', 'int', 'float', 'string', 'ints', 'floats', 'int'] as const),
      ),
    );
  // Attributes that shape expressions read: small, non-negative; some are divisors (>= 1).
  if (chance(r, 0.6)) {
    const divisorAttr = chance(r, 0.5);
    const a: AttrPlan = {
      name: `${pick(r, ['n', 'num_', 'size'])}${attrs.length}`,
      type: 'int',
      required: chance(r, 0.25),
      default: undefined,
      enum: undefined,
      min: divisorAttr ? 1 : 0,
      max: 6,
      dim: true,
    };
    if (!a.required) a.default = int(r, a.min!, 4);
    attrs.push(a);
  }
  return attrs;
}

/**
 * Required inputs, then optional ones; each required input binds the first variable no earlier one
 * binds. Dims are free, like an earlier required input's, or expressions of those and the dim attributes.
 */
function planInputs(r: Rand, vars: SpecPlan['vars'], scope: Scope): InPlan[] {
  const nReq = pick(r, [1, 1, 2, 2, 3, 4]);
  const nOpt = pick(r, [0, 0, 0, 1, 2]);
  const inputs: InPlan[] = [];
  for (let k = 0; k < nReq + nOpt; k++) {
    const optional = k >= nReq;
    const unbound = vars.find((v) => !inputs.some((i) => !i.optional && i.dtype === v.name));
    const dtype =
      !optional && unbound ? unbound.name : vars.length && chance(r, 0.5) ? pick(r, vars).name : pick(r, DTYPES);
    const rank = pick(r, [null, 0, 1, 1, 2, 2, 3, 4, 8]);
    const inp: InPlan = {
      name: `${pick(r, NAME_STYLES.in)}${k}`,
      dtype,
      rank,
      constraint: { kind: 'none' },
      optional,
      shapeOnly: k > 0 && chance(r, 0.15),
    };
    if (optional) inp.shapeOnly = false; // the validator rejects optional shape-only inputs
    const earlier = scope.inputs.filter((i) => !i.optional);
    if (earlier.length && chance(r, 0.25)) {
      const of = pick(r, earlier);
      inp.constraint = { kind: 'like', of: of.name };
      inp.rank = of.rank;
    } else if (rank !== null && rank > 0 && rank < 5 && chance(r, 0.35)) {
      inp.constraint = {
        kind: 'dims',
        dims: Array.from({ length: rank }, () => (chance(r, 0.5) ? '?' : dimExpr(r, scope))),
      };
    }
    inputs.push(inp);
    if (!optional) scope.inputs.push(inp);
  }
  return inputs;
}

/** The variables some required input binds; inputs typed by another take its first dtype instead. */
function dropUnboundVars(vars: SpecPlan['vars'], inputs: InPlan[]): SpecPlan['vars'] {
  // A variable no required input binds (more variables than required inputs) is dropped.
  const usedVars = vars.filter((v) => inputs.some((i) => !i.optional && i.dtype === v.name));
  for (const i of inputs) {
    const v = vars.find((x) => x.name === i.dtype);
    if (v && !usedVars.includes(v)) i.dtype = v.dtypes[0]!;
  }
  return usedVars;
}

/** An output's shape: like a required input, of dim attributes, constants (rank 0 and 8 among them), or expressions. */
function planOutputShape(r: Rand, inputs: InPlan[], scope: Scope): OutPlan['shape'] {
  const roll = r();
  const req = inputs.filter((i) => !i.optional);
  if (roll < 0.3) return { kind: 'like', of: pick(r, req).name };
  if (roll < 0.45 && scope.dimAttrs.length)
    return {
      kind: 'dims',
      dims: Array.from({ length: int(r, 1, 2) }, () =>
        chance(r, 0.7) ? { k: 'attr', name: pick(r, scope.dimAttrs).name } : { k: 'int', v: int(r, 1, 3) },
      ),
    };
  if (roll < 0.55)
    return {
      kind: 'dims',
      dims: chance(r, 0.4)
        ? []
        : chance(r, 0.3)
          ? Array.from({ length: 8 }, () => ({ k: 'int', v: int(r, 1, 2) }))
          : [
              { k: 'int', v: int(r, 1, 5) },
              { k: 'int', v: 2 },
            ],
    };
  return { kind: 'dims', dims: Array.from({ length: int(r, 0, 3) }, () => dimExpr(r, scope)) };
}

/** 1 to 3 outputs, each a weighted sum of the inputs (shape-only inputs weigh 0) plus its base. */
function planOutputs(r: Rand, inputs: InPlan[], usedVars: SpecPlan['vars'], scope: Scope): OutPlan[] {
  const nOut = pick(r, [1, 1, 1, 2, 3]);
  const outputs: OutPlan[] = [];
  for (let k = 0; k < nOut; k++) {
    const shape = planOutputShape(r, inputs, scope);
    const dtype = usedVars.length && chance(r, 0.6) ? pick(r, usedVars).name : pick(r, DTYPES);
    outputs.push({
      name: `${pick(r, NAME_STYLES.out)}${k}`,
      dtype,
      shape,
      base: k + 1,
      weights: inputs.map((i) => (i.shapeOnly ? 0 : pick(r, WEIGHTS))),
    });
  }
  return outputs;
}

/** Sometimes state entries; sometimes a workspace whose size is an expression (8 * atom + 16). */
function planStateAndWorkspace(r: Rand, scope: Scope): { state: StatePlan[]; workspace: DimE | undefined } {
  const state: StatePlan[] = chance(r, 0.25)
    ? Array.from({ length: int(r, 1, 3) }, (_, k) => ({
        name: `${pick(r, NAME_STYLES.state)}${k}`,
        type: pick(r, ['bool', 'int', 'float', 'string', 'ints', 'floats'] as const),
      }))
    : [];
  const workspace = chance(r, 0.2)
    ? ({
        k: 'bin',
        op: '+',
        l: { k: 'bin', op: '*', l: atom(r, scope), r: { k: 'int', v: 8 } },
        r: { k: 'int', v: 16 },
      } as DimE)
    : undefined;
  return { state, workspace };
}

/**
 * Sometimes an `ints` attribute with a declared length, whose elements (a[i], negative i too) and
 * len(a) some output dims and the workspace read. Drawn from a generator of its own after the rest
 * of the plan, so seeds that draw none keep the plans they had before list attributes existed.
 */
function addListAttr(r: Rand, p: SpecPlan): void {
  if (!chance(r, 0.35)) return;
  const length = int(r, 1, 3);
  const a: AttrPlan = {
    name: `${pick(r, ['win', 'strides_', 'Ks'])}${p.attrs.length}`,
    type: 'ints',
    required: false,
    default: Array.from({ length }, () => int(r, 1, 4)),
    enum: undefined,
    min: 1,
    max: 4,
    dim: false,
    length,
  };
  p.attrs.push(a);
  const elem = (): DimE => {
    const index = int(r, 0, length - 1);
    return { k: 'elem', name: a.name, index: chance(r, 0.4) ? index - length : index, length };
  };
  const len: DimE = { k: 'len', name: a.name };
  const reading = (old: DimE): DimE => {
    const roll = r();
    if (roll < 0.3) return { k: 'bin', op: '+', l: old, r: elem() };
    if (roll < 0.5) return { k: 'bin', op: '//', l: old, r: elem() };
    if (roll < 0.7) return { k: 'call', fn: 'ceil_div', a: old, b: elem() };
    if (roll < 0.85) return { k: 'bin', op: '*', l: len, r: elem() };
    return { k: 'call', fn: 'max', a: old, b: len };
  };
  let read = false;
  for (const o of p.outputs)
    if (o.shape.kind === 'dims' && o.shape.dims.length && chance(r, 0.7)) {
      const d = int(r, 0, o.shape.dims.length - 1);
      o.shape.dims[d] = reading(o.shape.dims[d]!);
      read = true;
    }
  if (p.workspace && (!read || chance(r, 0.5))) p.workspace = reading(p.workspace);
}

/**
 * Sometimes names for output dims and the workspace: an expression is hoisted into a let (and, for
 * a binary one, its left operand into an earlier let that the first reads), so shapes read lets and
 * lets read lets. From a generator of its own, as addListAttr.
 */
function addLets(r: Rand, p: SpecPlan): void {
  if (!chance(r, 0.4)) return;
  const hoist = (e: DimE): DimE => {
    if (e.k === 'int' || e.k === 'let') return e;
    let body = e;
    if (e.k === 'bin' && chance(r, 0.5)) {
      const inner = { name: `part${p.lets.length}`, e: e.l };
      p.lets.push(inner);
      body = { ...e, l: { k: 'let', name: inner.name, e: e.l } };
    }
    const def = { name: `named${p.lets.length}`, e: body };
    p.lets.push(def);
    return { k: 'let', name: def.name, e: body };
  };
  for (const o of p.outputs)
    if (o.shape.kind === 'dims' && chance(r, 0.6))
      o.shape.dims = o.shape.dims.map((d) => (chance(r, 0.5) ? hoist(d) : d));
  if (p.workspace && chance(r, 0.5)) p.workspace = hoist(p.workspace);
}

/** The spec plan of one seed. */
export function planSpec(seed: number): SpecPlan {
  const r = rng(seed * 7919 + 17);
  const vars = planVars(r);
  const attrs = planAttrs(r);
  const dimAttrs = attrs.filter((a) => a.dim);
  const scope: Scope = { inputs: [], dimAttrs, divisorAttrs: dimAttrs.filter((a) => a.min! >= 1) };
  const inputs = planInputs(r, vars, scope);
  const usedVars = dropUnboundVars(vars, inputs);
  const outputs = planOutputs(r, inputs, usedVars, scope);
  const { state, workspace } = planStateAndWorkspace(r, scope);
  const p: SpecPlan = {
    seed,
    name: `${pick(r, ['Ss', 'SpecOp', 'SSGrid', 'SsTRT'])}${seed}${pick(r, ['', 'X', 'Op', 'Nd'])}`,
    snake: seed % 7 === 3 ? `named${seed}_op` : undefined,
    domain: pick(r, [undefined, 'spec.space', `ss.d${seed % 3}.x`, 'custom']),
    version: pick(r, [1, 1, 2, 3, 1000]),
    description: pick(r, [
      'closed form of the inputs and attributes',
      'has "quotes", \\backslashes\\ and */ comment ends',
      'ünïcode — and {{braces}}',
      '',
    ]),
    vars: usedVars,
    inputs,
    attrs,
    outputs,
    state,
    workspace,
    lets: [],
    checks: [],
    flow: chance(r, 0.6),
    cuda: chance(r, 0.5),
    tests: [],
  };
  const rList = rng(seed * 104729 + 5);
  addListAttr(rList, p);
  addSizeof(rng(seed * 67867967 + 19), p);
  addLets(rng(seed * 15485863 + 11), p);
  // Inputs that may be absent get a case with them, one without and a random one; others two random cases.
  const hasOptional = inputs.some((i) => i.optional);
  for (const mode of hasOptional ? (['present', 'absent', 'random'] as const) : (['random', 'random'] as const)) {
    const c = drawCase(r, p, mode, rList);
    if (c) p.tests.push(c);
  }
  if (seed % 4 === 1) readLaterInput(p);
  if (seed % 5 === 2) widenRank(p);
  addConditions(rng(seed * 32452843 + 3), p);
  addRankGeneric(rng(seed * 49979687 + 7), p);
  addLongerList(rng(seed * 86028121 + 13), p);
  addChosenDtype(rng(seed * 122949823 + 23), p);
  addOptionalCheck(rng(seed * 179424673 + 29), p);
  addPresence(rng(seed * 217645177 + 31), p);
  addVariadic(rng(seed * 275604541 + 37), p);
  addDataDim(rng(seed * 314606869 + 41), p);
  addVariadicOutput(rng(seed * 413158511 + 43), p);
  return p;
}

/** The key of a case's dims record holding the variadic output member being evaluated, as [m]. */
export const MEMBER_KEY = '#member';

/** The spec-space's variadic output count attribute. */
export const VCOUNT = 'vcount';

/**
 * From its own stream, a quarter of the odd seeds (no gradient op reads an output's gradient)
 * where no output is conditional or has a data dim: the last output becomes variadic, `vcount`
 * members (an int attribute, default 2; each case 1 to 3), at most 3; in a dims list its first
 * dim grows by `member` (when not a slice), so every member has its own shape. The kernels add m
 * to member m's closed form, so a member written in another's place shows.
 */
function addVariadicOutput(r: Rand, p: SpecPlan): void {
  const last = p.outputs[p.outputs.length - 1];
  if (
    p.seed % 2 === 0 ||
    !last ||
    !p.tests.length ||
    p.outputs.some((o) => o.present || o.dataDim) ||
    p.attrs.some((a) => a.name === VCOUNT) ||
    !chance(r, 0.25)
  )
    return;
  p.attrs.push({
    name: VCOUNT,
    type: 'int',
    required: false,
    default: 2,
    enum: undefined,
    min: 1,
    max: undefined,
    dim: false,
  });
  last.variadic = { count: VCOUNT, max: 3 };
  if (last.shape.kind === 'dims' && last.shape.dims.length && last.shape.dims[0]!.k !== 'slice')
    last.shape.dims[0] = { k: 'bin', op: '+', l: last.shape.dims[0]!, r: { k: 'member' } };
  for (const t of p.tests) t.attrs[VCOUNT] = int(r, 1, 3);
  followHeterogeneous(r, p, last);
}

/**
 * From addVariadicOutput's stream, after its draws: where the spec has a heterogeneous variadic
 * input and the variadic output's dtype is its own (a variable no other tensor has, chosen by no
 * attribute, or a dtype), most such outputs follow the input: member m in the dtype of its member
 * m, each case's count at most its members'.
 */
function followHeterogeneous(r: Rand, p: SpecPlan, out: OutPlan): void {
  const het = p.inputs.find((i) => i.variadic?.each);
  const own = p.vars.find((v) => v.name === out.dtype);
  const shared = [...p.inputs.map((i) => i.dtype), ...p.outputs.filter((o) => o !== out).map((o) => o.dtype)];
  if (!het || own?.choice || shared.includes(out.dtype) || !chance(r, 0.75)) return;
  if (own) p.vars.splice(p.vars.indexOf(own), 1);
  for (const t of p.tests) {
    if (own) delete t.types[own.name];
    t.attrs[VCOUNT] = Math.min(Number(t.attrs[VCOUNT]), t.dims[countKey(het.name)]![0]!);
  }
  out.dtype = het.dtype;
  out.variadic = { ...out.variadic!, follows: het.name };
}

/** The name of the spec-space's data dim (no attribute, input, output or let is called so). */
export const DATA_DIM = 'kept';

/**
 * From its own stream, a fifth of the specs: one dim of one output (always present, a dims list
 * without slices) becomes a dim the kernel decides, `kept`, bounded by the dim's expression; the
 * kernels keep half of it (rounded down), the reference likewise.
 */
function addDataDim(r: Rand, p: SpecPlan): void {
  if (!chance(r, 0.2)) return;
  const room = p.outputs.filter(
    (o) =>
      !o.present && o.shape.kind === 'dims' && o.shape.dims.length > 0 && o.shape.dims.every((d) => d.k !== 'slice'),
  );
  if (!room.length) return;
  const o = pick(r, room);
  o.dataDim = { name: DATA_DIM, axis: int(r, 0, (o.shape as { dims: DimE[] }).dims.length - 1) };
}

/** The key of a case's dims record holding count(x) of variadic input x, as [n]. */
export const countKey = (input: string): string => `${input}#count`;

/**
 * From their own stream, a quarter of the specs whose last input is required and holds data: it
 * becomes variadic (`min_count` 1 or 2), each case giving it min_count to min_count + 2 members of
 * its dims; count() then joins a check (`count(x) >= min_count`) or an output's dims (appended,
 * where that output has room for one more dim).
 */
function addVariadic(r: Rand, p: SpecPlan): void {
  const last = p.inputs[p.inputs.length - 1];
  if (!last || last.optional || last.shapeOnly || !p.tests.length || !chance(r, 0.25)) return;
  const min = int(r, 1, 2);
  last.variadic = { min };
  for (const t of p.tests) t.dims[countKey(last.name)] = [int(r, min, min + 2)];
  const count: DimE = { k: 'count', input: last.name };
  const room = p.outputs.filter(
    (o) =>
      o.shape.kind === 'dims' &&
      o.shape.dims.length < 8 &&
      p.tests.every((t) => {
        const attrs = Object.fromEntries(p.attrs.map((x) => [x.name, t.attrs[x.name] ?? x.default!]));
        const d = evalDims((o.shape as { dims: DimE[] }).dims, t.dims, attrs);
        return d.every((x) => x !== undefined) && numel(d as number[]) * (min + 2) <= 4096;
      }),
  );
  if (room.length && chance(r, 0.6)) (pick(r, room).shape as { dims: DimE[] }).dims.push(count);
  else p.checks.push({ c: { k: 'cmp', op: '>=', l: count, r: { k: 'int', v: min } }, message: undefined });
  makeHeterogeneous(r, p, last);
}

/** What a heterogeneous variadic input's members draw their dtypes from. */
const MEMBER_DTYPES: readonly DType[] = [
  'float32',
  'int32',
  'float16',
  'uint8',
  'float64',
  'bool',
  'int64',
  'bfloat16',
  'int8',
];

/**
 * From addVariadic's stream, after its draws (so they stay as they were): half the variadic inputs
 * whose dtype types no other tensor and no sizeof() become heterogeneous (`homogeneous: false`):
 * a type variable of their own over 2 or 3 dtypes (the first the input had), each member of each
 * case drawing one, its values in that dtype's default range.
 */
function makeHeterogeneous(r: Rand, p: SpecPlan, last: InPlan): void {
  const others = [...p.inputs.filter((i) => i !== last).map((i) => i.dtype), ...p.outputs.map((o) => o.dtype)];
  const sized = JSON.stringify([p.workspace, p.lets]).includes(`"type":"${last.dtype}"`);
  if (others.includes(last.dtype) || sized || !chance(r, 0.5)) return;
  const own = p.vars.find((v) => v.name === last.dtype);
  const start = own ? own.dtypes[0]! : (last.dtype as DType);
  const extra = [...MEMBER_DTYPES.filter((d) => d !== start)].sort(() => r() - 0.5).slice(0, int(r, 1, 2));
  const each = { typeVar: 'TMember', dtypes: [start, ...extra] };
  if (own) p.vars.splice(p.vars.indexOf(own), 1);
  last.variadic = { ...last.variadic!, each };
  last.dtype = each.typeVar;
  for (const t of p.tests) {
    if (own) delete t.types[own.name];
    delete t.values[last.name];
    delete t.ranges[last.name];
    const n = t.dims[countKey(last.name)]![0]!;
    t.memberDtypes = { [last.name]: Array.from({ length: n }, () => pick(r, each.dtypes)) };
  }
}

/**
 * From their own stream, a third of the specs with two or more outputs: the last one or two are
 * present only where a condition over the attributes holds (`present: psel`, `present: psel and
 * mode == 'a'`): the second's condition is the first's `and` another, so present outputs come
 * first. Attributes of their own (the others may choose dtypes); the first case has every output,
 * the last none of the optional ones, the others a draw.
 */
function addPresence(r: Rand, p: SpecPlan): void {
  if (p.outputs.length < 2 || p.tests.length < 2 || !chance(r, 0.35)) return;
  const flag = (name: string): AttrPlan => ({
    name,
    type: 'bool',
    required: false,
    default: chance(r, 0.5),
    enum: undefined,
    min: undefined,
    max: undefined,
    dim: false,
  });
  const mode: AttrPlan = { ...flag('pmode'), type: 'string', default: 'a', enum: ['a', 'b c'] };
  const first = flag(PSEL);
  const count = p.outputs.length >= 3 && chance(r, 0.5) ? 2 : 1;
  const second = chance(r, 0.5) ? mode : flag('pmore');
  p.attrs.push(first, ...(count === 2 ? [second] : []));
  const from = p.outputs.length - count;
  const leaf = (a: AttrPlan): CondE =>
    a.type === 'bool' ? { k: 'flag', name: a.name } : { k: 'is', name: a.name, value: 'a' };
  p.outputs[from]!.present = leaf(first);
  if (count === 2) p.outputs[from + 1]!.present = { k: 'logic', op: 'and', a: leaf(first), b: leaf(second) };
  const on = (a: AttrPlan, yes: boolean): AttrValue => (a.type === 'bool' ? yes : yes ? 'a' : 'b c');
  p.tests.forEach((t, k) => {
    const all = k === 0 ? true : k === p.tests.length - 1 ? false : chance(r, 0.5);
    t.attrs[first.name] = on(first, all || (k > 0 && k < p.tests.length - 1 && chance(r, 0.5)));
    if (count === 2) t.attrs[second.name] = on(second, all || chance(r, 0.5));
  });
  // With two, a case of the first case's tensors with only the first of them.
  if (count === 2) {
    const t = JSON.parse(JSON.stringify(p.tests[0])) as CasePlan;
    t.attrs[second.name] = on(second, false);
    p.tests.push(t);
  }
}

const PSEL = 'psel';

/**
 * From their own stream, most specs with an optional input of known rank: a check reading it,
 * `opt[a] >= x[b] + K` with K the smallest opt[a] - x[b] of the cases that pass it (so some case
 * meets it exactly), which holds while the input is absent.
 */
function addOptionalCheck(r: Rand, p: SpecPlan): void {
  const opt = p.inputs.filter((i) => i.optional && i.rank !== null && i.rank > 0 && !i.ranks);
  const req = p.inputs.filter((i) => !i.optional && i.rank !== null && i.rank > 0 && !i.ranks);
  const present = (o: InPlan): CasePlan[] => p.tests.filter((t) => t.dims[o.name] !== undefined);
  const o = opt.find((x) => present(x).length > 0);
  if (!o || !req.length || !chance(r, 0.8)) return;
  const x = pick(r, req);
  const a: DimE = { k: 'dim', input: o.name, axis: int(r, 0, o.rank! - 1), rank: o.rank! };
  const b: DimE = { k: 'dim', input: x.name, axis: int(r, -x.rank!, x.rank! - 1), rank: x.rank! };
  const cases = present(o);
  const k = Math.min(...cases.map((t) => (evalDim(a, t.dims, {}) ?? 0) - (evalDim(b, t.dims, {}) ?? 0)));
  const c: CondE = { k: 'cmp', op: '>=', l: a, r: { k: 'bin', op: '+', l: b, r: { k: 'int', v: k } } };
  if (cases.every((t) => evalCond(c, t.dims, {}) === true))
    p.checks.push({ c, message: chance(r, 0.5) ? pick(r, STRINGS) : undefined });
}

/** String attributes with a value a condition can compare with (one that reads as a word). */
function comparableEnums(p: SpecPlan): AttrPlan[] {
  return p.attrs.filter((a) => a.type === 'string' && a.enum?.some((v) => WORD.test(String(v))));
}

/** `a == 'v'` for one of the word-like values of string attribute `a`. */
function isValue(r: Rand, a: AttrPlan): CondE {
  return {
    k: 'is',
    name: a.name,
    value: String(
      pick(
        r,
        a.enum!.filter((v) => WORD.test(String(v))),
      ),
    ),
  };
}

const WORD = /^[A-Za-z0-9_]*$/;

const FSEL = 'fsel';

/** The dtype a choice gives for a case's attributes (defaults filled in). */
export function evalChoice(c: ChoiceE, attrs: Record<string, AttrValue>): DType {
  while (c.k === 'if') c = evalCond(c.c, {}, attrs) ? c.a : c.b;
  return c.d;
}

/**
 * Odd seeds (those with no gradient op), from their own stream: one output's dtype is a type
 * variable the attributes choose (`TSel2: 'float16 if fsel else float32'`, a nested choice of three
 * sometimes), over a bool, string or int attribute; the cases fall on every side the attributes
 * allow. Float outputs choose among floats and integer ones among integers.
 */
function addChosenDtype(r: Rand, p: SpecPlan): void {
  // At most one optional input: the spec model's rule for a chosen variable (ONNX Runtime's typing).
  if (p.seed % 2 === 0 || !p.tests.length || p.inputs.filter((i) => i.optional).length > 1 || !chance(r, 0.6)) return;
  let flag = p.attrs.find((a) => a.type === 'bool');
  if (!flag) {
    flag = {
      name: FSEL,
      type: 'bool',
      required: false,
      default: chance(r, 0.5),
      enum: undefined,
      min: undefined,
      max: undefined,
      dim: false,
    };
    p.attrs.push(flag);
  }
  const ints = p.attrs.filter((a) => a.type === 'int' && a.min !== undefined);
  const enums = comparableEnums(p);
  const cond = (): CondE => {
    const roll = r();
    if (roll < 0.2 && enums.length) {
      const a = pick(r, enums);
      return isValue(r, a);
    }
    if (roll < 0.4 && ints.length) {
      const a = pick(r, ints);
      return {
        k: 'cmp',
        op: pick(r, ['>', '<=', '!='] as const),
        l: { k: 'attr', name: a.name },
        r: { k: 'int', v: a.min! + 1 },
      };
    }
    return roll < 0.6 ? { k: 'not', c: { k: 'flag', name: flag.name } } : { k: 'flag', name: flag.name };
  };
  const o = pick(r, p.outputs);
  const before = dtypeOf(o.dtype, p.vars, Object.fromEntries(p.vars.map((v) => [v.name, v.dtypes[0]!])));
  const family: DType[] =
    before.startsWith('float') || before === 'bfloat16'
      ? ['float32', 'float16', 'float64', 'bfloat16']
      : ['int32', 'int64', 'int8', 'uint8'];
  const [a, b, c] = family.sort(() => r() - 0.5);
  const leaf = (d: DType): ChoiceE => ({ k: 'dtype', d });
  const choice: ChoiceE = chance(r, 0.3)
    ? { k: 'if', c: cond(), a: leaf(a!), b: { k: 'if', c: cond(), a: leaf(b!), b: leaf(c!) } }
    : { k: 'if', c: cond(), a: leaf(a!), b: leaf(b!) };
  const leaves = (x: ChoiceE): DType[] => (x.k === 'dtype' ? [x.d] : [...leaves(x.a), ...leaves(x.b)]);
  const name = `TSel${p.vars.length}`;
  p.vars.push({ name, dtypes: [...new Set(leaves(choice))], choice });
  o.dtype = name;
  // Both sides of the flag; half-precision outputs compare loosely, as drawn cases do.
  for (const t of p.tests) {
    if (chance(r, 0.5)) t.attrs[flag.name] = !(t.attrs[flag.name] ?? flag.default);
    const full = Object.fromEntries(p.attrs.map((x) => [x.name, t.attrs[x.name] ?? x.default!]));
    const d = evalChoice(choice, full);
    if ((d === 'float16' || d === 'bfloat16') && t.rtol === undefined) {
      t.rtol = 1e-2;
      t.atol = 1e-2;
    }
  }
}

/**
 * Most workspaces, from their own stream, read the bytes of a dtype: a type variable's (bound by a
 * tensor input, whose elements the kernel measures) or a fixed dtype's. The kernels check the size
 * they are given is exactly the spec's, so a backend sizing by the wrong dtype fails.
 */
function addSizeof(r: Rand, p: SpecPlan): void {
  if (!p.workspace || !chance(r, 0.7)) return;
  const bound = p.vars.flatMap((v) => {
    const i = p.inputs.find((x) => !x.optional && !x.shapeOnly && x.dtype === v.name);
    return i ? [{ k: 'sizeof', type: v.name, input: i.name } as DimE] : [];
  });
  const fixed = pick(r, DTYPES);
  const size: DimE =
    bound.length && chance(r, 0.75) ? pick(r, bound) : { k: 'sizeof', type: fixed, bytes: DTYPE_INFO[fixed].bytes };
  p.workspace = chance(r, 0.5)
    ? { k: 'bin', op: '*', l: size, r: p.workspace }
    : { k: 'bin', op: '+', l: p.workspace, r: { k: 'bin', op: '*', l: size, r: { k: 'int', v: 3 } } };
}

/**
 * Half the specs with a list attribute of declared length, from their own stream: the list may
 * also have 2 more elements (`length: [n, n + 2]`, as MMDeploy's 4-value padding beside MMCV's 2),
 * and the last case gives it that many, so its negative indices read other elements there.
 */
function addLongerList(r: Rand, p: SpecPlan): void {
  const a = p.attrs.find((x) => x.type === 'ints' && x.length !== undefined);
  const last = p.tests.at(-1);
  if (!a || !last || !chance(r, 0.5)) return;
  const saved = JSON.stringify({ attrs: p.attrs, tests: p.tests });
  a.longer = a.length! + 2;
  last.attrs[a.name] = [...((last.attrs[a.name] ?? a.default) as number[]), int(r, 1, 4), int(r, 1, 4)];
  const full = Object.fromEntries(p.attrs.map((x) => [x.name, last.attrs[x.name] ?? x.default!]));
  const ok = p.outputs.every((o) => {
    if (o.shape.kind === 'like') return true;
    const d = evalDims(o.shape.dims, last.dims, full);
    return d.every((x) => x !== undefined && x >= 0) && numel(d as number[]) <= 4096;
  });
  const w = p.workspace ? evalDim(p.workspace, last.dims, full) : 0;
  if (!ok || w === undefined || w < 0) Object.assign(p, JSON.parse(saved) as Pick<SpecPlan, 'attrs' | 'tests'>);
}

/**
 * A third of the seeds, from their own stream after everything else (other draws stay as they
 * were): an output's dims list splices a slice of an input's dims (`x[1:]`, `x[:-1]`,
 * `x[rank(y) - 1:]`, `x[:]`), an input of several ranks is indexed from the end (`x[-1]`), and
 * `checks:` compare ranks and slices of dims that every case meets (`rank(x) >= 1`,
 * `x[:1] == y[:1]`). Reverted where a case's outputs would then be invalid.
 */
function addRankGeneric(r: Rand, p: SpecPlan): void {
  if (!p.tests.length || !chance(r, 0.35)) return;
  const saved = JSON.stringify({ outputs: p.outputs, checks: p.checks });
  const full = (t: CasePlan): Record<string, AttrValue> =>
    Object.fromEntries(p.attrs.map((a) => [a.name, t.attrs[a.name] ?? a.default!]));
  // Inputs every case gives, with the ranks the cases give them.
  const always = p.inputs.filter((i) => !i.optional && p.tests.every((t) => t.dims[i.name]));
  const minRank = (i: InPlan): number => Math.min(...p.tests.map((t) => t.dims[i.name]!.length));
  const bound = (inp: InPlan): DimE | null => {
    const lo = minRank(inp);
    const roll = r();
    if (roll < 0.25) return null;
    if (roll < 0.5) return { k: 'int', v: -int(r, 0, lo) };
    if (roll < 0.75) return { k: 'int', v: int(r, 0, lo) };
    // rank(y) - k, y the input itself or another: within every case's dims of `inp` or refused below.
    const y = pick(r, always);
    return { k: 'bin', op: '-', l: { k: 'rank', input: y.name }, r: { k: 'int', v: int(r, 0, 1) } };
  };
  const slice = (): Extract<DimE, { k: 'slice' }> | undefined => {
    if (!always.length) return undefined;
    const inp = pick(r, always);
    const a = bound(inp);
    const b = bound(inp);
    return { k: 'slice', input: inp.name, start: a, end: b };
  };
  const fits = (e: Extract<DimE, { k: 'slice' }>): boolean =>
    p.tests.every((t) => evalSliceDims(e, t.dims, full(t)) !== undefined);
  const dimsOuts = p.outputs.filter((o) => o.shape.kind === 'dims');
  if (dimsOuts.length) {
    const o = pick(r, dimsOuts);
    const dims = (o.shape as { dims: DimE[] }).dims;
    for (let tries = 0; tries < 4; tries++) {
      const sl = slice();
      if (!sl || !fits(sl)) continue;
      dims.splice(int(r, 0, dims.length), 0, sl);
      break;
    }
    // From the end, within the smallest rank of an input of several ranks.
    const wide = always.find((i) => i.ranks);
    if (wide && chance(r, 0.7))
      dims.push({ k: 'dim', input: wide.name, axis: -int(r, 1, wide.ranks![0]), rank: wide.rank! });
  }
  const valid = p.tests.every((t) =>
    p.outputs.every((o) => {
      if (o.shape.kind === 'like') return true;
      const d = evalDims(o.shape.dims, t.dims, full(t));
      // The schema counts a dims list's entries (at most 8) as well as the rank they give.
      return (
        o.shape.dims.length <= 8 &&
        d.length <= 8 &&
        d.every((x) => x !== undefined && x >= 0) &&
        numel(d as number[]) <= 4096
      );
    }),
  );
  if (!valid) {
    Object.assign(p, JSON.parse(saved) as Pick<SpecPlan, 'outputs' | 'checks'>);
    return;
  }
  if (!always.length) return;
  const x = pick(r, always);
  p.checks.push({
    c: { k: 'cmp', op: '>=', l: { k: 'rank', input: x.name }, r: { k: 'int', v: minRank(x) } },
    message: undefined,
  });
  // Two slices whose dims agree in every case (the same slice of one input at worst).
  for (let tries = 0; tries < 6; tries++) {
    const [a, b] = [slice(), slice()];
    if (!a || !b || !fits(a) || !fits(b)) continue;
    const c: CondE = { k: 'cmp', op: '==', l: a, r: b };
    const holds = p.tests.every((t) => evalCond(c, t.dims, full(t)) === true);
    if (holds) {
      p.checks.push({ c, message: chance(r, 0.5) ? pick(r, STRINGS) : undefined });
      return;
    }
    const ne: CondE = { k: 'cmp', op: '!=', l: a, r: b };
    if (p.tests.every((t) => evalCond(ne, t.dims, full(t)) === true)) {
      p.checks.push({ c: ne, message: undefined });
      return;
    }
  }
}

/**
 * Seeds = 2 mod 5 (no random draw): the first required input of rank 1..7 that nothing ties to
 * one rank (no constraint of its own, no input shaped like it, no negative index into it) takes
 * `rank: [r, r + 1]`, and the last case gives it one more dim (2, or 1 where the case lists its
 * values), so the spec has a case of each rank. Expressions index it from the front within r,
 * and outputs shaped like it take its rank at run time.
 */
function widenRank(p: SpecPlan): void {
  const reads = new Map<string, number[]>();
  const walk = (e: DimE): void => {
    if (e.k === 'dim') reads.set(e.input, [...(reads.get(e.input) ?? []), e.axis]);
    for (const k of dimKids(e)) walk(k);
  };
  for (const i of p.inputs) if (i.constraint.kind === 'dims') for (const d of i.constraint.dims) if (d !== '?') walk(d);
  for (const o of p.outputs) if (o.shape.kind === 'dims') for (const d of o.shape.dims) walk(d);
  if (p.workspace) walk(p.workspace);
  const last = p.tests.at(-1);
  const inp = p.inputs.find(
    (i) =>
      !i.optional &&
      i.rank !== null &&
      i.rank >= 1 &&
      i.rank <= 7 &&
      i.constraint.kind === 'none' &&
      !p.inputs.some((j) => j.constraint.kind === 'like' && j.constraint.of === i.name) &&
      !(reads.get(i.name) ?? []).some((a) => a < 0),
  );
  if (!inp || !last?.dims[inp.name]) return;
  inp.ranks = [inp.rank!, inp.rank! + 1];
  last.dims[inp.name] = [...last.dims[inp.name]!, last.values[inp.name] ? 1 : 2];
}

/**
 * Seeds = 1 mod 4 (no random draw: other seeds keep their plans): the first required input whose
 * dims constraint reads an earlier required input moves in front of the first input it reads, so
 * its constraint reads a later input. Cases, expressions and kernels name inputs, so they stay
 * valid; the weights, which are per input position, move with it.
 */
function readLaterInput(p: SpecPlan): void {
  const at = (name: string): number => p.inputs.findIndex((i) => i.name === name);
  for (const [a, inp] of p.inputs.entries()) {
    if (inp.optional || inp.constraint.kind !== 'dims') continue;
    const read = new Set<string>();
    const walk = (e: DimE): void => {
      if (e.k === 'dim') read.add(e.input);
      for (const k of dimKids(e)) walk(k);
    };
    for (const d of inp.constraint.dims) if (d !== '?') walk(d);
    const b = Math.min(...[...read].map(at));
    // A shape-only input stays off position 0 (planInputs never puts one there).
    if (!Number.isFinite(b) || b >= a || (b === 0 && inp.shapeOnly)) continue;
    const move = <T>(xs: T[]): void => {
      xs.splice(b, 0, xs.splice(a, 1)[0]!);
    };
    move(p.inputs);
    for (const o of p.outputs) move(o.weights);
    return;
  }
}

/** The dim expressions a node reads, conditions' included. */
export function dimKids(e: DimE): DimE[] {
  if (e.k === 'bin') return [e.l, e.r];
  if (e.k === 'call') return [e.a, e.b];
  if (e.k === 'cond') return [...condKids(e.c), e.a, e.b];
  if (e.k === 'round') return [e.scale];
  if (e.k === 'slice') return [e.start, e.end].filter((x): x is DimE => x !== null);
  return [];
}

function condKids(c: CondE): DimE[] {
  if (c.k === 'cmp') return [c.l, c.r];
  if (c.k === 'not') return condKids(c.c);
  if (c.k === 'logic') return [...condKids(c.a), ...condKids(c.b)];
  return [];
}

/** The float attribute rounded dims scale by (values with and without an exact binary form). */
const FSCALE = 'fscale';
const FMODE = 'fmode';

/**
 * Half the seeds, from their own stream after the cases (other draws stay as they were): some
 * output dims become `d if cond else d % k`, `floor(d * fscale)` or `ceil(...)`, a float attribute
 * `fscale` joins (cases set it to 0.3, 1.25, 2, 0.1), and `checks:` get conditions every case
 * meets (a dim bound taken from the cases, a tautology over the attributes) with a message of
 * hostile text. Reverted where a case's outputs would then be invalid.
 */
function addConditions(r: Rand, p: SpecPlan): void {
  if (!p.tests.length || !chance(r, 0.5) || p.attrs.some((a) => a.name === FSCALE)) return;
  const saved = JSON.stringify({ outputs: p.outputs, attrs: p.attrs, tests: p.tests });
  p.attrs.push({
    name: FSCALE,
    type: 'float',
    required: false,
    default: pick(r, [0.5, 1.5, 0.75]),
    enum: undefined,
    min: 0,
    max: 4,
    dim: false,
  });
  for (const t of p.tests) if (chance(r, 0.6)) t.attrs[FSCALE] = pick(r, [0.3, 1.25, 2, 0.1]);
  // A string attribute with values to compare with, where the spec has none.
  if (!p.attrs.some((a) => a.type === 'string' && a.enum) && !p.attrs.some((a) => a.name === FMODE)) {
    p.attrs.push({
      name: FMODE,
      type: 'string',
      required: false,
      default: 'avg',
      enum: ['avg', 'max'],
      min: undefined,
      max: undefined,
      dim: false,
    });
    for (const t of p.tests) if (chance(r, 0.5)) t.attrs[FMODE] = 'max';
  }
  const dimsRead = p.inputs.filter((i) => !i.optional && i.rank !== null && i.rank > 0);
  const atom = (): DimE => {
    if (dimsRead.length && chance(r, 0.7)) {
      const i = pick(r, dimsRead);
      return { k: 'dim', input: i.name, axis: int(r, 0, i.rank! - 1), rank: i.rank! };
    }
    const ints = p.attrs.filter((a) => a.dim);
    return ints.length && chance(r, 0.5) ? { k: 'attr', name: pick(r, ints).name } : { k: 'int', v: int(r, 0, 4) };
  };
  const flags = p.attrs.filter((a) => a.type === 'bool');
  const enums = comparableEnums(p);
  const cond = (depth = 0): CondE => {
    const roll = r();
    if (roll < 0.15 && flags.length) return { k: 'flag', name: pick(r, flags).name };
    if (roll < 0.3 && enums.length) {
      const a = pick(r, enums);
      return isValue(r, a);
    }
    if (roll < 0.45 && depth < 2) return { k: 'not', c: cond(depth + 1) };
    if (roll < 0.6 && depth < 2)
      return { k: 'logic', op: pick(r, ['and', 'or'] as const), a: cond(depth + 1), b: cond(depth + 1) };
    return { k: 'cmp', op: pick(r, ['==', '!=', '<', '<=', '>', '>='] as const), l: atom(), r: atom() };
  };
  for (const o of p.outputs) {
    if (o.shape.kind !== 'dims') continue;
    o.shape.dims = o.shape.dims.map((d): DimE => {
      if (!chance(r, 0.5)) return d;
      const roll = r();
      if (roll < 0.4)
        return { k: 'cond', c: cond(), a: d, b: { k: 'bin', op: '%', l: d, r: { k: 'int', v: int(r, 2, 3) } } };
      return { k: 'round', fn: pick(r, ['floor', 'ceil'] as const), scale: d, name: FSCALE };
    });
  }
  const full = (t: CasePlan): Record<string, AttrValue> =>
    Object.fromEntries(p.attrs.map((a) => [a.name, t.attrs[a.name] ?? a.default!]));
  const valid = p.tests.every((t) =>
    p.outputs.every((o) => {
      if (o.shape.kind === 'like') return true;
      const d = evalDims(o.shape.dims, t.dims, full(t));
      return d.every((x) => x !== undefined && x >= 0) && numel(d as number[]) <= 4096;
    }),
  );
  if (!valid) {
    const back = JSON.parse(saved) as Pick<SpecPlan, 'outputs' | 'attrs' | 'tests'>;
    Object.assign(p, back);
    return;
  }
  // A bound every case meets: a <= b + K, K the largest a - b of the cases.
  if (dimsRead.length) {
    const a = atom();
    const b = atom();
    const gaps = p.tests.map((t) => (evalDim(a, t.dims, full(t)) ?? 0) - (evalDim(b, t.dims, full(t)) ?? 0));
    const k = Math.max(...gaps);
    const bound: CondE = { k: 'cmp', op: '<=', l: a, r: { k: 'bin', op: '+', l: b, r: { k: 'int', v: k } } };
    if (p.tests.every((t) => evalCond(bound, t.dims, full(t)) === true))
      p.checks.push({ c: bound, message: chance(r, 0.5) ? pick(r, STRINGS) : undefined });
  }
  // A tautology over an attribute where the spec has one to read (a string's value, a bool), so
  // that every kind of condition reaches every backend.
  const safe = enums[0]?.enum?.find((v) => WORD.test(String(v)));
  const c: CondE = flags[0]
    ? { k: 'flag', name: flags[0].name }
    : enums[0]
      ? { k: 'is', name: enums[0].name, value: String(safe) }
      : cond();
  p.checks.push({ c: { k: 'logic', op: 'or', a: c, b: { k: 'not', c } }, message: undefined });
}
