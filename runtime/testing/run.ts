// `opforge test`: every `tests:` case of every spec through every backend this machine has, each
// compared with the spec's reference (or, without one, with the CPU kernel through the Node
// addon), within the case's rtol/atol. Also what a user cannot see: the output shapes each
// backend's shape inference gives against the dims the kernels really wrote, and the op core's
// serialization round trip (the bytes TensorRT plugins and Paddle store) of every case's attributes.
//
// Each backend is a module under backends/ implementing TestBackend (backend.ts). The kernels are
// compiled once (runtime/kernels.ts) for every backend that links them; then every backend's
// prepare (its build, the Python side) runs concurrently, compiles one build at a time with every
// job slot (and the next beside it at the lowest priority: buildQueue), and run() records results
// in the order backends/index.ts lists: the reference first (every column's baseline), then node
// (the baseline where a spec has none). This file sets up the context and sums up.

import { mkdirSync, rmSync } from 'node:fs';
import { atIdlePriority } from '../build-priority.js';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { BACKENDS, type Backend, type Case, type TestContext } from './backend.js';
import { TEST_BACKENDS } from './backends/index.js';
import { makeInputs, writeCase } from './cases.js';
import { compareOutputs } from './compare.js';
import { progressLine } from './outputs.js';
import { summarize, type CaseResult, type TestReport } from './results.js';
import type { OpIR, ProjectIR } from '../../generator/model/ir.js';
import { buildKernels, type KernelBuild } from '../kernels.js';
import { findPython } from '../python-env.js';
import { type Harness, PythonSession, probeOrStartSession, type PythonProbe } from './python-session.js';
import type { SessionStarter } from './standby.js';

export { BACKENDS, type Backend };

export interface TestOptions {
  /** Project root (default: the current directory). */
  root?: string;
  /** Specs directory (default: <root>/ops). */
  opsDir?: string;
  /** Generated code (default: <root>/out). */
  outDir?: string;
  /**
   * Brings out/ up to date first: `opforge test` passes the incremental gen (generator/output),
   * a no-op when out/ is current. Without it, out/ is tested as it is. A parameter, so that the
   * runtime depends on the spec model only, not on the generator's output side.
   */
  regenerate?: (dirs: { opsDir: string; outDir: string; root: string }) => void;
  /** Build directory root (default: <root>/build): node/, torch/, ort/ and test/ under it. */
  buildDir?: string;
  /** Only these ops (names as in the specs). */
  only?: readonly string[];
  /** Backends to run (default: all). */
  backends?: readonly Backend[];
  /** 'cpu' (default) or 'cuda': where node and torch run the kernels. */
  device?: 'cpu' | 'cuda';
  /** Python with torch (default: $OPFORGE_PYTHON, else the active venv or conda env, else python3 or python on PATH: runtime/python-env.ts). */
  python?: string;
  /**
   * Op units per unity batch of the PyTorch extension (default: $OPFORGE_UNITY_BATCH, else
   * testUnityBatch: at most 8, even; 1 builds one unit per op, as the generated CMakeLists does by default).
   */
  unityBatch?: number;
  /**
   * Parallel compiles per build (default: the cores). Builds run one at a time, each with this
   * many, and the next one beside it at the lowest CPU priority (buildQueue).
   */
  jobs?: number;
  /** Progress lines (builds, phases). */
  onProgress?: (line: string) => void;
  /**
   * How the run starts its Python-side interpreters (default: a new one each); `opforge test
   * --watch` hands one taking those it started ahead (standby.ts).
   */
  sessions?: SessionStarter;
}

/** $OPFORGE_UNITY_BATCH as a batch size; a value that is not a positive integer is an error, not ignored. */
function unityBatchFromEnv(): number | undefined {
  const v = process.env.OPFORGE_UNITY_BATCH;
  if (v === undefined || v === '') return undefined;
  if (!/^[1-9]\d*$/.test(v))
    throw new Error(`OPFORGE_UNITY_BATCH must be a positive integer, not ${JSON.stringify(v)}`);
  return Number(v);
}

export async function runTests(opts: TestOptions = {}): Promise<TestReport> {
  const ctx = await setUp(opts);
  try {
    // Builds and the Python side concurrently; results in order.
    await Promise.all(TEST_BACKENDS.filter((b) => b.prepare && b.wanted(ctx)).map((b) => b.prepare!(ctx)));
    for (const b of TEST_BACKENDS) if (b.wanted(ctx)) await b.run(ctx);
  } finally {
    // Ended (a used session finishes; one not needed, the harness's results kept, is stopped).
    ctx.endPythonSession();
  }
  const { results, skipped, env, device } = ctx;
  const backends = ctx.columns.filter((b) => !skipped[b] || results.some((r) => r.backend === b));
  // Asked for CUDA and nothing ran there: not a pass (a user would read "all agree" as checked).
  const onCuda = [
    'node:cuda',
    'torch:cuda',
    'trt:cuda',
    'grad:cuda',
    'jax:cuda',
    'jax-grad:cuda',
    'ort:cuda',
    'ort-legacy:cuda',
    'ort-dynamo:cuda',
  ];
  const noCuda = device === 'cuda' && !results.some((r) => onCuda.includes(r.backend) && r.status === 'ok');
  if (noCuda)
    env.error = `--device cuda: no case ran on CUDA (${
      onCuda
        .map((b) => skipped[b])
        .filter(Boolean)
        .join('; ') || 'see the failures'
    })`;
  return {
    ok: !noCuda && !results.some((r) => r.status === 'fail'),
    backends,
    results,
    skipped,
    env,
    summary: summarize(results),
  };
}

