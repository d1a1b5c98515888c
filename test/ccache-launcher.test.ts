// ccache as the compiler launcher a user sets (CMAKE_CXX_COMPILER_LAUNCHER, read by CMake from the
// environment at a build dir's first configure): a second, fresh kernel build of a small project
// is all cache hits. ccache is optional: without it the test is skipped (failed under
// OPFORGE_REQUIRE_TOOLS=1), saying so; it has a file of its own so that costs nothing.

import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { buildKernels } from '../runtime/kernels.js';
import { CCACHE, testNeeding } from './helpers/optional-tools.js';
import { fixtures, root } from './helpers/paths.js';
import { prepare } from './specspace/run.js';

const dir = path.join(root, 'build', 'ccache-launcher');
const OPS = ['channel_scale', 'max_pool2x2'];

testNeeding(
  [CCACHE],
  'CMAKE_CXX_COMPILER_LAUNCHER=ccache: a fresh kernel build dir after another compiles from the cache',
  async () => {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.join(dir, 'ops', 'kernels'), { recursive: true });
    for (const op of OPS) {
      cpSync(path.join(fixtures, 'user-ops', 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
      for (const ext of ['.cpp', '.cu', '_impl.h', '_ref.py']) {
        const f = path.join(fixtures, 'user-ops', 'ops', 'kernels', `${op}${ext}`);
        if (existsSync(f)) cpSync(f, path.join(dir, 'ops', 'kernels', `${op}${ext}`));
      }
    }
    const project = prepare(dir);
    const ccache = spawnSync('sh', ['-c', 'command -v ccache'], { encoding: 'utf8' }).stdout.trim();
    const saved = { ...process.env };
    // The builds run in child processes, which inherit these; a cache of this test's own.
    Object.assign(process.env, { CMAKE_CXX_COMPILER_LAUNCHER: ccache, CCACHE_DIR: path.join(dir, 'ccache') });
    delete process.env.CCACHE_DISABLE;
    try {
      const stat = (name: string): number =>
        Number(
          new RegExp(`^${name}\\t(\\d+)`, 'm').exec(
            spawnSync(ccache, ['--print-stats'], { encoding: 'utf8', env: process.env }).stdout,
          )?.[1] ?? 0,
        );
      const misses = (): number => stat('direct_cache_miss');
      const hits = (): number => stat('direct_cache_hit') + stat('preprocessed_cache_hit');
      const build = (n: number) =>
        buildKernels({
          root: dir,
          outDir: project.outDir,
          buildDir: path.join(dir, 'build', `kernels-ccache-${n}`),
          cuda: false,
          jobs: 2,
        });
      await build(1);
      const [missed, hit] = [misses(), hits()];
      // The first build compiled the kernels (misses); the second compiles nothing new. (CMake's
      // compiler check at configure goes through the launcher too: hence at least, not exactly.)
      assert.ok(missed >= OPS.length, `${missed} misses`);
      await build(2);
      assert.is(misses(), missed, spawnSync(ccache, ['-s'], { encoding: 'utf8', env: process.env }).stdout);
      assert.ok(hits() >= hit + OPS.length, `${hits() - hit} hits`);
      const cache = readFileSync(path.join(dir, 'build', 'kernels-ccache-2', 'CMakeCache.txt'), 'utf8');
      assert.match(cache, `CMAKE_CXX_COMPILER_LAUNCHER:STRING=${ccache}`);
    } finally {
      for (const k of ['CMAKE_CXX_COMPILER_LAUNCHER', 'CCACHE_DIR', 'CCACHE_DISABLE']) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  },
);

test.run();
