// Inputs into the IR. An input's `shape:` constraint may read any other input, a later one too
// (MMCV's deform conv: offset comes before weight, and its channels are 2·groups·kh·kw of the
// weight's dims), so inputs are built in three passes: each input's own facts, then the ranks
// `shape: <input>` passes along, then the constraints, which need every rank. Constraints that
// read each other in a cycle are refused: a rank would depend on itself, and a check could only
// restate another.

import type { KeyPath } from './diagnostics.js';
import { didYouMean } from './diagnostics.js';
import type { InputDim, InputIR, TensorType } from './ir.js';
import { constraintInputs } from './ir-helpers.js';
import { idents } from './names.js';
import type { AttrReading } from './expr-attrs.js';
import { anyFloat, compileDim, dtypesOf, type RawInput, type Scope } from './build-ir.js';

export function buildInputs(raws: readonly RawInput[], scope: Scope): InputIR[] {
  const inputs = raws.map((inp, i) => ownFacts(inp, i, raws.length, scope));
  resolveLikeRanks(raws, inputs, scope);
  raws.forEach((inp, i) => {
    if (!Array.isArray(inp.shape)) return;
    const self = inputs[i]!;
    // Earlier inputs (an optional one too: only a later optional input is ever absent here, and
    // this constraint is then checked only when this input is present), and later required ones.
    const readable = inputs.filter((x) => x !== self && (x.index < i || !x.optional));
    const dims: InputDim[] = inp.shape.map((d, k) => {
      if (d === '?') return { kind: 'any' };
      const e = compileDim(
        d,
        ['inputs', i, 'shape', k],
        readable,
        scope.exprAttrs,
        scope.spec,
        scope.errors,
        scope.lets,
      );
      return e ? { kind: 'expr', expr: e, source: String(d) } : { kind: 'any' };
    });
    self.constraint = { kind: 'dims', dims };
  });
  checkNoCycles(inputs, scope);
  return inputs;
}

/** An input's facts that read no other input: name, dtype, the rank it states, differentiability. */
function ownFacts(inp: RawInput, i: number, count: number, { err, checkIdent, claim, resolveType }: Scope): InputIR {
  const p: KeyPath = ['inputs', i];
  checkIdent([...p, 'name'], inp.name);
  claim([...p, 'name'], inp.name, 'input');
  const declared = resolveType([...p, 'dtype'], inp.dtype);
  // `rank: [4, 5]`: one of several ranks (a list of one is that rank).
  const listed = Array.isArray(inp.rank) ? [...inp.rank].sort((a, b) => a - b) : null;
  let rank: number | null = typeof inp.rank === 'number' ? inp.rank : null;
  let ranks: number[] | null = null;
  if (listed?.length === 1) rank = listed[0]!;
  else if (listed) ranks = listed;
  if (Array.isArray(inp.shape)) {
    const n = inp.shape.length;
    if ((rank !== null && rank !== n) || (ranks !== null && !ranks.includes(n)))
      err([...p, 'rank'], `rank ${rankText(rank, ranks)} contradicts the ${n} dims of \`shape\``);
    rank = n;
    ranks = null;
  }
  if (inp.optional && inp.shape_only)
    err([...p, 'optional'], '`optional: true`, but a shape_only input cannot be optional');
  const variadic = variadicFacts(inp, i, count, err);
  const type = memberTypes(declared, inp, i, variadic, err);
  // Differentiability belongs to each dtype binding: an input that can be a float dtype takes
  // gradients in those bindings (an integer or bool binding of the same variable never does).
  const float = anyFloat(type);
  if (inp.differentiable === true && !float)
    err(
      [...p, 'differentiable'],
      `\`differentiable: true\`, but input \`${inp.name}\` is ${dtypesOf(type)}: integer and bool tensors take no gradient`,
    );
  return {
    name: inp.name,
    ident: idents(inp.name),
    index: i,
    type,
    rank,
    ranks,
    constraint: { kind: 'none' },
    optional: inp.optional ?? false,
    shapeOnly: inp.shape_only ?? false,
    variadic,
    differentiable: float && !(inp.shape_only ?? false) && !variadic && inp.differentiable !== false,
    description: inp.description ?? '',
  };
}

/**
 * `variadic:` and `min_count:`: only the last input repeats (a node lists inputs by position, as
 * ONNX's variadic inputs), never absent, always with data, and (for now) without gradients.
 */
function variadicFacts(inp: RawInput, i: number, count: number, err: Scope['err']): InputIR['variadic'] {
  const p: KeyPath = ['inputs', i];
  if (!inp.variadic) {
    if (inp.min_count !== undefined)
      err(
        [...p, 'min_count'],
        `\`min_count: ${inp.min_count}\`, but \`${inp.name}\` is not variadic (\`variadic: true\`)`,
      );
    return null;
  }
  if (i !== count - 1)
    err(
      [...p, 'variadic'],
      `\`variadic: true\` on input \`${inp.name}\` (input ${i} of ${count}), but only the last input may be variadic`,
    );
  if (inp.optional)
    err(
      [...p, 'optional'],
      '`optional: true`, but a variadic input is never absent (it has `min_count` members, 1 or more)',
    );
  if (inp.shape_only) err([...p, 'shape_only'], '`shape_only: true`, but a variadic input cannot be shape_only');
  if (inp.differentiable === true)
    err([...p, 'differentiable'], '`differentiable: true`, but a variadic input takes no gradient');
  return { min: inp.min_count ?? 1, homogeneous: inp.homogeneous !== false };
}

/**
 * `homogeneous: false` (ONNX's heterogeneous variadic input): each member has any of its type
 * variable's dtypes, whatever the others have. The variable then binds nothing (build-ir.ts drops
 * it from the bindings and refuses it on any other tensor).
 */
