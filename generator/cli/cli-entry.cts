// The `opforge` command's entry (dist/cli/opforge.js, CommonJS: Node starts a CommonJS entry ~10 ms
// sooner than an ES module one; dist/cli/package.json says so): runs the bundle (dist/cli/opforge-main.cjs,
// generator/tooling/build-cli.ts) with a V8 code cache, so that a run does not compile again what the last
// one did (a one-op `gen` on 500 ops: about 30 ms of 300, docs/benchmarks.md).
// - Node >= 22.1: Node's own compile cache (module.enableCompileCache).
// - Node 20: the bundle is compiled as a vm script with the cached data, and the cache is written at
//   exit when there was none (or V8 rejected it: another Node, another bundle) and when this run
//   generated code and the cache came from one that did not: V8 then also keeps the functions this
//   run compiled (the emitters), not only those compiled before it ran.
// The cache lives in the user's cache directory ($XDG_CACHE_HOME or ~/.cache, opforge/), never in
// a shared temp dir: V8 trusts its cached code. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for Node's own.

import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import vm from 'node:vm';

const bundle = path.join(__dirname, 'opforge-main.cjs');
const bundleRequire = module.createRequire(bundle);

function cacheDir(): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  const base = process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), '.cache') : '');
  return base ? path.join(base, 'opforge') : undefined;
}

/**
 * Makes each directory in turn (parents first); false when one cannot be made. Not mkdirSync's
 * recursive mode, nor Node's own for its compile cache: under /proc those never return (Node 20, 22).
 */
function makeDirs(dirs: readonly string[]): boolean {
  for (const d of dirs) {
    try {
      mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return false;
    }
  }
  return true;
}

function runWithCache(dir: string): void {
  const source = readFileSync(bundle, 'utf8');
  const st = statSync(bundle);
  const key = createHash('sha1')
    .update(`${bundle}\0${st.size}:${st.mtimeMs}\0${process.version}\0${process.arch}`)
    .digest('hex')
    .slice(0, 16);
  const plain = path.join(dir, `${key}.v8`);
  const full = path.join(dir, `${key}-gen.v8`);
  let cachedData: Buffer | undefined;
  let from: string | undefined;
  for (const f of [full, plain]) {
    try {
      cachedData = readFileSync(f);
      from = f;
      break;
    } catch {
      /* not written yet */
    }
  }
  const script = new vm.Script(module.wrap(source.replace(/^#!.*/, '')), {
    filename: bundle,
    ...(cachedData ? { cachedData } : {}),
  });
  process.on('exit', () => {
    const generated = (globalThis as Record<symbol, unknown>)[Symbol.for('opforge.cli.generated')] === true;
    const to = generated ? full : plain;
    if (from !== undefined && !script.cachedDataRejected && (from === full || !generated)) return;
    if (!makeDirs([path.dirname(dir), dir])) return;
    try {
      const tmp = `${to}.${process.pid}.tmp`;
      writeFileSync(tmp, script.createCachedData());
      renameSync(tmp, to); // whole or not at all, whichever process writes last
    } catch {
      /* a read-only home: run without the cache */
    }
  });
  (globalThis as Record<symbol, unknown>)[Symbol.for('opforge.cli.import')] = (specifier: string) => import(specifier);
  const exports = {};
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    exports,
    exports,
    bundleRequire,
    { exports },
    bundle,
    path.dirname(bundle),
  );
}

const dir = cacheDir();
const nodeCache = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
if (dir !== undefined && nodeCache) {
  if (makeDirs([path.dirname(dir), dir, path.join(dir, 'node')])) nodeCache(path.join(dir, 'node'));
  bundleRequire(bundle);
} else if (dir !== undefined) {
  runWithCache(dir);
} else {
  bundleRequire(bundle);
}
