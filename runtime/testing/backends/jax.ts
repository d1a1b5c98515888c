// `opforge test`'s JAX columns: the generated opforge_jax package over the library CMake builds from
// out/jax (XLA FFI handlers over the op core), against the jaxlib of the Python the tests run.
// jax: every case under jax.jit against the baseline (each op's first case also under jax.vmap,
// bit for bit with jit);
// jax-grad: jax.vjp through the spec's backward (custom_vjp, gradient ops as custom calls) against
// torch.autograd of the spec's reference, or the named error for an op without a backward.
// On --device cuda both run on the GPU (jax:cuda, jax-grad:cuda) with the CUDA handlers.

import path from 'node:path';
import type { TensorFile } from '../cases.js';
import { readTensor } from '../cases.js';
import { buildFailureResults } from '../build-failure.js';
import type { TestBackend, TestContext } from '../backend.js';
import { buildJaxLibrary, runJaxHarness, type JaxCell } from '../jax.js';

/** The jax version opforge is tested with (requirements-test.txt pins it). */
export const JAX_TESTED = '0.10.2';

export const jaxBackend: TestBackend = {
  name: 'jax',
  async run(ctx: TestContext): Promise<void> {
    const { ops, device, probe, python, results, skipped } = ctx;
    const jaxCol = device === 'cuda' ? 'jax:cuda' : 'jax';
    const gradCol = device === 'cuda' ? 'jax-grad:cuda' : 'jax-grad';
    const wantGrad = ops.some((o) => o.inputs.some((i) => i.differentiable));
    const cols = [jaxCol, ...(wantGrad ? [gradCol] : [])];
    const why = !probe.packages.jax || !probe.packages.jaxlib ? `jax is not importable by ${python} (install: pip install jax==${JAX_TESTED})`
      : !probe.version ? `${probe.why} (the JAX side reads the cases and the reference with torch)` : undefined;
    if (why) {
      for (const b of cols) skipped[b] = why;
      return;
    }
    cols.forEach((b) => ctx.col(b));
    ctx.say(`building the JAX library against jaxlib ${probe.packages.jaxlib}`);
    try {
      const library = await buildJaxLibrary({ root: ctx.root, outDir: ctx.outDir, buildDir: path.join(ctx.buildRoot, 'jax'), python, cuda: device === 'cuda', onLine: ctx.progress });
      const run = await runJaxHarness({ python, outDir: ctx.outDir, library, casesDir: ctx.casesDir, grad: wantGrad, device });
      ctx.env.jax = { jax: run.env.jax, jaxlib: run.env.jaxlib, device: run.env.device, ffiApi: run.env.library.ffi_api.join('.') };
      for (const c of ctx.cases) {
        const p = run.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);
        const cell = (b: string, o: JaxCell | undefined, then: (files: Record<string, TensorFile>) => void): void => {
          if (!o) return;
          const r = { op: c.op.name, case: c.doc.index, backend: b };
          if ('skip' in o) results.push({ ...r, status: 'skip', message: String(o.skip) });
          else if ('error' in o) results.push({ ...r, status: 'fail', message: String(o.error) });
          else if ('noBackward' in o && o.noBackward) results.push({ ...r, status: 'ok', raised: true, message: 'no backward: differentiating raises the named error' });
          else if ('maxError' in o) results.push({ ...r, status: 'ok', maxError: Number(o.maxError), compared: c.op.kernels.reference ? 'reference' : 'backends' });
          else then(o as Record<string, TensorFile>);
        };
        cell(jaxCol, p?.jax, (files) => ctx.check(c, jaxCol, Object.fromEntries(Object.entries(files).map(([k, f]) => [k, readTensor(c.dir, f)]))));
        if (wantGrad) cell(gradCol, p?.['jax-grad'], () => {});
      }
    } catch (e) {
      results.push(...buildFailureResults(e, ops, cols, ctx.root, ctx.project.ops));
    }
  },
};
