// Benchmarks are not timed tests: CI only runs them on tiny sizes to show they work.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';

test('generation benchmark runs (5 ops, 1 run) and output is byte-identical', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'gen.js'), '--ops', '5', '--runs', '2'], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /\| cold gen \(empty out\/\) \| \d+ ms/);
  assert.match(r.stdout, /byte-identical across runs: yes/);
});

test('incremental build benchmark: one touched kernel rebuilds one object', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'incremental.js')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /touch ops\/kernels\/knn_query\.cpp \| 1 \(knn_query\.cpp\.o\)/);
});

test('binding overhead benchmark runs (quick) against onnxruntime-node with identical results', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'bench', 'binding.js'), '--quick'], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /\| latency \| [\d.]+ µs \| [\d.]+ µs \|/);
});

test.run();
