// `opforge new`: the spec validates, gen works, and the kernel stubs compile against the
// generated contract (g++ -Werror; nvcc when present).

import { cpSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { root } from './helpers/paths.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');

test('opforge new writes a valid spec and stubs that compile', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-new-'));
  mkdirSync(path.join(dir, 'schema'));
  cpSync(path.join(root, 'schema', 'op.schema.json'), path.join(dir, 'schema', 'op.schema.json'));
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  const r = run(['new', 'MyScaleOp']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /ops\/my_scale_op\.yaml/);
  assert.is(run(['new', 'MyScaleOp']).status, 2, 'refuses to overwrite');
  assert.is(run(['new', 'class']).status, 2, 'rejects keywords');
  const spec = readFileSync(path.join(dir, 'ops', 'my_scale_op.yaml'), 'utf8');
  assert.ok(spec.startsWith('# yaml-language-server: $schema=../schema/op.schema.json'));
  const g = run(['gen']);
  assert.is(g.status, 0, g.stderr);
  const inc = `-I${path.join(dir, 'out', 'include')}`;
  sh('g++', [...CXXFLAGS, inc, '-c', path.join(dir, 'ops', 'kernels', 'my_scale_op.cpp'), '-o', path.join(dir, 'k.o')]);
  if (spawnSync('nvcc', ['--version']).status === 0) {
    sh('nvcc', ['-std=c++17', inc, '-Xcompiler=-Wall,-Wextra,-Werror', '-c', path.join(dir, 'ops', 'kernels', 'my_scale_op.cu'), '-o', path.join(dir, 'k_cu.o')]);
  }
});

test.run();
