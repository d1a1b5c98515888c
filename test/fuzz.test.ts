// Short libFuzzer runs (ASan + UBSan) over every op core's deserializer. The long run is
// scripts/fuzz-long.sh, with results in docs/security.md. They need clang++ with libFuzzer, an
// optional tool: without it they are skipped (failed under OPFORGE_REQUIRE_TOOLS=1), saying so.

import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../generator/model/project.js';
import { writeHarnesses } from './fuzz/harness.js';
import { writeFieldHarness } from './fuzz/trt-fields.js';
import { sh } from './helpers/cxx.js';
import { CLANG_LIBFUZZER, testNeeding } from './helpers/optional-tools.js';
import { opsDir, outDir, root } from './helpers/paths.js';

const project = loadProject({ opsDir });
const work = path.join(root, 'build', 'fuzz');
const runs = process.env.OPFORGE_FUZZ_RUNS ?? '30000';

for (const op of project.ops) {
  testNeeding([CLANG_LIBFUZZER], `fuzz ${op.name} deserialize (${runs} runs, ASan+UBSan)`, () => {
    const dir = path.join(work, op.ident.snake);
    const { harness, seed } = writeHarnesses(op, dir);
    const inc = `-I${path.join(outDir, 'include')}`;
    const corpus = path.join(dir, 'corpus');
    mkdirSync(corpus, { recursive: true });
    sh('clang++', ['-std=c++17', '-O1', inc, seed, '-o', path.join(dir, 'seed')]);
    sh(path.join(dir, 'seed'), [corpus]);
    const bin = path.join(dir, 'fuzz');
    sh('clang++', [
      '-std=c++17',
      '-g',
      '-O1',
      '-fsanitize=fuzzer,address,undefined',
      '-fno-sanitize-recover=all',
      inc,
      harness,
      '-o',
      bin,
    ]);
    const r = spawnSync(bin, [`-runs=${runs}`, '-max_len=4096', '-seed=1', corpus], { encoding: 'utf8', cwd: dir });
    assert.is(r.status, 0, r.stderr.slice(-3000));
    assert.ok(existsSync(bin));
    assert.match(r.stderr, /Done \d+ runs/);
  });
}

// The TensorRT creators' field parsing needs TensorRT's headers, which CI does not have; with
// TENSORRT_INCLUDE_DIR set (see docs/tensorrt.md) every creator is fuzzed too.
const trtInclude = process.env.TENSORRT_INCLUDE_DIR;
if (trtInclude) {
  for (const op of project.ops) {
    testNeeding([CLANG_LIBFUZZER], `fuzz ${op.name} TensorRT creator fields (${runs} runs, ASan+UBSan)`, () => {
      const dir = path.join(work, 'trt', op.ident.snake);
      const src = writeFieldHarness(op, dir);
      const bin = path.join(dir, 'fuzz_fields');
      const cuda = process.env.CUDA_INCLUDE_DIR ?? '/usr/local/cuda/include';
      sh('clang++', [
        '-std=c++17',
        '-g',
        '-O1',
        '-fsanitize=fuzzer,address,undefined',
        '-fno-sanitize-recover=all',
        '-Wno-deprecated-declarations',
        `-I${path.join(outDir, 'include')}`,
        `-I${path.join(outDir, 'trt')}`,
        `-I${path.join(outDir, 'trt', 'include')}`,
        '-isystem',
        trtInclude,
        '-isystem',
        cuda,
        src,
        '-o',
        bin,
      ]);
      const r = spawnSync(bin, [`-runs=${runs}`, '-max_len=2048', '-seed=1'], { encoding: 'utf8', cwd: dir });
      assert.is(r.status, 0, r.stderr.slice(-3000));
      assert.match(r.stderr, /Done \d+ runs/);
    });
  }
}

test.run();
