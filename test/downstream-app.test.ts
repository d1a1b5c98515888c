// examples/downstream-app: compiles under tsc --strict against the runtime's package entry and the
// generated typings, and runs with the expected answers.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';

const app = path.join(root, 'examples', 'downstream-app');

test('examples/downstream-app builds with tsc --strict and runs', () => {
  const tsc = spawnSync(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', app, '--pretty', 'false'], {
    encoding: 'utf8',
  });
  assert.is(tsc.status, 0, tsc.stdout + tsc.stderr);
  const run = spawnSync(process.execPath, [path.join(app, 'dist', 'main.js')], { encoding: 'utf8', cwd: root });
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.is(run.stdout.trim(), '{"first":[0,1,2],"fifth":[4,5,6],"scores":[1,0,-1.5],"leaky":[-0.5,0,2]}');
});

test.run();