function memberTypes(
  declared: TensorType,
  inp: RawInput,
  i: number,
  variadic: InputIR['variadic'],
  err: Scope['err'],
): TensorType {
  if (inp.homogeneous !== false) return declared;
  const p: KeyPath = ['inputs', i, 'homogeneous'];
  if (!variadic) {
    err(p, `\`homogeneous: false\`, but \`${inp.name}\` is not variadic (\`variadic: true\`)`);
    return declared;
  }
  if (declared.kind !== 'var') {
    err(
      p,
      `\`homogeneous: false\` needs a type variable as the dtype (the dtypes each member may have), not \`${inp.dtype}\``,
      {
        hint: `types: { T${inp.name}: [float32, float16] } and dtype: T${inp.name}`,
      },
    );
    return declared;
  }
  return { kind: 'each', typeVar: declared.name, dtypes: declared.dtypes };
}

/**
 * `shape: <input>`: the constraint, and the rank it passes along (from the end of a chain
 * inwards, so `a: shape: b` takes b's rank whether b comes before or after a).
 */
function resolveLikeRanks(raws: readonly RawInput[], inputs: InputIR[], { err }: Scope): void {
  const names = inputs.map((x) => x.name);
  const target = raws.map((inp, i) => {
    if (typeof inp.shape !== 'string') return -1;
    const j = names.indexOf(inp.shape);
    if (j < 0 || j === i) {
      err(['inputs', i, 'shape'], `\`${inp.shape}\` is not another input`, {
        hint: didYouMean(
          inp.shape,
          names.filter((n) => n !== inp.name),
        ),
      });
      return -1;
    }
    // A later optional input may be absent while this one is present.
    if (j > i && inputs[j]!.optional && !inputs[i]!.optional) {
      err(
        ['inputs', i, 'shape'],
        `\`${inp.shape}\` is a later optional input: it may be absent where \`${inp.name}\` is not`,
      );
      return -1;
    }
    return j;
  });
  const done = new Set<number>();
  const resolve = (i: number, seen: number[]): void => {
    if (done.has(i)) return;
    const j = target[i]!;
    if (j >= 0) {
      // A cycle is reported by checkNoCycles; here it only stops the walk.
      if (!seen.includes(j)) resolve(j, [...seen, i]);
      const self = inputs[i]!;
      const like = inputs[j]!;
      const mine = rankText(self.rank, self.ranks);
      const theirs = rankText(like.rank, like.ranks);
      if (mine !== 'any' && theirs !== 'any' && mine !== theirs)
        err(['inputs', i, 'rank'], `rank ${mine} contradicts shape \`${like.name}\` (rank ${theirs})`);
      if (theirs !== 'any') {
        self.rank = like.rank;
        self.ranks = like.ranks;
      }
      self.constraint = { kind: 'like', input: like.name, inputIndex: j };
    }
    done.add(i);
  };
  inputs.forEach((_, i) => resolve(i, []));
}

/** Constraints may not read each other in a cycle (a reads b, b reads a); reported once per cycle. */
function checkNoCycles(inputs: readonly InputIR[], { err }: Scope): void {
  const reads = inputs.map((x) => constraintInputs(x.constraint));
  const state = inputs.map(() => 0); // 0: not seen, 1: on the path, 2: done
  const visit = (i: number, path: number[]): void => {
    state[i] = 1;
    for (const j of reads[i]!) {
      if (state[j] === 1) {
        const cycle = [...path.slice(path.indexOf(j)), i, j].map((k) => inputs[k]!.name);
        err(
          ['inputs', j, 'shape'],
          `the shape constraints of inputs read each other in a cycle (${cycle.join(' -> ')}); constrain one of them by the others only`,
        );
      } else if (state[j] === 0) visit(j, [...path, i]);
    }
    state[i] = 2;
  };
  inputs.forEach((_, i) => {
    if (state[i] === 0) visit(i, []);
  });
}

/** `rank(x)`: the rank of input `inp`, an int where it has one declared rank. */
export function readInputRank(inp: InputIR): AttrReading {
  if (inp.rank !== null) return { expr: { kind: 'int', value: inp.rank } };
  return { expr: { kind: 'rank', input: inp.name, inputIndex: inp.index } };
}

/** A rank as messages give it: `4`, `4 or 5`, `any`. */
export function rankText(rank: number | null, ranks: readonly number[] | null): string {
  if (rank !== null) return String(rank);
  if (!ranks) return 'any';
  return `${ranks.slice(0, -1).join(', ')} or ${ranks[ranks.length - 1]}`;
}

/** Dim `index` of input `inp` (negative from the end) as an expression, or why it cannot be read. */
export function readInputDim(inp: InputIR, index: number): AttrReading {
  const name = inp.name;
  if (inp.rank === null && inp.ranks) {
    // Several ranks: the dims every one of them has, from the front or from the end.
    const least = inp.ranks[0]!;
    if (index >= -least && index < least)
      return { expr: { kind: 'dim', input: name, inputIndex: inp.index, axis: index } };
    return {
      atIndex: true,
      error: `dim index ${index} is outside the ${least} dims every rank of input \`${name}\` (${inp.ranks.join(' or ')}) has (${-least}..${least - 1})`,
    };
  }
  if (inp.rank === null)
    return {
      error: `input \`${name}\` has no declared rank, so its dims cannot be indexed`,
      hint: 'add `rank:` to the input',
    };
  const axis = index < 0 ? inp.rank + index : index;
  if (axis < 0 || axis >= inp.rank)
    return { atIndex: true, error: `dim index ${index} is outside input \`${name}\` of rank ${inp.rank}` };
  return { expr: { kind: 'dim', input: name, inputIndex: inp.index, axis } };
}
