// Spec dtypes a backend cannot carry, from the type table: the facts behind the gen-time
// warnings (`opforge gen` / `check`) and behind each backend's run-time refusal. No per-op or
// per-backend special case lives anywhere else: a backend that lacks a dtype says so here.

import path from 'node:path';
import type { OpIR, ProjectIR, TypeBinding } from './ir.js';
import { dtypeUnder } from './ir-helpers.js';
import { DTYPES, DTYPE_INFO, type DType } from './type-table.js';

/** A backend that lacks some dtypes, in some or all of the versions opforge supports. */
export interface BackendDtypes {
  backend: string;
  /** Oldest version opforge generates for; a dtype with `since <= oldest` is always there. */
  oldest: number;
  /** First major version with a tensor type for the dtype; null: no version has one. */
  since(d: DType): number | null;
}

/**
 * Backends that cannot carry every spec dtype. ONNX, ONNX Runtime, PyTorch, Paddle and the Node
 * runtime carry all of them (type-table columns onnx, ort, torch, paddle, tsArray); Paddle
 * Inference's TensorRT subgraphs run the TensorRT plugins, so TensorRT's limits apply there.
 */
export const LIMITED_BACKENDS: readonly BackendDtypes[] = [
  { backend: 'TensorRT', oldest: 8, since: (d) => DTYPE_INFO[d].trt?.since ?? null },
  { backend: 'PopART', oldest: 0, since: (d) => (DTYPE_INFO[d].popart !== null ? 0 : null) },
];

/** One dtype an op may use that a backend (or its older versions) cannot carry. */
export interface DtypeLimit {
  op: string;
  /** Spec path as diagnostics print it (relative to the working directory). */
  file: string;
  backend: string;
  dtype: DType;
  /** null: no version of the backend has the dtype; else versions before this one lack it. */
  since: number | null;
  /** Inputs and outputs that have the dtype under the bindings below, in port order. */
  ports: string[];
  /** Binding suffixes (`f64`, `f32_i64`) that use the dtype; empty for an op without type variables. */
  bindings: string[];
  /** Every binding uses it: the op cannot run on that backend (version) at all. */
  all: boolean;
  /** Only optional inputs have it: the bindings run while those inputs are left out. */
  onlyOptional: boolean;
  /** Only members of heterogeneous variadic inputs may have it: calls whose members have other dtypes run. */
  onlyMembers: boolean;
  message: string;
}

function describe(l: Omit<DtypeLimit, 'message'>): string {
  const where = `${l.backend}${l.since === null ? '' : ` < ${l.since}`} has no ${l.dtype} (${l.ports.join(', ')})`;
  if (l.onlyMembers) return `${l.op}: ${where}: members of that dtype are refused there`;
  const given = l.onlyOptional ? ` when ${l.ports.length > 1 ? 'they are' : 'it is'} given` : '';
  if (l.all && !l.onlyOptional) return `${l.op}: ${where}: the op is refused there`;
  if (l.bindings.length === 0) return `${l.op}: ${where}: the op is refused there${given}`;
  const b = `binding${l.bindings.length > 1 ? 's' : ''} ${l.bindings.join(', ')} ${l.bindings.length > 1 ? 'are' : 'is'}`;
  return `${l.op}: ${where}: ${b} refused there${given}`;
}

/** The limits one op runs into, per limited backend and dtype, in a stable order. */
export function opDtypeLimits(op: OpIR): DtypeLimit[] {
  const ports = [
    ...op.inputs.map((i) => ({ name: i.name, type: i.type, optional: i.optional })),
    ...op.outputs.map((o) => ({ name: o.name, type: o.type, optional: false })),
  ];
  const out: DtypeLimit[] = [];
  for (const b of LIMITED_BACKENDS) {
    for (const dtype of DTYPES) {
      const since = b.since(dtype);
      if (since !== null && since <= b.oldest) continue;
      // A heterogeneous input's member may have the dtype under every binding.
      const has = (p: (typeof ports)[number], bd: TypeBinding): boolean =>
        p.type.kind === 'each' ? p.type.dtypes.includes(dtype) : dtypeUnder(p.type, bd) === dtype;
      const bindings = op.bindings.filter((bd) => ports.some((p) => has(p, bd)));
      if (bindings.length === 0) continue;
      const hit = ports.filter((p) => bindings.some((bd) => has(p, bd)));
      const base = {
        op: op.name,
        file: path.relative(process.cwd(), op.source.file) || op.source.file,
        backend: b.backend,
        dtype,
        since,
        ports: hit.map((p) => p.name),
        bindings: op.typeVars.length === 0 ? [] : bindings.map((bd) => bd.suffix),
        all: bindings.length === op.bindings.length,
        onlyOptional: hit.every((p) => p.optional),
        onlyMembers: hit.every((p) => p.type.kind === 'each'),
      };
      out.push({ ...base, message: describe(base) });
    }
  }
  return out;
}

/** Every limit of every op: ops by name, then backend, then dtype (deterministic). */
export function dtypeLimits(project: ProjectIR): DtypeLimit[] {
  return project.ops.flatMap(opDtypeLimits);
}

/** The line `opforge gen` and `check` print on stderr for a limit. */
export function formatDtypeLimit(l: DtypeLimit): string {
  return `warning: ${l.file}: ${l.message}`;
}
