// The serialize column: the op core's serialize/deserialize round trip (the bytes TensorRT plugins
// and Paddle store) of every case's attributes, compiled and run (prepare, beside the other builds).

import path from 'node:path';
import type { TestBackend, TestContext } from '../../backend.js';
import type { CaseResult } from '../../results.js';
import { checkSerialization } from './program.js';

const done = new WeakMap<TestContext, Promise<CaseResult[] | { error: unknown }>>();

function check(ctx: TestContext): Promise<CaseResult[] | { error: unknown }> {
  return ctx
    .compile(() => {
      ctx.say('compiling the serialization round trip');
      return checkSerialization({
        ops: ctx.ops,
        outDir: ctx.outDir,
        buildDir: path.join(ctx.buildRoot, 'test', 'serialize'),
      });
    })
    .catch((error: unknown) => ({ error }));
}

export const serializeBackend: TestBackend = {
  name: 'serialize',
  wanted: (ctx) => ctx.want.has('serialize'),
  async prepare(ctx) {
    const p = check(ctx);
    done.set(ctx, p);
    await p;
  },
  async run(ctx) {
    ctx.col('serialize');
    const r = await (done.get(ctx) ?? check(ctx));
    if ('error' in r) {
      for (const op of ctx.ops)
        ctx.results.push({
          op: op.name,
          case: null,
          backend: 'serialize',
          status: 'fail',
          message: (r.error as Error).message.slice(0, 3000),
        });
      return;
    }
    ctx.results.push(...r);
  },
};
