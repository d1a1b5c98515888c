// The interface every `opforge test` backend implements: one module per backend under
// runtime/testing/backends/, run in order by run.ts over the same cases. A backend adds its
// columns (ctx.col), results (ctx.results or ctx.check against the baseline), skips with their
// reasons (ctx.skipped) and what it found about the machine (ctx.env).

import type { OpIR, ProjectIR } from '../../generator/model/ir.js';
import type { CaseDoc, CaseInput, HostTensor } from './cases.js';
import type { GotTensor } from './compare.js';
import type { CaseResult } from './results.js';
import type { KernelBuild } from '../kernels.js';
import type { PyRun } from './backends/pytorch/build.js';
import type { Harness, PythonProbe, PythonSession } from './python-session.js';

/** The names `--backends` takes. */
export const BACKENDS = ['node', 'torch', 'grad', 'ort', 'export', 'paddle', 'jax', 'serialize', 'trt'] as const;
export type Backend = (typeof BACKENDS)[number];

export type Outputs = Record<string, GotTensor>;

/** One `tests:` case of one op, its inputs on disk and, once known, the outputs it is held to. */
export interface Case {
  op: OpIR;
  doc: CaseDoc;
  /** In spec order; a variadic input's members as an array (cases.ts). */
  inputs: CaseInput[];
  /** The case's folder under casesDir (inputs and every backend's outputs). */
  dir: string;
  baseline?: Record<string, HostTensor>;
  /** 'reference' (the spec's reference ran) or 'node' (no reference: the CPU kernel is the baseline). */
  baselineFrom?: string;
}

export interface TestContext {
  root: string;
  outDir: string;
  /** <root>/build by default: each backend builds under its own folder there. */
  buildRoot: string;
  /** The case files (inputs, outputs, harness reports). */
  casesDir: string;
  device: 'cpu' | 'cuda';
  /** The Python the Python-side backends run, where it came from, and what it has. */
  python: string;
  pythonFrom: string;
  probe: PythonProbe;
  /**
   * The run's one Python-side interpreter (torch-side.ts): started with the run when the probe was
   * not kept, else by the first harness that runs; undefined when the Python has no torch (the
   * harnesses are then skipped) or the session has ended.
   */
  pythonSession(): PythonSession | undefined;
  /**
   * Where `harness` runs: the run's session, or (Paddle's and JAX's, on the CPU with two cores or
   * more) an interpreter of its own, started on first use, so that it runs beside the PyTorch side.
   */
  harnessSession(harness: Harness): PythonSession | undefined;
  /** The whole project (gradient ops included) and the ops under test. */
  project: ProjectIR;
  ops: readonly OpIR[];
  cases: Case[];
  /** The backends asked for. */
  want: ReadonlySet<Backend>;
  unityBatch?: number;
  /** Parallel compiles at most (--jobs; default: the cores). */
  jobs: number;
  /** The kernels compiled once for every backend of this device configuration; absent when that build failed (each backend then compiles its own and reports its failure). */
  kernels?: KernelBuild;
  /** Runs a build step alone: compiles take every job slot, one build at a time, beside the Python work. */
  compile<T>(step: () => Promise<T>): Promise<T>;
  say(line: string): void;
  /** cmake/ninja/make progress lines only, for a build's onLine. */
  progress(line: string): void;

  results: CaseResult[];
  skipped: Record<string, string>;
  env: Record<string, unknown>;
  /** Registers a column (in report order) and returns its name. */
  col(name: string): string;
  /** Whether a column was registered (an earlier step set it up). */
  columnsHas(name: string): boolean;
  /** Compares a case's outputs with its baseline and records the result (extra: a failure found otherwise). */
  check(c: Case, column: string, got: Outputs, extra?: string): void;
  /** The PyTorch harness's report, when the torch backend ran it (reference, extension, export, grad). */
  torchRun?: PyRun;
}

export interface TestBackend {
  /** What it runs, for messages ('node', 'the PyTorch side', ...). */
  readonly name: string;
  /** Whether to run, given the backends asked for and what earlier backends found. */
  wanted(ctx: TestContext): boolean;
  /**
   * What needs no other backend's result (builds, the Python side), run concurrently with the
   * other backends' prepare; run() then records results in index.ts's order.
   */
  prepare?(ctx: TestContext): Promise<void>;
  run(ctx: TestContext): Promise<void>;
}

/** A column's name on the device the run uses: `node` on the CPU, `node:cuda` on CUDA. */
export function onDevice(ctx: Pick<TestContext, 'device'>, column: string): string {
  return ctx.device === 'cuda' ? `${column}:cuda` : column;
}

/** The grad column runs wherever an input of an op under test can take a gradient. */
export function wantsGrad(ctx: Pick<TestContext, 'want' | 'ops'>): boolean {
  return ctx.want.has('grad') && ctx.ops.some((o) => o.inputs.some((i) => i.differentiable));
}

/**
 * Work a backend starts in prepare (beside the other backends) and reads in run: started once per
 * run, by whichever asks first.
 */
export function oncePerRun<T>(work: (ctx: TestContext) => Promise<T>): (ctx: TestContext) => Promise<T> {
  const started = new WeakMap<TestContext, Promise<T>>();
  return (ctx) => {
    const p = started.get(ctx) ?? work(ctx);
    started.set(ctx, p);
    return p;
  };
}