/** Generates out/ when stale, writes every case's inputs, finds Python: the context every backend reads. */
async function setUp(opts: TestOptions): Promise<TestContext & { columns: string[]; endPythonSession(): void }> {
  const root = path.resolve(opts.root ?? process.cwd());
  const opsDir = path.resolve(root, opts.opsDir ?? 'ops');
  const outDir = path.resolve(root, opts.outDir ?? 'out');
  const buildRoot = path.resolve(root, opts.buildDir ?? 'build');
  const device = opts.device ?? 'cpu';
  const found = opts.python ? { python: opts.python, from: 'option' } : findPython();
  const say = opts.onProgress ?? (() => {});
  const unityBatch = opts.unityBatch ?? unityBatchFromEnv();
  const startSession: SessionStarter = opts.sessions ?? ((py, out, warm) => new PythonSession(py, out, { warm }));

  const { project, ops } = await generateAndLoad(opsDir, outDir, root, opts.only, opts.regenerate);
  const casesDir = path.join(buildRoot, 'test', 'cases');
  const cases = writeCases(casesDir, ops);

  const jobs = opts.jobs ?? availableParallelism();
  const compile = buildQueue();
  // The one interpreter of the PyTorch side starts here, when the probe is not kept from an earlier
  // run: it answers the probe (on CUDA the kernels are compiled for the architectures the found
  // torch was built for, so the probe comes first), imports while the builds run, then runs the harness.
  const { probe: probing, session } = probeOrStartSession(
    found.python,
    path.join(buildRoot, 'test', 'python.json'),
    outDir,
  );
  const want = new Set<Backend>(opts.backends ?? BACKENDS);
  const linked: readonly Backend[] = ['node', 'torch', 'grad', 'ort', 'export', 'paddle', 'jax', 'trt'];
  const wantKernels = linked.some((b) => want.has(b)) && ops.length > 0;
  const kernelBuild = async (): Promise<KernelBuild | undefined> => {
    if (!wantKernels) return undefined;
    const archs = device === 'cuda' ? (await probing).cudaArchs : undefined;
    say('building the kernels');
    const python = found.python;
    return compile(() => buildSharedKernels({ root, outDir, buildRoot, device, archs, jobs, say, python }));
  };
  const [probe, kernels] = await Promise.all([probing, kernelBuild()]);
  // The session, or (the probe kept) one started by the first harness that runs: one Python a run
  // for the PyTorch side. With two cores or more on the CPU, Paddle's and JAX's harnesses run beside
  // it, each in an interpreter of its own (harnessSession); else they follow it in the same one.
  // After a kernel edit (the kernel build wrote an object) the harnesses of the columns that run
  // the kernels in Python run again: their session starts now and imports while the backends build.
  const apart = jobs >= 2 && device === 'cpu';
  const harnesses = (['torch', 'paddle', 'jax'] as const).filter((h) =>
    h === 'torch' ? ['torch', 'grad'].some((b) => want.has(b as Backend)) : want.has(h) && !apart,
  );
  let started =
    session ??
    (kernels?.changed && probe.version && harnesses.length ? startSession(found.python, outDir, harnesses) : undefined);
  const pythonSession = (): PythonSession | undefined => {
    if (!started && probe.version) started = startSession(found.python, outDir, false);
    return started?.available ? started : undefined;
  };
  const own = new Map<Harness, PythonSession>();
  const harnessSession = (h: Harness): PythonSession | undefined => {
    if (!apart || h === 'torch' || !probe.version) return pythonSession();
    const s = own.get(h) ?? startSession(found.python, outDir, [h]);
    own.set(h, s);
    return s.available ? s : undefined;
  };
  const env: Record<string, unknown> = { device, python: describePython(found, probe, say) };

  const results: CaseResult[] = [];
  return {
    root,
    outDir,
    buildRoot,
    casesDir,
    device,
    python: found.python,
    pythonFrom: found.from,
    probe,
    pythonSession,
    harnessSession,
    endPythonSession: () => {
      started?.close();
      for (const s of own.values()) s.close();
    },
    project,
    ops,
    cases,
    want,
    ...(unityBatch ? { unityBatch } : {}),
    jobs,
    ...(kernels ? { kernels } : {}),
    compile,
    say,
    progress: progressLine(say),
    results,
    skipped: {},
    env,
    ...reportColumns(),
    check: checkAgainstBaseline(results),
  };
}

