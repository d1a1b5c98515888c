// Incremental gen: after each kind of edit, the incremental run writes exactly what a
// cold run of the same specs produces (byte for byte, same file set), and re-emits only the ops
// that changed. Runs on the seed ops plus generated spec-space specs (gradient ops included).

import {
  cpSync,
  renameSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  appendFileSync,
  existsSync,
  readdirSync,
  utimesSync,
} from 'node:fs';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../generator/output/gen.js';
import { generateIncremental } from '../generator/output/incremental.js';
import { listTree, recoverOut, writeChanges } from '../generator/output/write-out.js';
import { opsDir, root } from './helpers/paths.js';
import { writeCorpus } from './specspace/corpus.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'opforge-incr-'));
const project = path.join(work, 'proj');
const ops = path.join(project, 'ops');
const out = path.join(project, 'out');
cpSync(opsDir, ops, { recursive: true });
// Spec-space specs: every even seed has a generated gradient op (a cross-spec dependency).
const corpus = path.join(work, 'corpus');
writeCorpus(corpus, [2, 4, 6, 7, 9, 12]);
cpSync(path.join(corpus, 'ops'), ops, { recursive: true });

function tree(dir: string): Map<string, string> {
  return new Map(listTree(dir).map((p) => [p, readFileSync(path.join(dir, p), 'utf8')]));
}

/** A cold gen of the same specs into a fresh directory: what the incremental out/ must equal. */
function assertLikeCold(what: string): void {
  const cold = path.join(work, 'cold');
  rmSync(cold, { recursive: true, force: true });
  mkdirSync(cold);
  cpSync(ops, path.join(cold, 'ops'), { recursive: true });
  // Same project-relative layout, so relative paths in the output agree.
  generate({ opsDir: path.join(cold, 'ops'), outDir: path.join(cold, 'out') });
  const a = tree(out);
  const b = tree(path.join(cold, 'out'));
  assert.equal([...a.keys()], [...b.keys()], `${what}: file set`);
  for (const [p, c] of b) if (a.get(p) !== c) assert.unreachable(`${what}: ${p} differs from a cold run`);
}

const gen = (): ReturnType<typeof generateIncremental> => generateIncremental({ opsDir: ops, outDir: out });
const edit = (file: string, from: string, to: string): void => {
  const f = path.join(ops, file);
  const text = readFileSync(f, 'utf8');
  assert.ok(text.includes(from), `${file} has ${from}`);
  writeFileSync(f, text.replace(from, to));
};

test('first run is full, then up to date', () => {
  assert.is(gen().mode, 'full');
  assert.is(gen().mode, 'up-to-date');
  assertLikeCold('first run');
});

test("a description edit: incremental, only that op's files (and project files that quote it) written", () => {
  edit('my_add.yaml', '2 * a + b for two tensors', '2 * a + b, for two tensors');
  const r = gen();
  assert.is(r.mode, 'incremental');
  assert.ok(r.result.written.length > 0);
  assert.ok(
    r.result.written.every((p) => !/knn_query|leaky_relu|custom_relu|dynamic_trt/.test(p)),
    r.result.written.join(),
  );
  assertLikeCold('description edit');
});

test('an attribute default and a shape change reach every backend', () => {
  edit('custom_relu.yaml', 'default: 0.0', 'default: 0.125');
  assert.is(gen().mode, 'incremental');
  assertLikeCold('attribute default');
  assert.match(readFileSync(path.join(out, 'python/opforge_ops/ops/custom_relu.py'), 'utf8'), 'alpha: float = 0.125');
});

test("a gradient op's spec changes its forward op's files too", () => {
  // LeakyRelu's emit key covers LeakyReluGrad's spec: both are emitted again, and equal a cold run.
  edit('leaky_relu_grad.yaml', 'description: "grad_input', 'description: "(edited) grad_input');
  const r = gen();
  assert.is(r.mode, 'incremental');
  assertLikeCold('gradient op edit');
});

