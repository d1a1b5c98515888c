// The trt column: every plugin and creator through TensorRT's lifecycle, compiled against the
// TensorRT headers found (enqueue runs on --device cuda). The driver needs no other column's
// result: prepare compiles and runs it beside the other builds; run records it.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onDevice, type TestBackend, type TestContext } from '../../backend.js';
import { findNvcc, runTrtLifecycle, trtIncludeDir, type TrtRun } from './lifecycle.js';

type Outcome = { skip: string } | { run: TrtRun; include: string; dir: string } | { error: unknown };
const done = new WeakMap<TestContext, Promise<Outcome>>();

async function lifecycle(ctx: TestContext): Promise<Outcome> {
  const include = trtIncludeDir();
  const nvcc = include ? await findNvcc() : undefined;
  if (!include) return { skip: 'no TensorRT headers (set TENSORRT_ROOT or TENSORRT_INCLUDE_DIR)' };
  if (!nvcc) return { skip: 'no nvcc (set CUDACXX or put the CUDA toolkit on PATH)' };
  const dir = path.join(ctx.buildRoot, 'test', 'trt');
  try {
    const run = await ctx.compile(() => {
      ctx.say(`compiling the TensorRT plugin lifecycle against ${include}`);
      return runTrtLifecycle({
        ops: ctx.ops,
        root: ctx.root,
        outDir: ctx.outDir,
        buildDir: dir,
        include,
        nvcc,
        enqueue: ctx.device === 'cuda',
        column: onDevice(ctx, 'trt'),
        ...(ctx.kernels ? { kernelObjects: ctx.kernels.objects } : {}),
        python: ctx.python,
        jobs: ctx.jobs,
      });
    });
    return { run, include, dir };
  } catch (error) {
    return { error };
  }
}

export const trtBackend: TestBackend = {
  name: 'TensorRT',
  wanted: (ctx) => ctx.want.has('trt'),
  async prepare(ctx) {
    const p = lifecycle(ctx);
    done.set(ctx, p);
    await p;
  },
  async run(ctx) {
    const column = ctx.col(onDevice(ctx, 'trt'));
    const o = await (done.get(ctx) ?? lifecycle(ctx));
    if ('skip' in o) {
      ctx.skipped[column] = o.skip;
      return;
    }
    if ('error' in o) {
      for (const op of ctx.ops)
        ctx.results.push({
          op: op.name,
          case: null,
          backend: column,
          status: 'fail',
          message: (o.error as Error).message.slice(0, 3000),
        });
      return;
    }
    ctx.results.push(...o.run.results);
    ctx.env.tensorrt = { include: o.include, headers: o.run.version, log: path.join(o.dir, 'driver.log') };
    writeFileSync(path.join(o.dir, 'driver.log'), o.run.log.endsWith('\n') ? o.run.log : `${o.run.log}\n`);
  },
};