/** Brings out/ up to date (opts.regenerate) and picks the ops `--only` names. */
async function generateAndLoad(
  opsDir: string,
  outDir: string,
  root: string,
  only: readonly string[] | undefined,
  regenerate: TestOptions['regenerate'],
): Promise<{ project: ProjectIR; ops: OpIR[] }> {
  const { loadProject } = await import('../../generator/model/project.js');
  regenerate?.({ opsDir, outDir, root });
  const project = loadProject({ opsDir, root });
  // A misspelt name would otherwise test nothing and pass.
  const unknown = (only ?? []).filter((n) => !project.ops.some((o) => o.name === n));
  if (unknown.length)
    throw new Error(`--only: no op named ${unknown.join(', ')} (ops: ${project.ops.map((o) => o.name).join(', ')})`);
  const ops = project.ops.filter((o) => !only?.length || only.includes(o.name));
  return { project, ops };
}

/** Writes every test case's inputs under a fresh casesDir (no case of an earlier run survives). */
function writeCases(casesDir: string, ops: readonly OpIR[]): Case[] {
  rmSync(casesDir, { recursive: true, force: true });
  mkdirSync(casesDir, { recursive: true });
  return ops.flatMap((op) =>
    op.tests.map((t) => {
      const inputs = makeInputs(op, t);
      return { op, doc: writeCase(casesDir, op, t, inputs), inputs, dir: path.join(casesDir, op.ident.snake) };
    }),
  );
}

/**
 * The queue of build steps, in the order they were asked for, failed or not: one at a time with
 * every job slot, and the next one beside it at the lowest CPU priority (build-priority.ts), which
 * takes only the cycles the first leaves idle (its links and last units, the Python side's single
 * thread). A lowered step cannot be raised again, so once one runs, every step started until the
 * queue is empty is lowered too: none of them waits behind a later one at the usual priority.
 */
export function buildQueue(): TestContext['compile'] {
  const waiting: ((idle: boolean) => void)[] = [];
  let running = 0;
  let lowered = false;
  const pump = (): void => {
    while (waiting.length && running < 2) {
      const idle = running > 0 || lowered;
      lowered ||= idle;
      running++;
      waiting.shift()!(idle);
    }
    if (running === 0) lowered = false;
  };
  return <T>(step: () => Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      waiting.push((idle) => {
        (idle ? atIdlePriority(step) : step()).then(resolve, reject).finally(() => {
          running--;
          pump();
        });
      });
      pump();
    });
}

/** The kernels compiled once for every backend that links them, in a build folder per device (and CUDA archs). */
async function buildSharedKernels(o: {
  root: string;
  outDir: string;
  buildRoot: string;
  device: 'cpu' | 'cuda';
  archs: string | undefined;
  jobs: number;
  say: (line: string) => void;
  /** The run's Python: it compiles the Triton kernels (kernels.triton). */
  python: string;
}): Promise<KernelBuild | undefined> {
  try {
    return await buildKernels({
      root: o.root,
      outDir: o.outDir,
      buildDir: path.join(
        o.buildRoot,
        'kernels',
        o.device === 'cuda' ? `cuda-${(o.archs ?? 'default').replace(/;/g, '-')}` : 'cpu',
      ),
      cuda: o.device === 'cuda',
      ...(o.archs ? { cudaArchs: o.archs } : {}),
      python: o.python,
      jobs: o.jobs,
      onLine: progressLine(o.say),
    });
  } catch {
    // Each backend then compiles the kernels itself and reports the failure in its own column.
    return undefined;
  }
}

/** The report's python entry (path, origin, torch and package versions), also said as a progress line. */
function describePython(
  found: { python: string; from: string },
  probe: PythonProbe,
  say: (line: string) => void,
): Record<string, unknown> {
  say(
    `python: ${found.python} (from ${found.from}): ${probe.version ? `torch ${probe.version}` : 'no torch'}${Object.entries(
      probe.packages,
    )
      .map(([k, v]) => `, ${k} ${v}`)
      .join('')}`,
  );
  return {
    path: found.python,
    from: found.from,
    ...(probe.version ? { torch: probe.version } : {}),
    ...probe.packages,
  };
}

/** The report's columns, in the order the backends register them. */
function reportColumns(): Pick<TestContext, 'col' | 'columnsHas'> & { columns: string[] } {
  const columns: string[] = [];
  return {
    columns,
    col: (b) => {
      if (!columns.includes(b)) columns.push(b);
      return b;
    },
    columnsHas: (b) => columns.includes(b),
  };
}

/** TestContext.check: compares a backend's outputs with the case's baseline and records the result. */
function checkAgainstBaseline(results: CaseResult[]): TestContext['check'] {
  return (c, backend, got, extra) => {
    if (!c.baseline) {
      results.push({
        op: c.op.name,
        case: c.doc.index,
        backend,
        status: 'skip',
        message: 'no reference and no CPU kernel result to compare with',
      });
      return;
    }
    const r = compareOutputs(got, c.baseline, c.doc);
    const message = r.mismatch ?? extra;
    const compared = c.baselineFrom === 'reference' ? 'reference' : 'backends';
    results.push({
      op: c.op.name,
      case: c.doc.index,
      backend,
      status: message ? 'fail' : 'ok',
      maxError: r.maxError,
      compared,
      ...(message ? { message } : {}),
    });
  };
}
