// Reading what a backend wrote and judging it beyond the values: shapes its inference claimed.

import { readTensor, type HostTensor, type TensorFile } from './cases.js';
import type { Outputs } from './backend.js';
import type { OutputIR } from '../../generator/model/ir.js';

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

/**
 * Inferred dims that contradict the dims the kernel wrote (unknown or symbolic dims contradict
 * nothing; at a dim the kernel decides, the inferred one is its bound, which it may not exceed).
 */
export function shapeMismatch(
  what: string,
  inferred: readonly ((number | string | null)[] | null)[] | undefined,
  outs: readonly Pick<OutputIR, 'name' | 'dataDims'>[],
  got: Outputs,
): string | undefined {
  if (!inferred) return undefined;
  for (const [k, o] of outs.entries()) {
    const i = inferred[k];
    const g = got[o.name];
    if (!i || !g) continue;
    const bounded = (j: number): boolean => o.dataDims.some((d) => d.axis === j);
    const wrong = (d: number | string | null, j: number): boolean =>
      typeof d === 'number' && (bounded(j) ? g.dims[j]! > d : d !== g.dims[j]);
    if (i.length !== g.dims.length || i.some(wrong)) {
      const shown = i.map((d, j) => (d === null ? '?' : bounded(j) ? `<= ${d}` : d));
      return `${what} gives output ${o.name} dims [${shown.join(', ')}], the kernel wrote [${g.dims.join(', ')}]`;
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
