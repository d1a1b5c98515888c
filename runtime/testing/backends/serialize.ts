// The serialize column: the op core's serialize/deserialize round trip (the bytes TensorRT plugins
// and Paddle store) of every case's attributes, compiled and run.

import path from 'node:path';
import type { TestBackend } from '../backend.js';
import { checkSerialization } from '../serialize.js';

export const serializeBackend: TestBackend = {
  name: 'serialize',
  wanted: (ctx) => ctx.want.has('serialize'),
  async run(ctx) {
    ctx.col('serialize');
    ctx.say('compiling the serialization round trip');
    try {
      ctx.results.push(...await checkSerialization({ ops: ctx.ops, outDir: ctx.outDir, buildDir: path.join(ctx.buildRoot, 'test', 'serialize') }));
    } catch (e) {
      for (const op of ctx.ops) ctx.results.push({ op: op.name, case: null, backend: 'serialize', status: 'fail', message: (e as Error).message.slice(0, 3000) });
    }
  },
};
