// Writes a spec-space corpus (one op per seed) as a user project: <dir>/ops/*.yaml + kernels/.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { planSpec, type SpecPlan } from './plan.js';
import { renderSpec } from './render.js';

/**
 * Seeds 1-44, plus seeds a long run found bugs with (1046; 1086: three type variables, whose
 * binding index was computed without parentheses): the corpus the in-process tests read whole,
 * TensorRT's column runs where its headers are, and the GPU checks run (long.js --from 1 --count 44).
 */
export const BROAD_SEEDS: readonly number[] = [...Array.from({ length: 44 }, (_, i) => i + 1), 1046, 1086];

/**
 * The fixed corpus `npm test` builds and runs on every column: the cheapest list of BROAD_SEEDS
 * found to pass every coverage check (coverage.ts), as `node dist/test/specspace/minimize.js
 * --orders 80` prints it, 1046 and 1086 kept (docs/decisions.md, "The spec-space corpus is a
 * cover"; 32 is the one heterogeneous variadic input of BROAD_SEEDS). After a change to plan.ts,
 * rerun it: the coverage test fails when the list no longer covers.
 */
export const FIXED_SEEDS: readonly number[] = [1, 12, 19, 22, 24, 29, 30, 31, 32, 33, 37, 38, 39, 44, 1046, 1086];

export interface Corpus {
  root: string;
  opsDir: string;
  plans: SpecPlan[];
}

export function writeCorpus(root: string, seeds: readonly number[]): Corpus {
  const opsDir = path.join(root, 'ops');
  rmSync(opsDir, { recursive: true, force: true });
  mkdirSync(path.join(opsDir, 'kernels'), { recursive: true });
  const plans = seeds.map(planSpec);
  for (const p of plans) {
    for (const [rel, text] of Object.entries(renderSpec(p).files)) writeFileSync(path.join(opsDir, rel), text);
  }
  return { root, opsDir, plans };
}
