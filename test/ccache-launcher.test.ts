// ccache as the compiler launcher a user sets (CMAKE_CXX_COMPILER_LAUNCHER, read by CMake from the
// environment at a build dir's first configure): a second, fresh kernel build of a small project
// is all cache hits; and as opforge.cmake sets it, with the project as ccache's base_dir: a copy
// of the project at another path compiles from what the first one cached. ccache is optional: without it the test is skipped (failed under
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

/** A fresh project in `at` with the OPS of the user-ops fixture, generated. */
function copyProject(at: string): ReturnType<typeof prepare> {
  rmSync(at, { recursive: true, force: true });
  mkdirSync(path.join(at, 'ops', 'kernels'), { recursive: true });
  for (const op of OPS) {
    cpSync(path.join(fixtures, 'user-ops', 'ops', `${op}.yaml`), path.join(at, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_impl.h', '_ref.py']) {
      const f = path.join(fixtures, 'user-ops', 'ops', 'kernels', `${op}${ext}`);
      if (existsSync(f)) cpSync(f, path.join(at, 'ops', 'kernels', `${op}${ext}`));
    }
  }
  return prepare(at);
}

/** ccache's counter `name` for the cache in `env`. */
function ccacheStat(ccache: string, env: NodeJS.ProcessEnv, name: string): number {
  const out = spawnSync(ccache, ['--print-stats'], { encoding: 'utf8', env }).stdout;
  return Number(new RegExp(`^${name}\\t(\\d+)`, 'm').exec(out)?.[1] ?? 0);
}

testNeeding(
  [CCACHE],
  'CMAKE_CXX_COMPILER_LAUNCHER=ccache: a fresh kernel build dir after another compiles from the cache',
  async () => {
    const project = copyProject(dir);
    const ccache = spawnSync('sh', ['-c', 'command -v ccache'], { encoding: 'utf8' }).stdout.trim();
    const saved = { ...process.env };
    // The builds run in child processes, which inherit these; a cache of this test's own.
    Object.assign(process.env, { CMAKE_CXX_COMPILER_LAUNCHER: ccache, CCACHE_DIR: path.join(dir, 'ccache') });
    delete process.env.CCACHE_DISABLE;
    try {
      const stat = (name: string): number => ccacheStat(ccache, process.env, name);
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

testNeeding([CCACHE], "opforge's launcher: a copy of the project at another path compiles from the cache", async () => {
  const copies = [path.join(dir, 'copies', 'first'), path.join(dir, 'copies', 'second', 'deeper')];
  const ccache = spawnSync('sh', ['-c', 'command -v ccache'], { encoding: 'utf8' }).stdout.trim();
  const saved = { ...process.env };
  // No launcher and no base_dir of the user's: what out/cmake/opforge.cmake sets is what is tested.
  for (const k of ['CMAKE_CXX_COMPILER_LAUNCHER', 'CCACHE_BASEDIR', 'CCACHE_DISABLE']) delete process.env[k];
  process.env.CCACHE_DIR = path.join(dir, 'copies', 'ccache');
  rmSync(process.env.CCACHE_DIR, { recursive: true, force: true });
  try {
    const stat = (name: string): number => ccacheStat(ccache, process.env, name);
    const hits = (): number => stat('direct_cache_hit') + stat('preprocessed_cache_hit');
    for (const [i, at] of copies.entries()) {
      const project = copyProject(at);
      const before = [stat('cache_miss'), hits()];
      await buildKernels({
        root: at,
        outDir: project.outDir,
        buildDir: path.join(at, 'build', 'kernels'),
        cuda: false,
        jobs: 2,
      });
      const cache = readFileSync(path.join(at, 'build', 'kernels', 'CMakeCache.txt'), 'utf8');
      assert.match(cache, `CCACHE_BASEDIR=${at};`);
      if (i === 0) assert.ok(stat('cache_miss') - before[0]! >= OPS.length, `${stat('cache_miss')} misses`);
      // The second copy: every kernel a hit, nothing compiled.
      else {
        assert.ok(hits() - before[1]! >= OPS.length, `${hits() - before[1]!} hits`);
        assert.is(
          stat('cache_miss'),
          before[0],
          spawnSync(ccache, ['-s'], { encoding: 'utf8', env: process.env }).stdout,
        );
      }
    }
  } finally {
    for (const k of ['CMAKE_CXX_COMPILER_LAUNCHER', 'CCACHE_BASEDIR', 'CCACHE_DIR', 'CCACHE_DISABLE']) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  }
});

test.run();
