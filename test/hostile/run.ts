// The hostile-call fuzzer's runner (test/python/hostile_calls.py in batches): builds the bindings
// of the seed ops and a few spec-space corpus ops, runs every binding × mode in subprocesses with a
// timeout, resumes a crashed batch after the crashing call and replays that call alone. Used by
// test/hostile-calls.test.ts and the long run (test/hostile/long.ts, scripts/hostile-long.sh).

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildJaxLibrary } from '../../runtime/testing/backends/jax/build.js';
import { buildTorchExtension } from '../../runtime/testing/backends/pytorch/build.js';
import { probeTorch } from '../../runtime/testing/python-session.js';
import { root } from '../helpers/paths.js';
import { PYTHON } from '../helpers/python.js';
import { writeCorpus } from '../specspace/corpus.js';
import { prepare } from '../specspace/run.js';

export const DRIVER = path.join(root, 'test', 'python', 'hostile_calls.py');
/**
 * Corpus seeds: 1 (bool, float, int, string enum, ints), 4 (two type variables, an optional input,
 * ints, floats, a ranged int), 8 (an optional input, ranged float and ints, floats), 29 (a type
 * variable, an optional input, floats), 32 (a heterogeneous variadic input: members of bfloat16,
 * int32 and float32, mixed by the mutations), 38 (an optional input, int enum, string).
 */
export const CORPUS_SEEDS = [1, 4, 8, 29, 32, 38];
/**
 * Seconds a batch may take before it counts as a hang: a process start, then per call (a call takes
 * milliseconds to a quarter second of CPU alone, jax.vmap the most; torch.compile compiles every
 * call, seconds each). Generous: the machine may be shared (at a load of 10 to 14 on 2 cores a
 * torch.compile call took over 20 s, and 60 jax.vmap calls over 180 s).
 */
export function batchTimeoutS(mode: string, calls: number): number {
  return 180 + calls * (mode === 'compile' ? 90 : 3);
}

/** Crashes per binding × mode and project before its remaining calls are left out (each costs two process starts; the long run allows more). */
export const MAX_CRASHES = 1;

export type Binding = 'torch' | 'jax' | 'paddle';
export type Plan = Record<Binding, Record<string, { calls: number; batches: number }>>;
/** The suite's run: calls per batch and batches per binding × mode and project. */
export const PLAN: Plan = {
  // Per project (the seed ops, the corpus). The suite's budget is about 5 minutes of CPU on 2 cores
  // with the builds cached; each batch is a process start (3-8 s: torch, jax or paddle imported),
  // then milliseconds a call (torch), tens of ms (JAX, compiling each new shape), a second or more
  // (torch.compile compiles every call). scripts/hostile-long.sh runs the tens of thousands.
  torch: { eager: { calls: 1000, batches: 1 }, compile: { calls: 3, batches: 1 } },
  jax: {
    eager: { calls: 200, batches: 1 },
    jit: { calls: 100, batches: 1 },
    vmap: { calls: 60, batches: 1 },
    grad: { calls: 80, batches: 1 },
  },
  paddle: {
    dygraph: { calls: 300, batches: 1 },
    static: { calls: 100, batches: 1 },
    'static-train': { calls: 60, batches: 1 },
  },
};

/** A project whose bindings the driver calls: its generated Python packages and built libraries. */
export interface Project {
  name: string;
  outDir: string;
  libraries: Partial<Record<Binding, string>>;
}

export interface Counts {
  calls: number;
  accepted: number;
  raised: Record<string, number>;
  mismatches: number;
  nameless: number;
  rejected_valid: number;
  setup_failed: number;
  /** Valid calls whose outputs do not fit in memory, failing in a compiled graph or executor. */
  out_of_memory: number;
  examples: unknown[];
  mismatch_examples: unknown[];
  rejected_examples: unknown[];
}

export interface Failure {
  kind: 'crash' | 'hang' | 'mismatch' | 'nameless' | 'rejected' | 'driver' | 'cut';
  where: string;
  detail: string;
}

function run(cmd: string, args: string[], what: string): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${what} failed:\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
}

