// `kernels.triton`: a CUDA kernel written in Triton, lowered to what the build compiles ahead of
// time (docs/triton.md). Each `args` entry is a tensor's pointer, the workspace, a float attribute
// or a dim expression (i64; `numel(x)` too), in the kernel's parameter order; `grid` is 1 to 3 dim
// expressions. Everything is checked here, with file:line errors, so a build never meets a spec
// it cannot launch; what only Python can know (the function's parameters) the build checks.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { KeyPath } from './diagnostics.js';
import { didYouMean } from './diagnostics.js';
import type {
  AttributeIR,
  Expr,
  InputIR,
  OutputIR,
  TritonArgIR,
  TritonConfigIR,
  TritonConstexpr,
  TritonIR,
} from './ir.js';

export interface RawTriton {
  source: string;
  kernel: string;
  args: (string | number)[];
  constexprs?: Record<string, number | boolean | string>;
  grid: (string | number)[];
  num_warps?: number;
  num_stages?: number;
  configs?: RawTritonConfig[];
}

interface RawTritonConfig {
  constexprs?: Record<string, number | boolean | string>;
  grid?: (string | number)[];
  num_warps?: number;
  num_stages?: number;
  archs?: number[];
}

type CompileDim = (d: string | number, p: KeyPath) => Expr | undefined;

export interface TritonScope {
  err: (p: KeyPath, message: string, opts?: { hint?: string | undefined; at?: 'key' }) => void;
  inputs: readonly InputIR[];
  outputs: readonly OutputIR[];
  attributes: readonly AttributeIR[];
  /** The kernel file checked to lie in the project: its path from the root, or undefined (reported). */
  source: string | undefined;
  /** The absolute path of the Python file (read for the function's definition). */
  sourceFile: string;
  /** A dim expression over the always-present inputs, with numel() allowed. */
  compileDim: CompileDim;
  hasWorkspace: boolean;
  /** The op's type variables' names (a constexpr may take one's dtype). */
  typeVars: readonly string[];
}

export function buildTriton(raw: RawTriton, s: TritonScope): TritonIR | undefined {
  const base: KeyPath = ['kernels', 'triton'];
  const before = { failed: false };
  const err = (p: KeyPath, m: string, o?: { hint?: string | undefined; at?: 'key' }): void => {
    before.failed = true;
    s.err(p, m, o);
  };
  // Ops the launcher cannot hand Triton a fixed parameter list for.
  const variadic = s.inputs.find((x) => x.variadic) ?? s.outputs.find((o) => o.member);
  if (variadic)
    err(
      base,
      `a Triton kernel takes a fixed list of pointers; \`${variadic.name}\` is variadic (write this op's CUDA kernel in C++)`,
      {
        at: 'key',
      },
    );
  const decided = s.outputs.find((o) => o.dataDims.length > 0);
  if (decided)
    err(base, `output \`${decided.name}\` has a dim the kernel decides, which a Triton kernel cannot report yet`, {
      at: 'key',
    });
  const optional = s.inputs.find((x) => x.optional);
  const optionalOut = s.outputs.find((o) => o.present !== undefined);
  if (optional || optionalOut)
    err(
      base,
      `\`${(optional ?? optionalOut)!.name}\` may be absent, and a Triton kernel has no way to test a pointer for it`,
      { at: 'key' },
    );
  if (s.source !== undefined) checkDefinition(s, raw.kernel, err);

  const ports = [...s.inputs.map((x) => x.name), ...s.outputs.map((o) => o.name)];
  const floats = s.attributes.filter((a) => a.type === 'float').map((a) => a.name);
  const args: TritonArgIR[] = raw.args.map((a, i): TritonArgIR => {
    const p: KeyPath = [...base, 'args', i];
    if (typeof a === 'string' && ports.includes(a)) return { kind: 'tensor', name: a, port: ports.indexOf(a) };
    if (a === 'workspace') {
      if (!s.hasWorkspace) err(p, 'the op declares no `workspace`: there are no scratch bytes to pass');
      return { kind: 'workspace' };
    }
    if (typeof a === 'string' && floats.includes(a)) return { kind: 'float', name: a };
    const attr = s.attributes.find((x) => x.name === a);
    if (attr && attr.type !== 'int')
      err(
        p,
        `attribute \`${a}\` is a ${attr.type}; a Triton argument takes a tensor, \`workspace\`, a float attribute or an integer expression`,
      );
    const expr: Expr = s.compileDim(a, p) ?? { kind: 'int', value: 0 };
    return { kind: 'int', expr, source: String(a) };
  });
  const grid = raw.grid.map((g, i): Expr => s.compileDim(g, [...base, 'grid', i]) ?? { kind: 'int', value: 0 });
  // A constexpr beside `configs` is in every configuration: its error once, and an attribute's
  // first use is where an error about the attribute points.
  const reported = new Set<string>();
  const errOnce: TritonScope['err'] = (p, m, o) => {
    if (!reported.has(p.join('.'))) err(p, m, o);
    reported.add(p.join('.'));
  };
  const attrUse = new Map<string, KeyPath>();
  const constexpr = (name: string, v: number | boolean | string, p: KeyPath): [string, TritonConstexpr] => {
    const value = constexprValue(v, p, s, errOnce);
    if (typeof value === 'object' && 'attr' in value && !attrUse.has(value.attr)) attrUse.set(value.attr, p);
    return [name, value];
  };
  // Each configuration over the defaults above: its constexprs merged, the rest replaced.
  const configs = (raw.configs ?? [{}]).map(
    (c, k): TritonConfigIR => ({
      constexprs: Object.entries({ ...raw.constexprs, ...c.constexprs }).map(([name, v]) =>
        constexpr(
          name,
          v,
          c.constexprs && Object.hasOwn(c.constexprs, name)
            ? [...base, 'configs', k, 'constexprs', name]
            : [...base, 'constexprs', name],
        ),
      ),
      grid: c.grid
        ? c.grid.map((g, i): Expr => s.compileDim(g, [...base, 'configs', k, 'grid', i]) ?? { kind: 'int', value: 0 })
        : grid,
      numWarps: c.num_warps ?? raw.num_warps ?? 4,
      numStages: c.num_stages ?? raw.num_stages ?? 3,
      archs: c.archs ?? [],
    }),
  );
  // A GPU has one default: no arch in two configurations' lists.
  configs.forEach((c, k) => {
    const dup = c.archs.find((a) => configs.slice(0, k).some((p) => p.archs.includes(a)));
    if (dup !== undefined)
      err([...base, 'configs', k, 'archs'], `sm_${dup} is already the default of an earlier configuration`);
  });
  const variants = attrVariants(attrUse, s, err);
  if (before.failed) return undefined;
  return { source: s.source!, kernel: raw.kernel, args, configs, variants };
}

