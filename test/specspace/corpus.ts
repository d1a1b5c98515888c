// Writes a spec-space corpus (one op per seed) as a user project: <dir>/ops/*.yaml + kernels/.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { planSpec, type SpecPlan } from './plan.js';
import { renderSpec } from './render.js';

/** The fixed corpus `npm test` runs. */
/**
 * The fixed corpus `npm test` runs: seeds 1-44, plus seeds a long run found bugs with (1086:
 * three type variables, whose binding index was computed without parentheses).
 */
export const FIXED_SEEDS: readonly number[] = [...Array.from({ length: 44 }, (_, i) => i + 1), 1046, 1086];

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
