// The long hostile-call run: the driver of test/hostile-calls.test.ts with many more calls, every
// binding × mode, in batches of 500 (torch.compile: a tenth of the calls, in batches of 50). Prints
// one line per binding × mode, every failure with the seed and call that replays it, and a JSON
// summary last; exits 1 on any failure.
//   node dist/test/hostile/long.js [--calls 20000] [--seed S] [--bindings torch,jax,paddle]

import { randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import { type Binding, type Failure, PLAN, type Plan, fuzz, projects, summary } from './run.js';

/** Crashes per binding × mode and project before the rest of its calls are left out. */
const MAX_CRASHES = 20;

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '20000' },
    seed: { type: 'string' },
    bindings: { type: 'string', default: 'torch,jax,paddle' },
  },
});
const calls = Number(values.calls);
const seed = values.seed ? Number(values.seed) : randomInt(1, 2 ** 31);
const bindings = values.bindings.split(',') as Binding[];

/** `calls` per binding × mode (per project), in batches. */
function longPlan(): Plan {
  const plan = {} as Plan;
  for (const b of Object.keys(PLAN) as Binding[]) {
    plan[b] = {};
    for (const mode of Object.keys(PLAN[b])) {
      const compile = b === 'torch' && mode === 'compile';
      const total = compile ? Math.ceil(calls / 10) : calls;
      const perBatch = Math.min(compile ? 50 : 500, total);
      plan[b][mode] = { calls: perBatch, batches: Math.max(1, Math.ceil(total / perBatch)) };
    }
  }
  return plan;
}

process.stdout.write(`hostile calls, long run: seed ${seed}, ${calls} calls per binding × mode and project\n`);
const plan = longPlan();
const failures: Failure[] = [];
const lines: string[] = [];
for (const binding of bindings) {
  const ps = await projects(binding);
  for (const mode of Object.keys(plan[binding])) {
    const started = Date.now();
    const r = fuzz(ps, binding, mode, seed, plan, MAX_CRASHES);
    const line = `${summary(binding, mode, r.totals, r.failures)} (${((Date.now() - started) / 1000).toFixed(0)} s)`;
    process.stdout.write(`${line}\n`);
    for (const f of r.failures) process.stdout.write(`  [${f.kind}] ${f.where}: ${f.detail}\n`);
    lines.push(line);
    failures.push(...r.failures);
  }
}
process.stdout.write(`${JSON.stringify({ seed, calls, lines, failures: failures.length })}\n`);
process.exit(failures.length ? 1 : 0);
