// A shared build (the Node addon, the ONNX Runtime library, the PyTorch extension) that fails
// fails for one reason, usually one op's kernel: name that op and where its kernel broke, and
// report the other ops of the same build as not run because of it, not as failures of their own.

import path from 'node:path';
import type { OpIR } from '../../generator/model/ir.js';
import type { CaseResult } from './results.js';

/** A compiler diagnostic location: `file:line[:col]: [fatal ]error` or an include chain's `from file:line`. */
const ERROR_LINE = /^(?:In file included from |\s+from )?(\S+?):(\d+)(?::\d+)?[:,]?\s*(?:(?:fatal )?error\b.*)?$/;
const IS_ERROR = /(?:^|\s)(?:fatal )?error\b/;
/** CMake object-library targets of the op kernels: opforge_<snake>_cpu / _cuda. */
const KERNEL_TARGET = /opforge_([a-z0-9_]+?)_(?:cpu|cuda)\.dir/g;

export interface Culprit {
  op: OpIR;
  /** `ops/kernels/x.cpp:12`, relative to the project root, when the log locates it. */
  where: string | undefined;
  /** The compiler's error lines for it (a few). */
  errors: string[];
}

/**
 * A diagnostic's file as an absolute path. A relative one is relative to the folder the compiler
 * ran in (ccache's base_dir makes them so: `../../ops/kernels/x.cpp`), which the log does not say:
 * the kernel file whose path ends with it, else the path taken from the project root.
 */
function located(file: string, root: string, kernels: ReadonlyMap<string, OpIR>): string {
  if (path.isAbsolute(file)) return path.normalize(file);
  const tail = path.normalize(file).replace(/^(?:\.\.[/\\])+/, '');
  const hit = [...kernels.keys()].find((k) => k === path.join(root, tail) || k.endsWith(`${path.sep}${tail}`));
  return hit ?? path.resolve(root, file);
}

/** The ops whose kernels broke the build, from its log; empty when the log names none. */
export function findCulprits(log: string, ops: readonly OpIR[], root: string): Culprit[] {
  const kernelOf = new Map<string, OpIR>();
  for (const op of ops)
    for (const k of [op.kernels.cpu, op.kernels.cuda, op.kernels.triton?.source])
      if (k) kernelOf.set(path.resolve(root, k), op);
  const found = new Map<OpIR, Culprit>();
  const lines = log.split('\n');
  // An error's op: the kernel file it is in, or the kernel file of the include chain just before it.
  let chain: OpIR | undefined;
  let chainAt: string | undefined;
  for (const l of lines) {
    const m = ERROR_LINE.exec(l.trimEnd());
    if (!m) {
      if (!/^\s/.test(l)) {
        chain = undefined;
        chainAt = undefined;
      }
      continue;
    }
    const file = located(m[1]!, root, kernelOf);
    const op = kernelOf.get(file);
    const at = `${path.relative(root, file).split(path.sep).join('/')}:${m[2]}`;
    if (!IS_ERROR.test(l)) {
      if (op) {
        chain = op;
        chainAt = at;
      }
      continue;
    }
    const who = op ?? chain;
    if (who) {
      const c = found.get(who) ?? { op: who, where: op ? at : chainAt, errors: [] };
      if (c.errors.length < 6 && !c.errors.includes(l.trim())) c.errors.push(l.trim());
      found.set(who, c);
    }
    chain = undefined;
    chainAt = undefined;
  }
  // The make/ninja line of a failed kernel target names the op even when the compiler's does not.
  for (const m of log.matchAll(KERNEL_TARGET)) {
    const op = ops.find((o) => o.ident.snake === m[1]);
    if (op && !found.has(op) && lines.some((l) => l.includes(`${m[0]}`) && /Error|FAILED/.test(l)))
      found.set(op, { op, where: undefined, errors: [] });
  }
  return [...found.values()];
}

/**
 * Results for a failed shared build on `backends`: the culprit ops fail (with their compiler
 * errors), the others are not run; when the log names no op's kernel, every op fails with the log.
 */
export function buildFailureResults(
  e: unknown,
  ops: readonly OpIR[],
  backends: readonly string[],
  root: string,
  allOps: readonly OpIR[] = ops,
): CaseResult[] {
  const log = (e as Error).message ?? String(e);
  const culprits = findCulprits(log, allOps, root);
  if (!culprits.length)
    return ops.flatMap((op) =>
      backends.map((backend) => ({
        op: op.name,
        case: null,
        backend,
        status: 'fail' as const,
        message: log.slice(0, 3000),
      })),
    );
  const names = culprits.map((c) => (c.where ? `${c.op.name} (${c.where})` : c.op.name)).join(', ');
  const first =
    log
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return ops.flatMap((op) =>
    backends.map((backend): CaseResult => {
      const c = culprits.find((x) => x.op === op);
      if (c) {
        return {
          op: op.name,
          case: null,
          backend,
          status: 'fail',
          message: `its kernel does not compile${c.where ? ` (${c.where})` : ''}: ${first}\n${c.errors.join('\n') || log.slice(0, 2000)}`,
        };
      }
      return {
        op: op.name,
        case: null,
        backend,
        status: 'skip',
        blockedBy: culprits[0]!.op.name,
        message: `not run: the kernel of ${names} broke this build`,
      };
    }),
  );
}