/** Most kernel variants the attributes feeding constexprs may make (each compiled per binding, configuration and arch). */
const MAX_VARIANTS = 16;

/**
 * The attributes the constexprs read, with their values: a bool's two, an `enum`'s, or an int's
 * min..max where that is a short range. Others have no finite set to compile ahead of time.
 */
function attrVariants(
  attrUse: ReadonlyMap<string, KeyPath>,
  s: TritonScope,
  err: TritonScope['err'],
): TritonIR['variants'] {
  const variants = [...attrUse.keys()].flatMap((name): TritonIR['variants'] => {
    const a = s.attributes.find((x) => x.name === name)!;
    if (a.type === 'bool') return [{ attr: name, values: [false, true] }];
    if (a.enum && (a.type === 'int' || a.type === 'string')) return [{ attr: name, values: [...a.enum] }];
    if (a.type === 'int' && a.min !== undefined && a.max !== undefined) {
      const lo = a.min + (a.minExclusive ? 1 : 0);
      const hi = a.max - (a.maxExclusive ? 1 : 0);
      if (hi - lo < MAX_VARIANTS)
        return [{ attr: name, values: Array.from({ length: hi - lo + 1 }, (_, k) => lo + k) }];
    }
    err(
      attrUse.get(name)!,
      `attribute \`${name}\` feeds a constexpr but has no short list of values to compile: a bool, an \`enum\`, or an int with min and max less than ${MAX_VARIANTS} apart`,
    );
    return [];
  });
  const count = variants.reduce((n, v) => n * v.values.length, 1);
  if (count > MAX_VARIANTS)
    err(
      attrUse.get(variants[variants.length - 1]!.attr)!,
      `the attributes feeding constexprs (${variants.map((v) => v.attr).join(', ')}) make ${count} kernel variants; at most ${MAX_VARIANTS} are compiled`,
    );
  return variants;
}

/**
 * The function must be defined in the file: `def <kernel>(` (Python's own parse is the build's;
 * this finds a misspelt name with the file and line of the spec, before anything compiles).
 */
function checkDefinition(s: TritonScope, kernel: string, err: TritonScope['err']): void {
  let text: string;
  try {
    text = readFileSync(s.sourceFile, 'utf8');
  } catch {
    return; // reported by the kernel-file check
  }
  const defined = [...text.matchAll(/^def\s+([A-Za-z_]\w*)\s*\(/gm)].map((m) => m[1]!);
  if (!defined.includes(kernel))
    err(['kernels', 'triton', 'kernel'], `\`${kernel}\` is not a function defined in ${path.basename(s.sourceFile)}`, {
      hint: didYouMean(kernel, defined),
    });
}

/** A constexpr's value (at `p` in the spec); a string names a type variable or an attribute. */
function constexprValue(
  v: number | boolean | string,
  p: KeyPath,
  s: TritonScope,
  err: TritonScope['err'],
): TritonConstexpr {
  if (typeof v !== 'string') return v;
  if (s.typeVars.includes(v)) return { dtypeOf: v };
  if (s.attributes.some((a) => a.name === v)) return { attr: v };
  err(
    p,
    `\`${v}\` is not a type variable or attribute; a constexpr is a number, a boolean, a type variable (its dtype under each binding) or an attribute (the kernel compiled for each of its values)`,
    { hint: didYouMean(v, [...s.typeVars, ...s.attributes.map((a) => a.name)]) },
  );
  return 0;
}
