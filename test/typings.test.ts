// The generated typings: a downstream file compiles under tsc --strict, and misuse does not.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fixtures, root } from './helpers/paths.js';

const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
const check = (file: string) =>
  spawnSync(
    tsc,
    [
      '--ignoreConfig',
      '--pretty',
      'false',
      '--noEmit',
      '--strict',
      '--target',
      'ES2022',
      '--module',
      'NodeNext',
      '--moduleResolution',
      'NodeNext',
      '--skipLibCheck',
      path.join(fixtures, 'downstream', file),
    ],
    { encoding: 'utf8' },
  );

test('a downstream app compiles against the generated typings under --strict', () => {
  const r = check('ok.ts');
  assert.is(r.status, 0, r.stdout + r.stderr);
});

test('misuse fails to compile, one error per misuse line', () => {
  const r = check('bad.ts');
  assert.is.not(r.status, 0);
  const lines = new Set([...r.stdout.matchAll(/bad\.ts\((\d+),\d+\): error/g)].map((m) => Number(m[1])));
  assert.equal(
    [...lines].sort((a, b) => a - b),
    [5, 6, 7, 8],
    r.stdout,
  );
  assert.match(r.stdout, /alpah/);
});

test.run();
