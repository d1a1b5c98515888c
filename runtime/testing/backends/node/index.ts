// The node column: the Node addon built with cmake-js, each case called synchronously with the
// attributes the case gives and asynchronously with all of them. Without a reference the CPU
// kernel's output becomes the baseline the other columns are held to.

import { testUnityBatch } from '../../unity-batch.js';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { addonPath, build, load } from '../../../index.js';
import { onDevice, type Case, type Outputs, type TestBackend, type TestContext } from '../../backend.js';
import { buildFailureResults } from '../../build-failure.js';
import type { HostTensor } from '../../cases.js';
import { compareOutputs, type GotTensor } from '../../compare.js';
import { firstLines } from '../../outputs.js';
import { hasCudaKernel } from '../../../../generator/model/ir-helpers.js';

interface DeviceApi {
  cudaAvailable(): boolean;
  builtWithCuda(): boolean;
  toDevice(t: unknown): unknown;
  toHost(t: unknown): GotTensor;
}
/** out/node/index.js, as far as the test uses it (its typings are per project). */
interface NodeModule {
  bind(addon: unknown): Record<string, (...a: unknown[]) => Outputs>;
  bindAsync(addon: unknown): Record<string, (...a: unknown[]) => Promise<Outputs>>;
  device(addon: unknown): DeviceApi;
}
interface NodeBinding {
  sync: ReturnType<NodeModule['bind']>;
  async: ReturnType<NodeModule['bindAsync']>;
  dev: DeviceApi;
}

/** The addon's build, started by prepare: its build directory, or the error. */
const built = new WeakMap<TestContext, Promise<{ buildDir: string } | { error: unknown }>>();

function buildAddon(ctx: TestContext): Promise<{ buildDir: string } | { error: unknown }> {
  const cuda = ctx.device === 'cuda';
  const buildDir = path.join(ctx.buildRoot, 'node');
  return ctx
    .compile(async () => {
      ctx.say(`building the Node addon${cuda ? ' with CUDA' : ''}`);
      await build({
        root: ctx.root,
        outDir: ctx.outDir,
        buildDir,
        cuda,
        ...(ctx.kernels ? { kernels: ctx.kernels.defs } : {}),
        jobs: ctx.jobs,
        // The addon's own unit (addon.cpp) is a source of the first batch too.
        unityBatch: testUnityBatch(ctx.project.ops.length) + 1,
        onLine: ctx.progress,
      });
      return { buildDir };
    })
    .catch((error: unknown) => ({ error }));
}

export const nodeBackend: TestBackend = {
  name: 'node',
  wanted: (ctx) => ctx.want.has('node'),
  async prepare(ctx) {
    const p = buildAddon(ctx);
    built.set(ctx, p);
    await p;
  },
  async run(ctx) {
    const column = ctx.col(onDevice(ctx, 'node'));
    const bound = await bindAddon(ctx, column);
    for (const c of bound ? ctx.cases : []) await runCase(ctx, column, bound!, c);
  },
};

/**
 * The addon as this build left it. Node keeps a loaded addon by its path for the life of the
 * process, so a second run in one process (runTests called again after a kernel edit) would call
 * the first build's code and report its results: it loads a copy named by the addon's content
 * instead, beside it, and a rebuilt addon is a new file.
 */
function loadAsBuilt(buildDir: string): unknown {
  const built = addonPath(path.resolve(buildDir));
  if (!existsSync(built)) return load(buildDir); // load's error names what to do
  const bytes = readFileSync(built);
  const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  const copy = path.join(path.dirname(built), `.loaded-${hash}.node`);
  if (!existsSync(copy)) {
    // Written aside and renamed: a concurrent run loads all of it or writes its own.
    const tmp = `${copy}.${process.pid}`;
    writeFileSync(tmp, bytes);
    renameSync(tmp, copy);
  }
  // Earlier builds' copies go (one still loaded elsewhere stays mapped there).
  for (const f of readdirSync(path.dirname(built)))
    if (/^\.loaded-[0-9a-f]{16}\.node$/.test(f) && f !== path.basename(copy))
      rmSync(path.join(path.dirname(built), f), { force: true });
  return createRequire(import.meta.url)(copy);
}

