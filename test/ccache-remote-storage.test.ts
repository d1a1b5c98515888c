// A shared compiler cache across projects, as docs/building.md tells a team to set one up: ccache's
// remote storage over HTTP (here a minimal server on localhost that stores what ccache PUTs and serves
// it back), through the ccache the generated CMake compiles with when it is installed, with
// CCACHE_BASEDIR so two project directories hash alike. A first project's `opforge build` fills the
// server; a second, fresh project directory with an empty local cache builds from it: every compile
// a remote hit, none compiled. ccache is optional: without it the test is skipped (failed under
// OPFORGE_REQUIRE_TOOLS=1), saying so.

import { spawnSync } from 'node:child_process';
import { execa } from 'execa';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { CCACHE, testNeeding } from './helpers/optional-tools.js';
import { fixtures, root } from './helpers/paths.js';

// Under build/ so that node-addon-api resolves from the project's node_modules.
const dir = path.join(root, 'build', 'ccache-remote-storage');
const OPS = ['channel_scale', 'max_pool2x2'];
const cli = path.join(root, 'dist', 'cli', 'opforge.js');

/** An HTTP store: GET/HEAD a key, PUT it, DELETE it (what ccache's http backend speaks). */
function startStore(store: string): Promise<{ url: string; close: () => void; requests: Record<string, number> }> {
  mkdirSync(store, { recursive: true });
  const requests: Record<string, number> = {};
  const server = http.createServer((req, res) => {
    const method = req.method ?? '';
    requests[method] = (requests[method] ?? 0) + 1;
    const file = path.join(store, encodeURIComponent(req.url ?? ''));
    if (method === 'GET' || method === 'HEAD') {
      if (!existsSync(file)) return res.writeHead(404).end();
      const body = readFileSync(file);
      res.writeHead(200, { 'content-length': body.length });
      return res.end(method === 'GET' ? body : undefined);
    }
    if (method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        writeFileSync(file, Buffer.concat(chunks));
        res.writeHead(201).end();
      });
      return;
    }
    if (method === 'DELETE') {
      rmSync(file, { force: true });
      return res.writeHead(204).end();
    }
    res.writeHead(405).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/cache`, close: () => server.close(), requests });
    }),
  );
}

function project(name: string): string {
  const p = path.join(dir, name);
  mkdirSync(path.join(p, 'ops', 'kernels'), { recursive: true });
  for (const op of OPS) {
    cpSync(path.join(fixtures, 'user-ops', 'ops', `${op}.yaml`), path.join(p, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_impl.h', '_ref.py']) {
      const f = path.join(fixtures, 'user-ops', 'ops', 'kernels', `${op}${ext}`);
      if (existsSync(f)) cpSync(f, path.join(p, 'ops', 'kernels', `${op}${ext}`));
    }
  }
  return p;
}

testNeeding(
  [CCACHE],
  "ccache remote storage over HTTP: a second, fresh project directory's `opforge build` compiles nothing, all remote hits",
  async () => {
    rmSync(dir, { recursive: true, force: true });
    const store = await startStore(path.join(dir, 'store'));
    const ccache = spawnSync('sh', ['-c', 'command -v ccache'], { encoding: 'utf8' }).stdout.trim();
    try {
      // ccache --print-stats of a project's local cache directory.
      const stats = (p: string): Record<string, number> => {
        const text = spawnSync(ccache, ['--print-stats'], {
          encoding: 'utf8',
          env: { ...process.env, CCACHE_DIR: path.join(p, 'ccache') },
        }).stdout;
        return Object.fromEntries([...text.matchAll(/^(\w+)\t(\d+)$/gm)].map((m) => [m[1]!, Number(m[2])]));
      };
      const build = async (p: string): Promise<Record<string, number>> => {
        // What docs/building.md tells a team to set: the shared storage and the directory paths are
        // relative to (the generated CMake compiles through ccache by itself when it is installed).
        const env: NodeJS.ProcessEnv = {
          ...process.env,
          CCACHE_REMOTE_STORAGE: store.url,
          CCACHE_BASEDIR: dir,
          CCACHE_DIR: path.join(p, 'ccache'),
        };
        for (const k of ['CCACHE_DISABLE', 'CMAKE_CXX_COMPILER_LAUNCHER', 'CMAKE_CUDA_COMPILER_LAUNCHER'])
          delete env[k];
        // Not spawnSync: the server answers from this process's event loop while the build runs.
        for (const args of [['gen', '--quiet'], ['build']]) {
          const r = await execa(process.execPath, [cli, ...args], { cwd: p, env, reject: false });
          assert.is(r.exitCode, 0, `${p}: opforge ${args[0]}\n${r.stdout}${r.stderr}`);
        }
        assert.ok(existsSync(path.join(p, 'build', 'node', 'Release', 'opforge_node.node')), 'the addon was built');
        return stats(p);
      };
      const first = await build(project('first'));
      // The first project compiled its units (misses) and wrote them to the server.
      assert.ok(first.cache_miss! >= OPS.length, JSON.stringify(first));
      assert.ok(first.remote_storage_write! >= first.cache_miss!, JSON.stringify(first));
      assert.ok((store.requests.PUT ?? 0) > 0, 'the server received the results');
      const second = await build(project('second'));
      // The second (another directory, an empty local cache) compiled nothing: each unit a remote hit.
      assert.is(second.cache_miss, 0, JSON.stringify(second));
      assert.is(second.remote_storage_hit, first.cache_miss, JSON.stringify(second));
      assert.is(second.remote_storage_error ?? 0, 0, JSON.stringify(second));
    } finally {
      store.close();
    }
  },
);

test.run();