/** The Paddle op library, built with CMake against the wheel (as test/paddle-run.test.ts builds it). */
function buildPaddle(outDir: string, buildDir: string): string {
  if (!existsSync(path.join(buildDir, 'CMakeCache.txt')))
    run(
      'cmake',
      // Warnings are not what this build is for (test/paddle-run.test.ts builds with -Werror).
      [
        '-S',
        outDir,
        '-B',
        buildDir,
        '-DWITH_PADDLE=ON',
        `-DPADDLE_PYTHON=${PYTHON}`,
        '-DCMAKE_BUILD_TYPE=Release',
        '-DOPFORGE_WERROR=OFF',
      ],
      'cmake configure of out/paddle',
    );
  run('cmake', ['--build', buildDir, '--target', 'opforge_paddle_ops', '-j', '2'], 'building the Paddle op library');
  return path.join(buildDir, 'paddle', 'libopforge_paddle_ops.so');
}

/** Builds what `binding` needs for the seed ops and the corpus (incremental: cheap the second time). */
export async function projects(binding: Binding): Promise<Project[]> {
  const corpusRoot = path.join(root, 'build', 'hostile-corpus');
  mkdirSync(corpusRoot, { recursive: true });
  writeCorpus(corpusRoot, CORPUS_SEEDS);
  const corpus = prepare(corpusRoot);
  const all = [
    { name: 'seed ops', root, outDir: path.join(root, 'out'), build: path.join(root, 'build') },
    {
      name: `corpus seeds ${CORPUS_SEEDS.join(',')}`,
      root: corpusRoot,
      outDir: corpus.outDir,
      build: path.join(corpusRoot, 'build'),
    },
  ];
  const out: Project[] = [];
  for (const p of all) {
    let lib: string;
    if (binding === 'torch') {
      const torch = await probeTorch(PYTHON);
      if (!torch.prefix) throw new Error(`no torch to build against: ${torch.why}`);
      lib = await buildTorchExtension({
        root: p.root,
        outDir: p.outDir,
        buildDir: path.join(p.build, 'torch'),
        prefix: torch.prefix,
        python: PYTHON,
        cuda: false,
      });
    } else if (binding === 'jax') {
      lib = await buildJaxLibrary({
        root: p.root,
        outDir: p.outDir,
        buildDir: path.join(p.build, 'jax'),
        python: PYTHON,
      });
    } else {
      lib = await buildPaddle(p.outDir, path.join(p.build, 'paddle-cmake'));
    }
    out.push({ name: p.name, outDir: p.outDir, libraries: { [binding]: lib } });
  }
  return out;
}

export function driverArgs(p: Project, binding: Binding): string[] {
  const args = ['--spec-package', path.join(p.outDir, 'python')];
  const lib = p.libraries[binding]!;
  if (binding === 'torch') args.push('--torch-library', lib);
  if (binding === 'jax') args.push('--jax-package', path.join(p.outDir, 'jax'), '--jax-library', lib);
  if (binding === 'paddle') args.push('--paddle-package', path.join(p.outDir, 'paddle'), '--paddle-library', lib);
  return args;
}

interface BatchResult {
  counts?: Counts;
  signal?: string;
  hang?: boolean;
  /** The call that was running when the process ended (from the driver's progress on stderr). */
  lastCall?: { index: number; what: string };
  error?: string;
}

export function runBatch(
  p: Project,
  binding: Binding,
  mode: string,
  seed: number,
  first: number,
  calls: number,
): BatchResult {
  const r = spawnSync(
    PYTHON,
    [
      DRIVER,
      '--binding',
      binding,
      '--mode',
      mode,
      '--seed',
      String(seed),
      '--first',
      String(first),
      '--calls',
      String(calls),
      ...driverArgs(p, binding),
    ],
    {
      encoding: 'utf8',
      timeout: batchTimeoutS(mode, calls) * 1000,
      maxBuffer: 256 << 20,
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', TF_CPP_MIN_LOG_LEVEL: '2', GLOG_minloglevel: '2' },
    },
  );
  const progress = [...String(r.stderr).matchAll(/^call (\d+): (.*)$/gm)].at(-1);
  const lastCall = progress ? { index: Number(progress[1]), what: progress[2]! } : undefined;
  const base = lastCall ? { lastCall } : {};
  const hang = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  if (hang) return { ...base, hang: true };
  if (r.signal) return { ...base, signal: r.signal };
  const last = String(r.stdout).trim().split('\n').at(-1) ?? '';
  if (r.status !== 0 || !last.startsWith('{'))
    return { ...base, error: `exit ${r.status}: ${String(r.stderr).split('\n').slice(-15).join('\n')}` };
  return { ...base, counts: JSON.parse(last) as Counts };
}

