// Reading what a backend wrote and judging it beyond the values: shapes its inference claimed.

import { readTensor, type HostTensor, type TensorFile } from './cases.js';
import type { Outputs } from './backend.js';

/** A harness's per-case outcome: written files, or an error, or a skip with its reason. */
export const isFiles = (x: unknown): x is Record<string, TensorFile> =>
  typeof x === 'object' && x !== null && !('error' in x) && !('skip' in x);

export function readOutputs(dir: string, files: Record<string, TensorFile>): Record<string, HostTensor> {
  return Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readTensor(dir, f)]));
}

/** An error's first lines, joined: what fits in a report cell. */
export function firstLines(e: unknown, n = 4): string {
  return ((e as Error).message ?? String(e)).split('\n').filter(Boolean).slice(0, n).join(' | ');
}

/** Inferred dims that contradict the dims the kernel wrote (unknown or symbolic dims contradict nothing). */
export function shapeMismatch(
  what: string,
  inferred: readonly ((number | string | null)[] | null)[] | undefined,
  outs: readonly string[],
  got: Outputs,
): string | undefined {
  if (!inferred) return undefined;
  for (const [k, name] of outs.entries()) {
    const i = inferred[k];
    const g = got[name];
    if (!i || !g) continue;
    if (i.length !== g.dims.length || i.some((d, j) => typeof d === 'number' && d !== g.dims[j])) {
      return `${what} gives output ${name} dims [${i.map((d) => d ?? '?').join(', ')}], the kernel wrote [${g.dims.join(', ')}]`;
    }
  }
  return undefined;
}

/** cmake/ninja/make progress lines only ("[ 12%] Building ...", "[3/40] ..."). */
export function progressLine(say: (l: string) => void): (l: string) => void {
  return (l) => {
    if (/^\[\s*\d+(%|\/\d+)\]/.test(l)) say(`  ${l.trim().slice(0, 110)}`);
  };
}
