// Hostile calls through the generated Python bindings (test/python/hostile_calls.py): opforge_ops
// (eager, torch.compile), opforge_jax (eager, jit, vmap, grad) and the Paddle functions of
// opforge_paddle.load (dygraph, a PIR static graph, static training), over the seed ops and a few
// spec-space corpus ops chosen for their list, float, string and enum attributes, optional inputs
// and type variables. Each binding × mode runs batches of random calls in subprocesses; a batch that
// crashes (a signal) is resumed after the crashing call, which is replayed alone to report it. Passes
// with no crash, no hang, no output unlike the reference, no valid call rejected and no error message
// that fails to name the op and the argument. OPFORGE_FUZZ_SEED replays a run (its seed is printed).
// scripts/hostile-long.sh runs the same driver for tens of thousands of calls.

import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';
import { REQUIRE_TOOLS } from './helpers/optional-tools.js';
import { OLDEST_TORCH_LEG, PYTHON, hasModule, testUnless } from './helpers/python.js';
import {
  type Binding,
  type Counts,
  DRIVER,
  type Failure,
  PLAN,
  type Project,
  driverArgs,
  fuzz,
  projects,
  summary,
} from './hostile/run.js';

const SEED = process.env.OPFORGE_FUZZ_SEED ? Number(process.env.OPFORGE_FUZZ_SEED) : randomInt(1, 2 ** 31);
process.stdout.write(`hostile calls: seed ${SEED} (replay with OPFORGE_FUZZ_SEED=${SEED})\n`);

/**
 * `test` where PYTHON imports `modules`; else skipped with the reason, or failed with it under
 * OPFORGE_REQUIRE_TOOLS=1 (CI's venv has them all). Not in the oldest-torch leg (no torch.compile,
 * jax or paddle there; the first leg ran the same driver).
 */
function testWithModules(modules: readonly string[], name: string, fn: Parameters<typeof test>[1]): void {
  const missing = modules.filter((m) => !hasModule(m));
  const reason = missing.length ? `${PYTHON} cannot import ${missing.join(', ')}` : undefined;
  if (OLDEST_TORCH_LEG) testUnless('in the oldest-torch leg: the first leg runs the hostile calls', name, fn);
  else if (reason && REQUIRE_TOOLS)
    test(name, () => {
      throw new Error(`required with OPFORGE_REQUIRE_TOOLS=1: ${reason}`);
    });
  else testUnless(reason, name, fn);
}

const MODULES: Record<Binding, string[]> = { torch: ['torch'], jax: ['jax', 'torch'], paddle: ['paddle', 'torch'] };

for (const binding of ['torch', 'jax', 'paddle'] as const) {
  testWithModules(
    MODULES[binding],
    `hostile calls through the ${binding} binding (${Object.keys(PLAN[binding]).join(', ')}): no crash, hang, mismatch or nameless error`,
    async () => {
      const ps = await projects(binding);
      const lines: string[] = [];
      const failures: Failure[] = [];
      for (const mode of Object.keys(PLAN[binding])) {
        const started = Date.now();
        const { totals, failures: f } = fuzz(ps, binding, mode, SEED);
        const line = `${summary(binding, mode, totals, f)} (${((Date.now() - started) / 1000).toFixed(0)} s)`;
        process.stdout.write(`  ${line}\n`);
        lines.push(line);
        failures.push(...f);
        // The mode ran: calls were made and some were accepted and compared (a driver that
        // rejects everything would pass the other checks).
        assert.ok(totals.calls > 0, line);
      }
      // Crashes and hangs first: they are the fewest and the worst.
      const order: Failure['kind'][] = ['crash', 'hang', 'cut', 'driver', 'mismatch', 'rejected', 'nameless'];
      const shown = [...failures]
        .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind))
        .slice(0, 40)
        .map((x) => `[${x.kind}] ${x.where}: ${x.detail}`);
      assert.is(failures.length, 0, `seed ${SEED}\n${lines.join('\n')}\n${shown.join('\n')}`);
    },
  );
}

// A fast check the driver itself works (a valid-only run accepts every call and matches the
// reference), so the checks above cannot pass by never getting to compare.
testWithModules(['torch'], 'the driver: calls without mutations are all accepted and equal the reference', () => {
  const lib = path.join(root, 'build', 'torch', 'libopforge_torch.so');
  const p: Project = { name: 'seed ops', outDir: path.join(root, 'out'), libraries: { torch: lib } };
  assert.ok(existsSync(lib), `no ${lib}: the torch test above builds it`);
  const r = spawnSync(
    PYTHON,
    [
      DRIVER,
      '--binding',
      'torch',
      '--mode',
      'eager',
      '--seed',
      String(SEED),
      '--calls',
      '60',
      '--valid-only',
      ...driverArgs(p, 'torch'),
    ],
    { encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } },
  );
  assert.is(r.status, 0, r.stderr.slice(-3000));
  const c = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Counts;
  assert.is(c.calls, 60);
  assert.is(c.accepted, 60, JSON.stringify(c));
  assert.is(c.mismatches, 0, JSON.stringify(c.mismatch_examples));
});

test.run();
