// What every registered emitter owes: identical files when run twice, the do-not-edit header line
// naming the spec, paths only under its own folders (and no path claimed by two emitters), every
// op's own files tagged with it, a file per op for both fixture ops, ASCII sources, and the
// hostile description only in comments it cannot close or in literals that read back exactly.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { COLD, fragmentContext, type GeneratedFile } from '../../generator/emit/emitter.js';
import { EMITTERS } from '../../generator/emit/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { emitChecked } from './helpers/emitted.js';
import { decodePython, literalAfter } from './helpers/string-literals.js';
import path from 'node:path';
import { loadProject } from '../../generator/model/project.js';
import { fixtures } from '../helpers/paths.js';

/** Where each backend may write, relative to out/. */
const FOLDERS: Record<string, RegExp[]> = {
  core: [/^include\/opforge\//, /^\.gitignore$/],
  cmake: [/^CMakeLists\.txt$/, /^cmake\/opforge(_backends)?\.cmake$/],
  trt: [/^trt\//, /^cmake\/opforge_trt\.cmake$/],
  node: [/^node\//],
  torch: [/^torch\//],
  python: [/^python\//],
  ort: [/^ort\//, /^cmake\/opforge_ort\.cmake$/],
  paddle: [/^paddle\//, /^cmake\/opforge_paddle\.cmake$/],
  jax: [/^jax\//, /^cmake\/opforge_jax\.cmake$/],
  popart: [/^popart\//, /^cmake\/opforge_popart\.cmake$/],
  wheel: [/^pyproject\.toml$/],
  triton: [/^triton\//, /^include\/opforge\/triton_launch\.h$/],
};

test('the registry holds the twelve emitters, each named once', () => {
  assert.equal(EMITTERS.map((e) => e.name).sort(), Object.keys(FOLDERS).sort());
});

const { project } = fixtureProject();
/** The Triton emitter writes files for ops with kernels.triton only: test/fixtures/triton's. */
const tritonProject = loadProject({
  opsDir: path.join(fixtures, 'triton', 'ops'),
  root: path.join(fixtures, 'triton'),
});
const projectOf = (name: string): typeof project => (name === 'triton' ? tritonProject : project);
const byEmitter = new Map<string, GeneratedFile[]>();
/** The IR as loaded: emitters read it, never change it (incremental gen reuses ops across runs). */
const loaded = JSON.stringify(project);

for (const emitter of EMITTERS) {
  test(`${emitter.name}: deterministic, headed, under its folders`, () => {
    const files = emitChecked(emitter, projectOf(emitter.name), FOLDERS[emitter.name] ?? []);
    byEmitter.set(emitter.name, files);
    // The cmake and wheel emitters write project files only; every other backend has files of each
    // op (the Triton emitter, of each op with a Triton kernel).
    if (emitter.name !== 'cmake' && emitter.name !== 'wheel')
      for (const op of projectOf(emitter.name).ops.filter((o) => emitter.name !== 'triton' || o.kernels.triton))
        assert.ok(
          files.some((f) => f.op === op.name),
          `${emitter.name}: no file of ${op.name}`,
        );
  });

  test(`${emitter.name}: emit() is the project's files then each op's, in op order`, () => {
    const p = projectOf(emitter.name);
    const parts = [...emitter.project(p, COLD), ...p.ops.flatMap((op) => emitter.op(op, p))];
    assert.equal(
      parts.map((f) => f.path),
      emitter.emit(p).map((f) => f.path),
    );
  });
}

test('project files built from cached per-op fragments equal a cold emission (incremental gen)', () => {
  const keyOf = new Map(project.ops.map((op) => [op, `${op.name}@1`]));
  for (const emitter of EMITTERS) {
    const cold = emitter.project(project, COLD).map((f) => [f.path, f.content]);
    const first = fragmentContext(keyOf, new Map());
    assert.equal(
      emitter.project(project, first).map((f) => [f.path, f.content]),
      cold,
      `${emitter.name}: filling the cache`,
    );
    // A second run with the same op keys takes every fragment from the first run's cache.
    const second = fragmentContext(keyOf, first.used);
    assert.equal(
      emitter.project(project, second).map((f) => [f.path, f.content]),
      cold,
      `${emitter.name}: from the cache`,
    );
    assert.equal([...second.used.keys()].sort(), [...first.used.keys()].sort(), `${emitter.name}: fragments kept`);
  }
});

test('emitting leaves the IR as it was loaded', () => {
  assert.is(byEmitter.size, EMITTERS.length);
  assert.ok(JSON.stringify(project) === loaded, 'an emitter changed the IR');
});

test('no two emitters write the same path', () => {
  const owner = new Map<string, string>();
  for (const [name, files] of byEmitter)
    for (const f of files) {
      const prev = owner.get(f.path);
      assert.not.ok(prev, `${f.path}: written by ${prev} and ${name}`);
      owner.set(f.path, name);
    }
  assert.is(byEmitter.size, EMITTERS.length);
});

test('every file is ASCII; the hostile description is a harmless comment or an exact literal', () => {
  let comments = 0;
  for (const [name, files] of byEmitter)
    for (const f of files) {
      assert.ok(/^[\x00-\x7f]*$/.test(f.content), `${name}: ${f.path} is not ASCII`);
      if (f.path.endsWith('.md')) continue; // Markdown escapes differently: read as text, not code
      for (const line of f.content.split('\n')) {
        const at = line.indexOf('Scales x.');
        if (at < 0) continue;
        const where = `${name}: ${f.path}: ${line}`;
        if (line[at - 1] === "'" || line[at - 1] === '"') {
          // A string literal (Python's doc=): the very text of the spec.
          assert.is(decodePython(literalAfter(line, 'doc', line[at - 1] as "'")), `Scales x. ${HOSTILE}`, where);
          continue;
        }
        const text = line
          .slice(at)
          .replace(/(\*\/|""")\s*$/, '')
          .trimEnd();
        assert.ok(text.includes("say 'hi' it's"), `the description is kept: ${where}`);
        for (const bad of ['*/', '\\', '"', '??', '\t'])
          assert.not.ok(text.includes(bad), `${JSON.stringify(bad)} in ${where}`);
        comments++;
      }
    }
  assert.ok(comments >= 8, `only ${comments} description comments found`);
});

test('ops are emitted in name order whatever order the specs load in', () => {
  assert.equal(
    project.ops.map((o) => o.name),
    ['PlainCopy', 'ScaleShift'],
  );
  const core = EMITTERS.find((e) => e.name === 'core')!;
  const opPaths = core
    .emit(project)
    .filter((f) => f.op)
    .map((f) => f.path);
  assert.equal(opPaths, ['include/opforge/ops/plain_copy.h', 'include/opforge/ops/scale_shift.h']);
});

test.run();