/** Every batch of binding × mode over every project: the totals and the failures. */
export function fuzz(
  projectsOf: Project[],
  binding: Binding,
  mode: string,
  seed: number,
  plan: Plan = PLAN,
  maxCrashes = MAX_CRASHES,
): { totals: Counts; failures: Failure[] } {
  const { calls, batches } = plan[binding][mode]!;
  const totals: Counts = {
    calls: 0,
    accepted: 0,
    raised: {},
    mismatches: 0,
    nameless: 0,
    rejected_valid: 0,
    setup_failed: 0,
    out_of_memory: 0,
    examples: [],
    mismatch_examples: [],
    rejected_examples: [],
  };
  const failures: Failure[] = [];
  const add = (c: Counts): void => {
    totals.calls += c.calls;
    totals.accepted += c.accepted;
    totals.mismatches += c.mismatches;
    totals.nameless += c.nameless;
    totals.rejected_valid += c.rejected_valid;
    totals.setup_failed += c.setup_failed;
    totals.out_of_memory += c.out_of_memory ?? 0;
    for (const [t, n] of Object.entries(c.raised)) totals.raised[t] = (totals.raised[t] ?? 0) + n;
  };
  for (const p of projectsOf) {
    const where = `${binding} ${mode}, ${p.name}`;
    let crashes = 0;
    for (let b = 0; b < batches && crashes < maxCrashes; b++) {
      let first = b * calls;
      const end = first + calls;
      while (first < end) {
        if (crashes >= maxCrashes) {
          failures.push({ kind: 'cut', where, detail: `after ${maxCrashes} crashes, calls ${first}.. not run` });
          break;
        }
        const r = runBatch(p, binding, mode, seed, first, end - first);
        if (r.counts) {
          add(r.counts);
          for (const e of r.counts.mismatch_examples)
            failures.push({ kind: 'mismatch', where, detail: JSON.stringify(e) });
          for (const e of r.counts.examples) failures.push({ kind: 'nameless', where, detail: JSON.stringify(e) });
          for (const e of r.counts.rejected_examples)
            failures.push({ kind: 'rejected', where, detail: JSON.stringify(e) });
          break;
        }
        if (r.error || !r.lastCall) {
          failures.push({
            kind: 'driver',
            where,
            detail: r.error ?? `ended by ${r.signal ?? 'a timeout'} before a call`,
          });
          break;
        }
        // The call that was running, replayed alone: it crashes (or hangs) by itself, or only after
        // the calls before it (then the batch's calls from `first` reproduce it).
        const i = r.lastCall.index;
        const alone = runBatch(p, binding, mode, seed, i, 1);
        const again = alone.signal
          ? `alone too (${alone.signal})`
          : alone.hang
            ? 'alone too (hang)'
            : `only after calls ${first}..${i - 1}`;
        failures.push({
          kind: r.hang ? 'hang' : 'crash',
          where,
          detail: `${r.signal ?? 'timeout'} at call ${i} (--seed ${seed} --first ${i} --calls 1), ${again}: ${r.lastCall.what}`,
        });
        totals.calls += i + 1 - first;
        crashes++;
        first = i + 1; // the rest of the batch after the crashing call
      }
    }
  }
  return { totals, failures };
}

export function summary(binding: Binding, mode: string, t: Counts, f: Failure[]): string {
  const n = (k: Failure['kind']): number => f.filter((x) => x.kind === k).length;
  return `${binding} ${mode}: ${t.calls} calls, ${t.accepted} accepted, raised ${JSON.stringify(t.raised)}, crashes ${n('crash')}, hangs ${n('hang')}, mismatches ${t.mismatches}, nameless ${t.nameless}, valid calls rejected ${t.rejected_valid}, out of memory ${t.out_of_memory}, not run ${t.setup_failed}`;
}
