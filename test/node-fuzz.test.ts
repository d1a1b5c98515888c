// Robustness of the Node binding: thousands of seeded random calls with wrong dtypes, odd shapes,
// bad attributes and odd buffers (detached, too short, foreign arrays, offset views), through the
// typed layer and straight into the raw addon, in a child process: it must exit normally (no
// crash, no abort) with every failure a JS exception, and typed-layer errors naming the op.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from '../runtime/index.js';
import { root } from './helpers/paths.js';

const buildDir = path.join(root, 'build', 'node');

test('random calls into the binding only ever throw JS errors', async () => {
  await build({ root, buildDir });
  for (const seed of [1, 2, 3]) {
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'dist', 'test', 'node-fuzz-driver.js'), buildDir, '3000', String(seed)],
      { encoding: 'utf8', timeout: 120_000 },
    );
    assert.is(r.signal, null, `seed ${seed}: killed by ${r.signal}\n${r.stderr.slice(-2000)}`);
    assert.is(r.status, 0, `seed ${seed}: exit ${r.status}\n${r.stderr.slice(-2000)}`);
    const c = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
    assert.is(c.wrongThrow, 0, `seed ${seed}: ${r.stdout}\n${r.stderr.slice(-2000)}`);
    // The generator must reach both outcomes, or it tests nothing.
    assert.ok(c.typeError! > 100 && c.rangeError! > 10, JSON.stringify(c));
  }
});

test.run();
