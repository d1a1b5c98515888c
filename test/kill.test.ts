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
import { generate } from '../generator/gen.js';
import { listTree } from '../generator/write-out.js';
import { root } from './helpers/paths.js';

const snapshot = (dir: string): string => listTree(dir).map((p) => `${p}\n${readFileSync(path.join(dir, p), 'utf8')}`).join('\0');

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
  // How long a full run of the CLI takes, to spread the kills over it.
  setVersion(ops, 'B');
  const t0 = performance.now();
  await new Promise((r) => spawn(process.execPath, [path.join(root, 'dist', 'generator', 'cli.js'), 'gen', '--quiet', '--ops', ops, '--out', path.join(dir, 'timing')]).on('exit', r));
  const runMs = performance.now() - t0;
  const seen = { old: 0, new: 0, swapping: 0 };
  let killedRunning = 0;
  for (let i = 0; i < 12; i++) {
    setVersion(ops, i % 2 ? 'A' : 'B');
    const before = snapshot(out);
    const child = spawn(process.execPath, [path.join(root, 'dist', 'generator', 'cli.js'), 'gen', '--quiet', '--ops', ops, '--out', out]);
    const exited = new Promise((r) => child.on('exit', r));
    // Writing happens at the end of a run: concentrate the kills around it.
    await new Promise((r) => setTimeout(r, runMs * (0.6 + (0.9 * i) / 11)));
    if (child.exitCode === null) killedRunning++;
    child.kill('SIGKILL');
    await exited;
    if (existsSync(out)) {
      const now = snapshot(out);
      assert.ok(now === setA || now === setB, `kill ${i}: out/ is neither complete set`);
      if (now === before) seen.old++;
      else seen.new++;
    } else {
      seen.swapping++;
      assert.ok(existsSync(path.join(`${out}.next`, '.opforge-complete')), `kill ${i}: out/ missing without a complete out.next`);
    }
    // The next run recovers whatever state the kill left and finishes the job.
    generate({ opsDir: ops, outDir: out });
    assert.ok(snapshot(out) === (i % 2 ? setA : setB), `kill ${i}: recovery did not produce the new set`);
  }
  assert.ok(seen.old + seen.new + seen.swapping === 12);
  // Timing varies with load; what matters is that most kills hit a running generator.
  assert.ok(killedRunning >= 6, `only ${killedRunning} of 12 kills hit a running generator: ${JSON.stringify(seen)}`);
});

test.run();
