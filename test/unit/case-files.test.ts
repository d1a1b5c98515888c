// Whose file is whose in the case folder (runtime/testing/case-files.ts): the harnesses that run
// side by side keep, restore and hash only what is theirs, so one never brings back another's
// outputs from an older run.

import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { caseFileOwner, caseInputFiles } from '../../runtime/testing/case-files.js';
import { keptRun } from '../../runtime/testing/kept-run.js';

test('each file has one owner: the case, Paddle, JAX, or the PyTorch side', () => {
  assert.is(caseFileOwner('my_add/0.json'), 'case');
  assert.is(caseFileOwner('my_add/12.in.x.bin'), 'case');
  assert.is(caseFileOwner('my_add/0.paddle.y.bin'), 'paddle');
  assert.is(caseFileOwner('my_add/0.paddle-infer.y.bin'), 'paddle');
  assert.is(caseFileOwner('my_add/0.jax.y.bin'), 'jax');
  assert.is(caseFileOwner('my_add/0.jax-grad.x.bin'), 'jax');
  assert.is(caseFileOwner('my_add/0.reference.y.bin'), 'pytorch');
  assert.is(caseFileOwner('my_add/0.torch-cpu.y.bin'), 'pytorch');
  assert.is(caseFileOwner('my_add/0.ort-legacy.onnx'), 'pytorch');
  // An output named like a column is still its writer's: the column comes right after the case number.
  assert.is(caseFileOwner('my_add/0.reference.jax.bin'), 'pytorch');
});

test("a kept run keeps only its owner's files, and its key reads only the inputs", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-cases-'));
  const cases = path.join(dir, 'cases');
  mkdirSync(path.join(cases, 'op'), { recursive: true });
  writeFileSync(path.join(cases, 'op', '0.json'), '{}');
  writeFileSync(path.join(cases, 'op', '0.in.x.bin'), 'x');
  writeFileSync(path.join(cases, 'op', '0.reference.y.bin'), 'r');
  assert.equal(
    caseInputFiles(cases).map((f) => path.relative(cases, f)),
    [path.join('op', '0.in.x.bin'), path.join('op', '0.json')],
  );
  const cacheDir = path.join(dir, 'jax-side');
  // The run writes its output while another harness writes one of its own beside it.
  const run = async (): Promise<string> => {
    writeFileSync(path.join(cases, 'op', '0.jax.y.bin'), 'j');
    writeFileSync(path.join(cases, 'op', '0.paddle.y.bin'), 'p');
    return 'report';
  };
  assert.is(await keptRun({ cacheDir, key: 'k', casesDir: cases, owner: 'jax', run }), 'report');
  const kept = readdirSync(path.join(cacheDir, 'files', 'op'));
  assert.equal(kept, ['0.jax.y.bin']);
});

test.run();
