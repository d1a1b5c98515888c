// The PyTorch side, run first: it builds the extension and runs one Python harness that writes
// the reference's outputs (every other column's baseline), the extension's outputs on the
// device, the exported models and the gradient checks. The torch, grad and ort-legacy/ort-dynamo
// columns read its report later.

import path from 'node:path';
import { onDevice, wantsGrad, type TestBackend, type TestContext } from '../backend.js';
import { buildFailureResults } from '../build-failure.js';
import { isFiles, readOutputs } from '../outputs.js';
import { buildTorchExtension, runHarness } from '../torch-side.js';

export const pytorchSide: TestBackend = {
  name: 'the PyTorch side',
  // The reference runs whenever torch is there: it is the baseline of every column.
  wanted: () => true,
  async run(ctx) {
    const { want, probe: torch, skipped, device } = ctx;
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
    const library = await buildExtension(ctx, torchCol, gradCol, grad);
    ctx.say('running the PyTorch side (reference, extension, export, gradients)');
    try {
      const py = await runHarness({ python: ctx.python, casesDir: ctx.casesDir, outDir: ctx.outDir, ...(library ? { library } : {}), devices: [device], exportModels: want.has('export'), grad });
      ctx.torchRun = py;
      for (const [b, why] of Object.entries(py.env.skipped)) if (want.has(b.startsWith('torch') ? 'torch' : b.startsWith('grad') ? 'grad' : 'export')) skipped[b] = why;
      Object.assign(ctx.env, { onnx: py.env.onnx, extension: py.env.extension, entry: py.env.entry, entryBypassed: py.env.entry_bypassed, cudaInTorch: py.env.cuda });
    } catch (e) {
      // E.g. out/python does not import: every op's reference is unusable, which is a failure.
      for (const op of ctx.ops) ctx.results.push({ op: op.name, case: null, backend: ctx.col('reference'), status: 'fail', message: (e as Error).message.slice(0, 3000) });
      return;
    }
    // The baseline: the reference's outputs (ran on the CPU, all attributes) where there is one.
    for (const c of ctx.cases) {
      const p = ctx.torchRun.cases.find((x) => x.op === c.op.name && x.case === c.doc.index);
      if (p && isFiles(p.reference)) { c.baseline = readOutputs(c.dir, p.reference); c.baselineFrom = 'reference'; }
      else if (p?.reference && 'error' in p.reference) ctx.results.push({ op: c.op.name, case: c.doc.index, backend: ctx.col('reference'), status: 'fail', message: `the reference raised ${p.reference.error}` });
    }
  },
};

/** Builds the extension when the torch or grad column runs; undefined when it did not build. */
async function buildExtension(ctx: TestContext, torchCol: string, gradCol: string, grad: boolean): Promise<string | undefined> {
  const { want, probe: torch, skipped, device } = ctx;
  if (!want.has('torch') && !grad) return undefined;
  if (device === 'cuda' && !torch.cuda) {
    if (want.has('torch')) skipped[torchCol] = `torch ${torch.version} sees no CUDA device`;
    if (grad) skipped[gradCol] = `torch ${torch.version} sees no CUDA device`;
    return undefined;
  }
  if (want.has('torch')) ctx.col(torchCol);
  if (grad) ctx.col(gradCol);
  ctx.say(`building the PyTorch extension (torch ${torch.version})`);
  try {
    return await buildTorchExtension({ root: ctx.root, outDir: ctx.outDir, buildDir: path.join(ctx.buildRoot, 'torch'), prefix: torch.prefix!, python: ctx.python, cuda: device === 'cuda', ...(torch.cudaArchs ? { cudaArchs: torch.cudaArchs } : {}), ...(ctx.unityBatch ? { unityBatch: ctx.unityBatch } : {}), onLine: ctx.progress });
  } catch (e) {
    ctx.results.push(...buildFailureResults(e, ctx.ops, [torchCol, gradCol].filter((b) => (b === torchCol ? want.has('torch') : grad)), ctx.root, ctx.project.ops));
    return undefined;
  }
}
