// The variadic-input fixture (test/fixtures/variadic-grad: MemberMix and its gradient op MemberMixGrad,
// which reads the members) as the JAX and Paddle tests run it: a project copy, the columns every
// case must pass, and test/python/variadic_members_check.py's values computed by hand.

import { cpSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import type { TestReport } from '../../runtime/testing/results.js';
import { fixtures, root } from './paths.js';
import { PYTHON } from './python.js';

/** A temporary project holding the fixture's specs and kernels. */
export function variadicProject(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-variadic-'));
  cpSync(path.join(fixtures, 'variadic-grad', 'ops'), path.join(dir, 'ops'), { recursive: true });
  return dir;
}

/** The fixture's cases: MemberMix's 4 and MemberMixGrad's 2. */
const CASES = ['MemberMix#0', 'MemberMix#1', 'MemberMix#2', 'MemberMix#3', 'MemberMixGrad#0', 'MemberMixGrad#1'];

/**
 * Every case of `column` agrees with the reference or, while none runs, with the node column (a
 * dropped or reordered member changes y and firsts: the fixture's description says how); `only`:
 * the cases the column has, when not every one.
 */
export function assertColumn(r: TestReport, column: string, only = CASES): void {
  const cells = r.results.filter((x) => x.backend === column);
  const failed = cells.filter((x) => x.status !== 'ok');
  assert.equal(failed, [], `${column}: ${JSON.stringify(failed)}`);
  assert.equal(cells.map((x) => `${x.op}#${x.case}`).sort(), only);
  assert.ok(
    cells.every((x) => x.compared !== undefined || x.raised),
    `${column}: compared with nothing: ${JSON.stringify(cells)}`,
  );
}

/** test/python/variadic_members_check.py for `backend` (jax | paddle) over a package folder and its library: the lines it printed. */
export function variadicCheck(backend: 'jax' | 'paddle', packageDir: string, library: string): string {
  const r = spawnSync(
    PYTHON,
    [path.join(root, 'test', 'python', 'variadic_members_check.py'), backend, packageDir, library],
    {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', TF_CPP_MIN_LOG_LEVEL: '2', GLOG_minloglevel: '2' },
    },
  );
  assert.is(r.status, 0, `exit ${r.status} (${r.signal}): ${r.stdout}\n${r.stderr.split('\n').slice(-30).join('\n')}`);
  assert.match(r.stdout, /^done$/m);
  return r.stdout;
}