/** Builds and loads the addon; undefined (with the reason recorded) when it cannot run here. */
async function bindAddon(ctx: TestContext, column: string): Promise<NodeBinding | undefined> {
  const cuda = ctx.device === 'cuda';
  let bound: NodeBinding;
  try {
    const b = await (built.get(ctx) ?? buildAddon(ctx));
    if ('error' in b) throw b.error;
    const { buildDir } = b;
    const mod = (await import(pathToFileURL(path.join(ctx.outDir, 'node', 'index.js')).href)) as NodeModule;
    const addon = loadAsBuilt(buildDir);
    bound = { sync: mod.bind(addon), async: mod.bindAsync(addon), dev: mod.device(addon) };
  } catch (e) {
    ctx.results.push(...buildFailureResults(e, ctx.ops, [column], ctx.root, ctx.project.ops));
    return undefined;
  }
  if (cuda && !bound.dev.builtWithCuda()) {
    // We just built it with CUDA: an addon without it is a build problem, not a missing GPU.
    for (const op of ctx.ops)
      ctx.results.push({
        op: op.name,
        case: null,
        backend: column,
        status: 'fail',
        message: 'the addon built with --cuda reports no CUDA kernels (stale build directory?)',
      });
    return undefined;
  }
  if (cuda && !bound.dev.cudaAvailable()) {
    ctx.skipped[column] = 'no CUDA device (the addon has its CUDA kernels)';
    return undefined;
  }
  return bound;
}

/** A result with a variadic output's array (`parts: [...]`) as its members, `parts_0`, `parts_1`, ...: the names the other columns give them. */
function memberOutputs(res: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(res).flatMap(([k, v]) => (Array.isArray(v) ? v.map((t, m) => [`${k}_${m}`, t]) : [[k, v]])),
  );
}

async function runCase(ctx: TestContext, column: string, bound: NodeBinding, c: Case): Promise<void> {
  const cuda = ctx.device === 'cuda';
  const at = { op: c.op.name, case: c.doc.index, backend: column };
  if (cuda && !hasCudaKernel(c.op)) {
    ctx.results.push({ ...at, status: 'skip', message: 'the spec names no kernels.cuda' });
    return;
  }
  const fn = bound.sync[c.op.ident.camel]!;
  try {
    let got: Outputs;
    if (cuda) {
      const dev = bound.dev;
      const toDevice = (t: HostTensor | undefined): unknown => (t ? dev.toDevice(t) : undefined);
      const args = c.inputs.map((t) => (Array.isArray(t) ? t.map(toDevice) : toDevice(t)));
      const res = memberOutputs(fn(...args, c.doc.given) as Record<string, unknown>);
      got = Object.fromEntries(Object.entries(res).map(([k, t]) => [k, dev.toHost(t)]));
    } else {
      got = memberOutputs(fn(...c.inputs, c.doc.given) as Record<string, unknown>) as Outputs;
    }
    if (!c.baseline) {
      // No reference: the CPU kernel is what the other backends are held to.
      if (!cuda) {
        c.baseline = got as Record<string, HostTensor>;
        c.baselineFrom = 'node';
      }
      ctx.results.push({
        ...at,
        status: c.baseline ? 'base' : 'skip',
        message: c.baseline
          ? 'baseline: the other backends are compared with this output (the spec has no reference)'
          : 'no reference to compare with',
      });
      return;
    }
    const later = cuda
      ? undefined
      : (memberOutputs(
          (await bound.async[c.op.ident.camel]!(...c.inputs, c.doc.attributes)) as Record<string, unknown>,
        ) as Outputs);
    const r = compareOutputs(later ?? got, c.baseline, c.doc);
    ctx.check(c, column, got, r.mismatch ? `async, all attributes given: ${r.mismatch}` : undefined);
  } catch (e) {
    ctx.results.push({ ...at, status: 'fail', message: firstLines(e) });
  }
}
