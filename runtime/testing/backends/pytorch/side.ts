// The PyTorch side, run first: it builds the extension and runs one Python harness that writes
// the reference's outputs (every other column's baseline), the extension's outputs on the
// device, the exported models and the gradient checks. The torch, grad and ort-legacy/ort-dynamo
// columns read its report later. prepare builds and runs the harness while the other backends
// build; run records what it found.

import { createHash } from 'node:crypto';
import path from 'node:path';
import { onDevice, oncePerRun, wantsGrad, type TestBackend, type TestContext } from '../../backend.js';
import { buildFailureResults } from '../../build-failure.js';
import { isFiles, readOutputs } from '../../outputs.js';
import { machineCacheDir } from '../../../machine-cache.js';
import { buildTorchExtension, runHarnessCached, type PyRun } from './build.js';
import { testTorchPch, testUnityBatch } from '../../unity-batch.js';

interface Prepared {
  library?: string;
  buildError?: unknown;
  py?: PyRun;
  pyError?: unknown;
}
const work = oncePerRun(buildAndRun);

export const pytorchSide: TestBackend = {
  name: 'the PyTorch side',
  // The reference runs whenever torch is there: it is the baseline of every column.
  wanted: () => true,
  async prepare(ctx) {
    await work(ctx);
  },
  async run(ctx) {
    const { want, probe: torch, skipped } = ctx;
    const torchCol = onDevice(ctx, 'torch');
    const gradCol = onDevice(ctx, 'grad');
    const grad = wantsGrad(ctx);
    if (want.has('grad') && !grad) skipped[gradCol] = 'no op has an input that takes a gradient';
    if (!torch.version) {
      skipped.reference = torch.why!;
      if (want.has('torch')) skipped[torchCol] = torch.why!;
      if (grad) skipped[gradCol] = torch.why!;
      if (want.has('export')) skipped['ort-legacy'] = skipped['ort-dynamo'] = torch.why!;
      return;
    }
    ctx.env.torch = torch.version;
    const done = await work(ctx);
    recordExtension(ctx, torchCol, gradCol, grad, done);
    try {
      if (done.pyError) throw done.pyError;
      const py = done.py!;
      ctx.torchRun = py;
      for (const [b, why] of Object.entries(py.env.skipped))
        if (want.has(b.startsWith('torch') ? 'torch' : b.startsWith('grad') ? 'grad' : 'export')) skipped[b] = why;
      Object.assign(ctx.env, {
        onnx: py.env.onnx,
        extension: py.env.extension,
        entry: py.env.entry,
        entryBypassed: py.env.entry_bypassed,
        cudaInTorch: py.env.cuda,
      });
    } catch (e) {
      // E.g. out/python does not import: every op's reference is unusable, which is a failure.
      for (const op of ctx.ops)
        ctx.results.push({
          op: op.name,
          case: null,
          backend: ctx.col('reference'),
          status: 'fail',
          message: (e as Error).message.slice(0, 3000),
        });
      return;
    }
    // The baseline: the reference's outputs (ran on the CPU, all attributes) where there is one.
    for (const c of ctx.cases) {
      const p = ctx.torchRun.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);
      if (p && isFiles(p.reference)) {
        c.baseline = readOutputs(c.dir, p.reference);
        c.baselineFrom = 'reference';
      } else if (p?.reference && 'error' in p.reference)
        ctx.results.push({
          op: c.op.name,
          case: c.doc.index,
          backend: ctx.col('reference'),
          status: 'fail',
          message: `the reference raised ${p.reference.error}`,
        });
    }
  },
};

/** The extension built (when the torch or grad column runs) and the harness run over every case. */
async function buildAndRun(ctx: TestContext): Promise<Prepared> {
  const { want, probe: torch, device } = ctx;
  if (!torch.version) return {};
  const grad = wantsGrad(ctx);
  const done: Prepared = {};
  if ((want.has('torch') || grad) && !(device === 'cuda' && !torch.cuda)) {
    try {
      const unityBatch = ctx.unityBatch ?? testUnityBatch(ctx.project.ops.length);
      done.library = await ctx.compile(() => {
        ctx.say(`building the PyTorch extension (torch ${torch.version})`);
        return buildTorchExtension({
          root: ctx.root,
          outDir: ctx.outDir,
          buildDir: path.join(ctx.buildRoot, 'torch'),
          prefix: torch.prefix!,
          python: ctx.python,
          cuda: device === 'cuda',
          ...(torch.cudaArchs ? { cudaArchs: torch.cudaArchs } : {}),
          unityBatch,
          pch: testTorchPch(ctx.project.ops.length, unityBatch),
          names: ctx.project.names,
          entryCacheDir: machineCacheDir(),
          ...(ctx.kernels ? { kernels: ctx.kernels.defs } : {}),
          jobs: ctx.jobs,
          onLine: ctx.progress,
        });
      });
    } catch (e) {
      done.buildError = e;
    }
  }
  ctx.say('running the PyTorch side (reference, extension, export, gradients)');
  try {
    done.py = await runHarnessCached({
      cacheDir: path.join(ctx.buildRoot, 'test', 'torch-side', selection(ctx)),
      probe: ctx.probe,
      session: () => ctx.pythonSession(),
      python: ctx.python,
      casesDir: ctx.casesDir,
      outDir: ctx.outDir,
      ...(done.library ? { library: done.library } : {}),
      packageName: ctx.project.names.torchPackage,
      devices: [device],
      exportModels: want.has('export'),
      grad,
    });
  } catch (e) {
    done.pyError = e;
  }
  return done;
}

/** The torch and grad columns of the extension's build: registered, skipped, or failed per op. */
function recordExtension(ctx: TestContext, torchCol: string, gradCol: string, grad: boolean, done: Prepared): void {
  const { want, probe: torch, skipped, device } = ctx;
  if (!want.has('torch') && !grad) return;
  if (device === 'cuda' && !torch.cuda) {
    if (want.has('torch')) skipped[torchCol] = `torch ${torch.version} sees no CUDA device`;
    if (grad) skipped[gradCol] = `torch ${torch.version} sees no CUDA device`;
    return;
  }
  if (want.has('torch')) ctx.col(torchCol);
  if (grad) ctx.col(gradCol);
  if (done.buildError)
    ctx.results.push(
      ...buildFailureResults(
        done.buildError,
        ctx.ops,
        [torchCol, gradCol].filter((b) => (b === torchCol ? want.has('torch') : grad)),
        ctx.root,
        ctx.project.ops,
      ),
    );
}

/** The ops under test and the device, as a folder name: `--only A` and `--only B` keep their own results. */
function selection(ctx: TestContext): string {
  return createHash('sha256')
    .update(JSON.stringify([ctx.device, ctx.ops.map((o) => o.name)]))
    .digest('hex')
    .slice(0, 16);
}
