// Atomic output under a real kill: the generator is SIGKILLed at many points of a run over 300
// ops; out/ then holds the complete old set or the complete new set, never a mix (or, for the
// instant between the swap's two renames, nothing, with a complete out.next that the next run
// installs).

import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeSyntheticOps } from '../bench/synth-ops.js';
import { generate } from '../generator/output/gen.js';
import { listTree } from '../generator/output/write-out.js';
import { root } from './helpers/paths.js';

const snapshot = (dir: string): string =>
  listTree(dir)
    .map((p) => `${p}\n${readFileSync(path.join(dir, p), 'utf8')}`)
    .join('\0');

function setVersion(opsDir: string, v: string): void {
  for (const f of readdirSync(opsDir).filter((x) => x.endsWith('.yaml'))) {
    const p = path.join(opsDir, f);
    writeFileSync(p, readFileSync(p, 'utf8').replace(/^description: .*$/m, `description: Synthetic op, variant ${v}.`));
  }
}

test('SIGKILL at any point leaves the old or the new complete output', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-kill-'));
  const ops = path.join(dir, 'ops');
  const out = path.join(dir, 'out');
  writeSyntheticOps(ops, 300);
  setVersion(ops, 'B');
  generate({ opsDir: ops, outDir: path.join(dir, 'refB') });
  const setB = snapshot(path.join(dir, 'refB'));
  setVersion(ops, 'A');
  generate({ opsDir: ops, outDir: out });
  const setA = snapshot(out);
  // How long a full run of the CLI takes, to spread the kills over it. Runs on this disk vary by
  // several times from one to the next, so the estimate is updated from every run that finished
  // before its kill, and kills continue until enough have hit a running generator.
  setVersion(ops, 'B');
  const t0 = performance.now();
  await new Promise((r) =>
    spawn(process.execPath, [
      path.join(root, 'dist', 'cli', 'opforge.js'),
      'gen',
      '--quiet',
      '--ops',
      ops,
      '--out',
      path.join(dir, 'timing'),
    ]).on('exit', r),
  );
  let runMs = performance.now() - t0;
  const seen = { old: 0, new: 0, swapping: 0 };
  const wanted = 8;
  let killedRunning = 0;
  let kills = 0;
  for (; kills < 40 && killedRunning < wanted; kills++) {
    const i = kills;
    setVersion(ops, i % 2 ? 'A' : 'B');
    const before = snapshot(out);
    const started = performance.now();
    const child = spawn(process.execPath, [
      path.join(root, 'dist', 'cli', 'opforge.js'),
      'gen',
      '--quiet',
      '--ops',
      ops,
      '--out',
      out,
    ]);
    let exitedAt = 0;
    const exited = new Promise((r) =>
      child.on('exit', () => {
        exitedAt = performance.now();
        r(undefined);
      }),
    );
    // Writing happens at the end of a run: concentrate the kills around it (50% to 98% of a run).
    await new Promise((r) => setTimeout(r, runMs * (0.5 + (0.48 * ((i * 5) % 12)) / 11)));
    if (child.exitCode === null && exitedAt === 0) killedRunning++;
    child.kill('SIGKILL');
    await exited;
    if (exitedAt - started < runMs && child.signalCode === null) runMs = exitedAt - started; // finished early: a faster run
    if (existsSync(out)) {
      const now = snapshot(out);
      assert.ok(now === setA || now === setB, `kill ${i}: out/ is neither complete set`);
      if (now === before) seen.old++;
      else seen.new++;
    } else {
      seen.swapping++;
      assert.ok(
        existsSync(path.join(`${out}.next`, '.opforge-complete')),
        `kill ${i}: out/ missing without a complete out.next`,
      );
    }
    // The next run recovers whatever state the kill left and finishes the job.
    generate({ opsDir: ops, outDir: out });
    assert.ok(snapshot(out) === (i % 2 ? setA : setB), `kill ${i}: recovery did not produce the new set`);
  }
  assert.ok(seen.old + seen.new + seen.swapping === kills);
  assert.ok(
    killedRunning >= wanted,
    `only ${killedRunning} of ${kills} kills hit a running generator: ${JSON.stringify(seen)}`,
  );
});

test.run();
