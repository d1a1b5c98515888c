// How `npm test` runs files side by side (test/helpers/suite-schedule.ts): what a file shares is
// read from its text, and no two jobs holding the same build folder, nor a job before what it
// builds on, ever run at once.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from '../helpers/paths.js';
import { EVERYTHING, type Job, nextJob, sharedResources } from '../helpers/suite-schedule.js';

const job = (id: string, weight: number, resources: string[] = [], after: string[] = []): Job => ({
  id,
  weight,
  resources,
  after,
});

test('a file holds the repo build folders it names, the repo project when it builds it, everything when it runs the suite', () => {
  assert.equal(sharedResources("const d = path.join(root, 'build', 'jax-run');"), ['build/jax-run']);
  // A folder of another project (not the repo's) is not shared.
  assert.equal(sharedResources("path.join(project.root, 'build', 'torch')"), []);
  const repo = sharedResources('const r = await runTests({ root, backends: ["grad"] });');
  assert.ok(repo.includes('build/torch') && repo.includes('build/kernels'), repo.join(' '));
  assert.ok(sharedResources("runOpforge(root, ['test'])").includes('build/test'));
  assert.equal(sharedResources('runTests({ root: dir, backends })'), []);
  assert.equal(sharedResources("spawnSync(node, ['dist/test/run-suite.js'])"), [EVERYTHING]);
});

test('the real files: the seed ops PyTorch build is shared, the corpus is not', () => {
  const of = (f: string) => sharedResources(readFileSync(path.join(root, 'dist', 'test', `${f}.test.js`), 'utf8'));
  for (const f of ['grad', 'hostile-calls', 'torch', 'benchmarks-smoke', 'opforge-test'])
    assert.ok(of(f).includes('build/torch'), `${f}: ${of(f).join(' ')}`);
  assert.equal(of('specspace'), ['build/specspace']);
  assert.equal(of('fresh-machine'), [EVERYTHING]);
});

test('the heaviest job that can start starts; a held folder or an unended dependency holds a job back', () => {
  const a = job('a', 10, ['build/torch']);
  const b = job('b', 50, ['build/torch']);
  const c = job('c', 5);
  const d = job('d', 100, [], ['c']);
  assert.is(nextJob([a, b, c, d], [], new Set())?.id, 'b');
  assert.is(nextJob([a, c, d], [b], new Set())?.id, 'c');
  assert.is(nextJob([a, d], [b], new Set(['c']))?.id, 'd');
  assert.is(nextJob([a], [b], new Set(['c', 'd'])), undefined);
});

test('a job holding everything waits for an idle machine, and while it runs nothing else starts', () => {
  const all = job('all', 1, [EVERYTHING]);
  const other = job('other', 1);
  assert.is(nextJob([all], [other], new Set()), undefined);
  assert.is(nextJob([all], [], new Set())?.id, 'all');
  assert.is(nextJob([other], [all], new Set()), undefined);
  // It goes first, lighter or not, and while it waits for the machine to empty nothing else starts.
  const heavy = job('heavy', 500);
  assert.is(nextJob([heavy, all], [], new Set())?.id, 'all');
  assert.is(nextJob([heavy, all], [other], new Set()), undefined);
  // One whose dependency has not ended holds nothing back.
  const later = job('later', 1, [EVERYTHING], ['heavy']);
  assert.is(nextJob([later, other], [heavy], new Set())?.id, 'other');
});

test.run();