test('a backward resolved in an earlier run is taken from the cache only while its gradient op is unchanged', () => {
  // Renaming LeakyReluGrad's input breaks LeakyRelu's backward, though LeakyRelu's spec is the
  // same: its cached resolution must not be used, and the error points into leaky_relu.yaml.
  const gradSpec = path.join(ops, 'leaky_relu_grad.yaml');
  const original = readFileSync(gradSpec, 'utf8');
  writeFileSync(gradSpec, original.replace(/\binput\b/g, 'input_x')); // valid on its own, tests included
  try {
    gen();
    assert.unreachable('no error');
  } catch (e) {
    const d = (e as { diagnostics?: { file: string; line: number; message: string }[] }).diagnostics ?? [];
    assert.ok(
      d.some(
        (x) =>
          x.file.endsWith('/leaky_relu.yaml') &&
          x.line > 1 &&
          x.message.includes('`LeakyReluGrad` has no input `input`'),
      ),
      JSON.stringify(d),
    );
  } finally {
    writeFileSync(gradSpec, original);
  }
  assert.is(gen().mode, 'up-to-date');
  // Swapping the gradient op's inputs keeps both specs valid, LeakyRelu's unchanged, but changes
  // what its backward resolves to (which forward tensor feeds which gradient input).
  const inputs = [
    "  - name: grad_output\n    dtype: T\n    description: The gradient flowing into LeakyRelu's output.\n  - name: input\n    dtype: T\n    shape: grad_output\n    description: LeakyRelu's input.\n",
    "  - name: input\n    dtype: T\n    description: LeakyRelu's input.\n  - name: grad_output\n    dtype: T\n    shape: input\n    description: The gradient flowing into LeakyRelu's output.\n",
  ] as const;
  edit('leaky_relu_grad.yaml', inputs[0], inputs[1]);
  assert.is(gen().mode, 'incremental');
  assertLikeCold('gradient op inputs swapped');
  edit('leaky_relu_grad.yaml', inputs[1], inputs[0]);
  assert.is(gen().mode, 'incremental');
  assertLikeCold('gradient op inputs back');
});

test('added, renamed and removed specs; a kernel reference file edit', () => {
  writeFileSync(
    path.join(ops, 'my_add2.yaml'),
    readFileSync(path.join(ops, 'my_add.yaml'), 'utf8')
      .replace('name: MyAdd', 'name: MyAddTwo')
      .replace(/backward:[\s\S]*?kernels:/, 'kernels:'),
  );
  assert.is(gen().mode, 'incremental');
  assertLikeCold('added spec');
  rmSync(path.join(ops, 'my_add2.yaml'));
  const r = gen();
  assert.ok(r.result.removed.some((p) => p.includes('my_add_two')));
  assert.not.ok(existsSync(path.join(out, 'trt', 'my_add_two')), "the removed op's directory is gone");
  assertLikeCold('removed spec');
  // Specs renamed with their text unchanged: every file names its spec, so the op is emitted again.
  renameSync(path.join(ops, 'leaky_relu_grad.yaml'), path.join(ops, 'leaky_relu_gradient.yaml'));
  const g = gen();
  assert.is(g.mode, 'incremental');
  assert.ok(g.result.written.includes('torch/leaky_relu_grad.cpp'), g.result.written.join());
  assertLikeCold('renamed gradient spec');
  renameSync(path.join(ops, 'leaky_relu.yaml'), path.join(ops, 'relu_leaky.yaml'));
  assert.is(gen().mode, 'incremental');
  assertLikeCold('renamed spec');
  renameSync(path.join(ops, 'relu_leaky.yaml'), path.join(ops, 'leaky_relu.yaml'));
  renameSync(path.join(ops, 'leaky_relu_gradient.yaml'), path.join(ops, 'leaky_relu_grad.yaml'));
  gen();
  assertLikeCold('renamed back');
  appendFileSync(path.join(ops, 'kernels', 'custom_relu_ref.py'), '\n# edited\n');
  const k = gen();
  assert.ok(k.result.written.includes('python/opforge_ops/_reference/custom_relu.py'), k.result.written.join());
  assertLikeCold('reference edit');
});

test('an edited output file makes the next run full (out/ is restored)', () => {
  const f = path.join(out, 'include/opforge/ops/my_add.h');
  writeFileSync(f, `${readFileSync(f, 'utf8')}// hand edit\n`);
  edit('knn_query.yaml', 'description: k nearest', 'description: the k nearest');
  assert.is(gen().mode, 'full');
  assertLikeCold('after a hand edit');
});

test('an invalid edit is reported at its line and writes nothing', () => {
  const before = tree(out);
  edit('custom_relu.yaml', 'name: CustomRelu', 'name: CustomRelu\nbogus: 1');
  try {
    gen();
    assert.unreachable('no error');
  } catch (e) {
    assert.match(
      String(
        (e as { diagnostics?: unknown }).diagnostics ? JSON.stringify((e as { diagnostics: unknown }).diagnostics) : e,
      ),
      'bogus',
    );
  }
  assert.equal(tree(out), before);
  // Put back as it was: the specs are those of the last good run, and out/ is theirs.
  edit('custom_relu.yaml', 'name: CustomRelu\nbogus: 1', 'name: CustomRelu');
  assert.is(gen().mode, 'up-to-date');
  assertLikeCold('after fixing the spec');
});

