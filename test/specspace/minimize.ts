// Finds a cheap seed list that still covers the spec space (coverage.ts): the fixed corpus
// (corpus.ts, FIXED_SEEDS) is this tool's answer, so `npm test` builds and runs as few generated
// ops as the coverage checks allow. Reverse deletion (drop the costliest seed whose loss keeps
// every family covered, repeat) from several orders; the cheapest list wins.
//
//   node dist/test/specspace/minimize.js [--pool 1-120] [--keep 1046,1086] [--orders 40]
//
// Cost of a seed: what it adds to the suite's builds and runs, roughly: a unit per op (its gradient
// op too), a kernel overload per dtype binding, a row per case.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { OpIR } from '../../generator/model/ir.js';
import { loadProject } from '../../generator/model/project.js';
import { rng } from '../helpers/references.js';
import { writeCorpus } from './corpus.js';
import { checkCoverage } from './coverage.js';
import type { SpecPlan } from './plan.js';
import { gradPlan } from './render.js';

function range(text: string): number[] {
  return text.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return b === undefined ? [a!] : Array.from({ length: b - a! + 1 }, (_, i) => a! + i);
  });
}

function covers(plans: readonly SpecPlan[], opsOf: (p: SpecPlan) => OpIR[]): boolean {
  try {
    checkCoverage(plans, plans.flatMap(opsOf));
    return true;
  } catch {
    return false;
  }
}

function main(): void {
  const { values } = parseArgs({
    options: {
      pool: { type: 'string', default: '1-44' },
      keep: { type: 'string', default: '1046,1086' },
      orders: { type: 'string', default: '40' },
    },
  });
  const keep = range(values.keep);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-minimize-'));
  try {
    const corpus = writeCorpus(dir, [...new Set([...range(values.pool), ...keep])]);
    const ops = loadProject({ opsDir: corpus.opsDir, root: dir }).ops;
    const byName = new Map(ops.map((o) => [o.name, o]));
    // A seed's op and, where render.ts gives it one, its gradient op.
    const opsOf = (p: SpecPlan): OpIR[] => [p.name, gradPlan(p)?.name].flatMap((n) => (n ? [byName.get(n)!] : []));
    const cost = (p: SpecPlan): number => opsOf(p).reduce((n, o) => n + 4 + o.bindings.length + o.tests.length, 0);
    const total = (ps: readonly SpecPlan[]): number => ps.reduce((n, p) => n + cost(p), 0);
    if (!covers(corpus.plans, opsOf)) throw new Error('the pool itself does not cover the spec space');
    const next = rng(7);
    let best = corpus.plans;
    for (let k = 0; k < Number(values.orders); k++) {
      // The first order: costliest first; the others shuffle seeds of similar cost.
      const order = [...corpus.plans]
        .filter((p) => !keep.includes(p.seed))
        .map((p) => ({ p, key: cost(p) * (k ? 0.5 + next() : 1) }))
        .sort((a, b) => b.key - a.key)
        .map((x) => x.p);
      let kept = [...corpus.plans];
      for (const p of order) {
        const without = kept.filter((q) => q !== p);
        if (covers(without, opsOf)) kept = without;
      }
      if (total(kept) < total(best)) best = kept;
    }
    const seeds = best.map((p) => p.seed).sort((a, b) => a - b);
    process.stdout.write(
      `${seeds.length} seeds (cost ${total(best)} of the pool's ${total(corpus.plans)}, ${best.flatMap(opsOf).length} ops, ${best
        .flatMap(opsOf)
        .reduce((n, o) => n + o.tests.length, 0)} cases): ${seeds.join(', ')}\n`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
