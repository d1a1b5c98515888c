// The trt column: every plugin and creator through TensorRT's lifecycle, compiled against the
// TensorRT headers found (enqueue runs on --device cuda).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { onDevice, type TestBackend } from '../backend.js';
import { findNvcc, runTrtLifecycle, trtIncludeDir } from '../trt.js';

export const trtBackend: TestBackend = {
  name: 'TensorRT',
  wanted: (ctx) => ctx.want.has('trt'),
  async run(ctx) {
    const column = ctx.col(onDevice(ctx, 'trt'));
    const include = trtIncludeDir();
    const nvcc = include ? await findNvcc() : undefined;
    if (!include) { ctx.skipped[column] = 'no TensorRT headers (set TENSORRT_ROOT or TENSORRT_INCLUDE_DIR)'; return; }
    if (!nvcc) { ctx.skipped[column] = 'no nvcc (set CUDACXX or put the CUDA toolkit on PATH)'; return; }
    ctx.say(`compiling the TensorRT plugin lifecycle against ${include}`);
    const dir = path.join(ctx.buildRoot, 'test', 'trt');
    try {
      const r = await runTrtLifecycle({ ops: ctx.ops, root: ctx.root, outDir: ctx.outDir, buildDir: dir, include, nvcc, enqueue: ctx.device === 'cuda', column });
      ctx.results.push(...r.results);
      ctx.env.tensorrt = { include, headers: r.version, log: path.join(dir, 'driver.log') };
      writeFileSync(path.join(dir, 'driver.log'), r.log.endsWith('\n') ? r.log : `${r.log}\n`);
    } catch (e) {
      for (const op of ctx.ops) ctx.results.push({ op: op.name, case: null, backend: column, status: 'fail', message: (e as Error).message.slice(0, 3000) });
    }
  },
};
