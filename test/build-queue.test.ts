// opforge test's build queue (runtime/testing/run.ts buildQueue): one build at the usual priority,
// the next beside it at the lowest, and every step started while one runs lowered, so none waits
// behind a later build at the usual priority. The priority is the real one of the processes the
// steps start (os.getPriority), read while they run.

import { getPriority } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execa } from 'execa';
import { lowerIfIdle } from '../runtime/build-priority.js';
import { buildQueue } from '../runtime/testing/run.js';

/** A step that starts a process, reads its priority, and ends when `release` resolves. */
function step(seen: Record<string, number>, name: string, release: Promise<void>, order: string[]) {
  return async (): Promise<string> => {
    order.push(`start ${name}`);
    const child = lowerIfIdle(execa('sleep', ['30'], { reject: false }));
    seen[name] = getPriority(child.pid!);
    await release;
    child.kill();
    await child;
    order.push(`end ${name}`);
    return name;
  };
}

test('the first build runs at the usual priority, at most one more beside it at the lowest, and the rest lowered until the queue is empty', async () => {
  // The usual priority is this process's own (a suite started under `nice` runs its builds at that).
  const usual = getPriority();
  const compile = buildQueue();
  const seen: Record<string, number> = {};
  const order: string[] = [];
  const gates: Record<string, () => void> = {};
  const gate = (n: string): Promise<void> => new Promise<void>((r) => (gates[n] = r));
  const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 150));
  const a = compile(step(seen, 'a', gate('a'), order));
  const b = compile(step(seen, 'b', gate('b'), order));
  const c = compile(step(seen, 'c', gate('c'), order));
  await tick();
  assert.equal(order, ['start a', 'start b']);
  assert.is(seen.a, usual);
  assert.is(seen.b, 19);
  gates.a!();
  assert.is(await a, 'a');
  await tick();
  // b still runs, lowered: c starts lowered too.
  assert.equal(order, ['start a', 'start b', 'end a', 'start c']);
  assert.is(seen.c, 19);
  gates.b!();
  gates.c!();
  assert.equal(await Promise.all([b, c]), ['b', 'c']);
  // The queue emptied: the next build runs at the usual priority again.
  const d = compile(step(seen, 'd', Promise.resolve(), order));
  assert.is(await d, 'd');
  assert.is(seen.d, usual);
});

test('a failed step fails its own call only, and the queue goes on', async () => {
  const compile = buildQueue();
  const bad = compile(() => Promise.reject(new Error('no compiler')));
  const good = compile(() => Promise.resolve(7));
  const why = await bad.then(
    () => 'resolved',
    (e: Error) => e.message,
  );
  assert.is(why, 'no compiler');
  assert.is(await good, 7);
});

test.run();