test('fresh processes (the opforge command): fragments and file hashes come from the cache file', () => {
  // In one process the cache stays in memory; a new `opforge gen` reads the per-op fragments of
  // project-wide files and their hashes back from out/.opforge-cache.
  const cli = (): { written: string[]; unchanged: number } => {
    const r = spawnSync(
      process.execPath,
      [path.join(root, 'dist', 'cli', 'opforge.js'), 'gen', '--json', '--ops', ops, '--out', out],
      { encoding: 'utf8' },
    );
    assert.is(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { written: string[]; unchanged: number };
  };
  cli();
  edit('leaky_relu.yaml', 'default: 0.01', 'default: 0.03');
  const a = cli();
  assert.ok(a.written.includes('node/index.js') && a.written.includes('node/index.d.ts'), a.written.join());
  assert.ok(a.unchanged > a.written.length, 'incremental, not a full rewrite');
  assertLikeCold('attribute default, fresh process');
  assert.match(readFileSync(path.join(out, 'node/index.js'), 'utf8'), 'default: 0.03');
  edit('my_add.yaml', '2 * a + b, for two tensors', '2 * a + b (for two tensors)');
  cli();
  assertLikeCold('description, fresh process');
  edit('leaky_relu.yaml', 'default: 0.03', 'default: 0.01');
  cli();
  assertLikeCold('attribute default back, fresh process');
});

test('specs are known by stat once settled: only an edited spec is read; a same-size edit is noticed', async () => {
  const { readInputs, readStamp, RACY_MS } = await import('../generator/output/stamp.js');
  // Every spec just touched: none of their stats is trusted yet (each would be read). Touched here,
  // not left from the tests before: on a busy machine those writes may already have settled.
  const now = new Date();
  for (const f of readdirSync(ops).filter((n) => n.endsWith('.yaml'))) utimesSync(path.join(ops, f), now, now);
  assert.is(gen().mode, 'up-to-date');
  const fresh = readStamp(out)!;
  assert.ok(
    [...fresh.specs.values()].some((e) => e.stat === ''),
    'recently changed specs are recorded without a stat',
  );
  await new Promise((r) => setTimeout(r, RACY_MS + 100));
  assert.is(gen().mode, 'up-to-date'); // the same hashes, now recorded with their stats
  const settled = readStamp(out)!;
  assert.ok(
    [...settled.specs.values()].every((e) => e.stat !== ''),
    'settled specs are recorded with their stats',
  );
  assert.is(readInputs(ops, 'x', settled.specs).specs.size, 0, 'no spec read when none changed');
  // An edit that keeps the size: the stat (mtime, ctime) still tells it.
  edit('my_add.yaml', '2 * a + b (for two tensors)', '2 * a + b [for two tensors]');
  const read = readInputs(ops, 'x', settled.specs).specs;
  assert.equal(
    [...read.keys()].map((f) => path.basename(f)),
    ['my_add.yaml'],
  );
  const r = gen();
  assert.is(r.mode, 'incremental');
  assert.match(readFileSync(path.join(out, 'python/opforge_ops/ops/my_add.py'), 'utf8'), '[for two tensors]');
  assertLikeCold('same-size edit');
  edit('my_add.yaml', '2 * a + b [for two tensors]', '2 * a + b (for two tensors)');
  assert.is(gen().mode, 'incremental');
});

test('a journal left by a killed incremental write is finished by the next run', () => {
  const dir = path.join(work, 'journal');
  mkdirSync(path.join(dir, 'out', 'a'), { recursive: true });
  writeFileSync(path.join(dir, 'out', 'a', 'x.txt'), 'old');
  writeFileSync(path.join(dir, 'out', 'gone.txt'), 'bye');
  // A complete journal, as writeChanges leaves it just before applying it.
  const next = path.join(dir, 'out.next');
  mkdirSync(path.join(next, 'a'), { recursive: true });
  writeFileSync(path.join(next, 'a', 'x.txt'), 'new');
  writeFileSync(path.join(next, '.opforge-journal'), JSON.stringify({ moves: ['a/x.txt'], removes: ['gone.txt'] }));
  writeFileSync(path.join(next, '.opforge-complete'), '');
  recoverOut(path.join(dir, 'out'));
  assert.is(readFileSync(path.join(dir, 'out', 'a', 'x.txt'), 'utf8'), 'new');
  assert.not.ok(existsSync(path.join(dir, 'out', 'gone.txt')));
  assert.not.ok(existsSync(next));
  // An incomplete one (killed before the marker) is dropped: out/ stays as it was.
  mkdirSync(next, { recursive: true });
  writeFileSync(path.join(next, 'partial.txt'), 'x');
  writeChanges(path.join(dir, 'out'), [], []);
  assert.not.ok(existsSync(next));
  assert.equal(listTree(path.join(dir, 'out')), ['a/x.txt']);
});

test.after(() => rmSync(work, { recursive: true, force: true }));
test.run();
