// The JAX columns: the generated opforge_jax package over the library CMake builds from out/jax
// (XLA FFI handlers over the op core), against the jaxlib of the Python the tests run.
// jax: every case under jax.jit against the baseline (each op's first case also under jax.vmap,
// within the case's tolerance of jit); jax-grad: jax.vjp through the spec's backward (custom_vjp, gradient ops
// as custom calls) against torch.autograd of the spec's reference, or the named error for an op
// without a backward. On --device cuda both run on the GPU (jax:cuda, jax-grad:cuda): an op
// without a CUDA kernel raises its named error there, which is a skip with that reason (as in the
// node column), and one whose gradient op has none cannot train there (as in the grad column).

import path from 'node:path';
import { gradOpsWithoutCuda, noCudaKernels } from '../../../../generator/model/cuda-training.js';
import { onDevice, oncePerRun, type Case, type TestBackend, type TestContext } from '../../backend.js';
import { buildFailureResults } from '../../build-failure.js';
import type { TensorFile } from '../../cases.js';
import { buildJaxLibrary, runJaxHarness, type JaxCell, type JaxRun } from './build.js';
import { readOutputs } from '../../outputs.js';
import { compileKey } from '../../compile-key.js';
import { caseInputFiles } from '../../case-files.js';
import { keptRun } from '../../kept-run.js';
import { PKG_ROOT } from '../../../../generator/pkg-root.js';
import { hasCudaKernel } from '../../../../generator/model/ir-helpers.js';

/** The jax version opforge is tested with (requirements-test.txt pins it). */
export const JAX_TESTED = '0.10.2';

/** Why the JAX columns do not run here; undefined: they run. */
function skipReason(ctx: TestContext): string | undefined {
  const { probe } = ctx;
  return !probe.packages.jax || !probe.packages.jaxlib
    ? `jax is not importable by ${ctx.python} (install: pip install jax==${JAX_TESTED})`
    : !probe.version
      ? `${probe.why} (the JAX side reads the cases and the reference with torch)`
      : undefined;
}

const wantGrad = (ctx: TestContext): boolean => ctx.ops.some((o) => o.inputs.some((i) => i.differentiable));

/** The library's build and the harness run, started by prepare beside the other backends, or the error. */
const work = oncePerRun(async (ctx): Promise<JaxRun | { error: unknown }> => {
  try {
    const { probe } = ctx;
    const library = await ctx.compile(() => {
      ctx.say(`building the JAX library against jaxlib ${probe.packages.jaxlib}`);
      return buildJaxLibrary({
        root: ctx.root,
        outDir: ctx.outDir,
        buildDir: path.join(ctx.buildRoot, 'jax'),
        python: ctx.python,
        cuda: ctx.device === 'cuda',
        // The kernel objects every other backend links (the kernel build of this device); without
        // them (that build failed) the library compiles the kernels itself and reports the error.
        ...(ctx.kernels ? { kernels: ctx.kernels.defs } : {}),
        names: ctx.project.names,
        onLine: ctx.progress,
      });
    });
    // Nothing it reads changed (cases, harness, packages, library, Python): the kept results.
    const key = compileKey(
      [
        JSON.stringify({ grad: wantGrad(ctx), device: ctx.device, ops: ctx.ops.map((o) => o.name) }),
        JSON.stringify(probe),
        ctx.python,
      ],
      [path.join(PKG_ROOT, 'runtime', 'python'), path.join(ctx.outDir, 'jax'), path.join(ctx.outDir, 'python')],
      [...caseInputFiles(ctx.casesDir), library],
    );
    return await keptRun({
      cacheDir: path.join(ctx.buildRoot, 'test', 'jax-side'),
      key,
      casesDir: ctx.casesDir,
      owner: 'jax',
      run: () =>
        runJaxHarness({
          python: ctx.python,
          outDir: ctx.outDir,
          library,
          casesDir: ctx.casesDir,
          grad: wantGrad(ctx),
          device: ctx.device,
          names: ctx.project.names,
          session: ctx.harnessSession('jax'),
        }),
    });
  } catch (error) {
    return { error };
  }
});

export const jaxBackend: TestBackend = {
  name: 'jax',
  wanted: (ctx) => ctx.want.has('jax'),
  async prepare(ctx) {
    if (!skipReason(ctx)) await work(ctx);
  },
  async run(ctx) {
    const jaxCol = onDevice(ctx, 'jax');
    const gradCol = onDevice(ctx, 'jax-grad');
    const cols = [jaxCol, ...(wantGrad(ctx) ? [gradCol] : [])];
    const why = skipReason(ctx);
    if (why) {
      for (const b of cols) ctx.skipped[b] = why;
      return;
    }
    cols.forEach((b) => ctx.col(b));
    const run = await work(ctx);
    if ('error' in run) {
      ctx.results.push(...buildFailureResults(run.error, ctx.ops, cols, ctx.root, ctx.project.ops));
      return;
    }
    ctx.env.jax = {
      jax: run.env.jax,
      jaxlib: run.env.jaxlib,
      device: run.env.device,
      ffiApi: run.env.library.ffi_api.join('.'),
    };
    for (const c of ctx.cases)
      recordCase(
        ctx,
        c,
        run.cases.find((x) => x.op === c.op.name && x.case === c.doc.index),
        jaxCol,
        wantGrad(ctx) ? gradCol : undefined,
      );
  },
};

function recordCase(
  ctx: TestContext,
  c: Case,
  p: JaxRun['cases'][number] | undefined,
  jaxCol: string,
  gradCol: string | undefined,
): void {
  const cuda = ctx.device === 'cuda';
  const noCuda = cuda ? gradOpsWithoutCuda(c.op, ctx.project.ops) : [];
  const cell = (b: string, o: JaxCell | undefined, then: (files: Record<string, TensorFile>) => void): void => {
    if (!o) return;
    const r = { op: c.op.name, case: c.doc.index, backend: b };
    // (XLA reports the first handler that refused: for the gradient that may be the gradient op's.)
    if (cuda && !hasCudaKernel(c.op) && 'error' in o && String(o.error).includes(' has no CUDA kernel'))
      ctx.results.push({ ...r, status: 'skip', message: 'the spec names no kernels.cuda' });
    else if (b === gradCol && 'error' in o && noCuda.some((g) => String(o.error).includes(`${g} has no CUDA kernel`)))
      ctx.results.push({ ...r, status: 'cannot', message: `cannot train on CUDA: ${noCudaKernels(noCuda)}` });
    else if ('skip' in o) ctx.results.push({ ...r, status: 'skip', message: String(o.skip) });
    else if ('error' in o) ctx.results.push({ ...r, status: 'fail', message: String(o.error) });
    else if ('noBackward' in o && o.noBackward)
      ctx.results.push({
        ...r,
        status: 'ok',
        raised: true,
        message: 'no backward: differentiating raises the named error',
      });
    else if ('maxError' in o)
      ctx.results.push({
        ...r,
        status: 'ok',
        maxError: Number(o.maxError),
        compared: c.op.kernels.reference ? 'reference' : 'backends',
      });
    else then(o as Record<string, TensorFile>);
  };
  cell(jaxCol, p?.jax, (files) => ctx.check(c, jaxCol, readOutputs(c.dir, files)));
  if (gradCol) cell(gradCol, p?.['jax-grad'], () => {});
}
