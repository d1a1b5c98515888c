// What every registered emitter owes: identical files when run twice, the do-not-edit header line
// naming the spec, paths only under its own folders (and no path claimed by two emitters), every
// op's own files tagged with it, and a file per op for both fixture ops.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { GeneratedFile } from '../../generator/emit/emitter.js';
import { EMITTERS } from '../../generator/emit/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { emitChecked } from './helpers/emitted.js';

/** Where each backend may write, relative to out/. */
const FOLDERS: Record<string, RegExp[]> = {
  core: [/^include\/opforge\//, /^\.gitignore$/],
  cmake: [/^CMakeLists\.txt$/, /^cmake\/opforge\.cmake$/],
  trt: [/^trt\//, /^cmake\/opforge_trt\.cmake$/],
  node: [/^node\//],
  torch: [/^torch\//],
  python: [/^python\//],
  ort: [/^ort\//, /^cmake\/opforge_ort\.cmake$/],
  paddle: [/^paddle\//, /^cmake\/opforge_paddle\.cmake$/],
  jax: [/^jax\//, /^cmake\/opforge_jax\.cmake$/],
  popart: [/^popart\//, /^cmake\/opforge_popart\.cmake$/],
};

test('the registry holds the ten backends, each named once', () => {
  assert.equal(EMITTERS.map((e) => e.name).sort(), Object.keys(FOLDERS).sort());
});

const { project } = fixtureProject();
const byEmitter = new Map<string, GeneratedFile[]>();

for (const emitter of EMITTERS) {
  test(`${emitter.name}: deterministic, headed, under its folders`, () => {
    const files = emitChecked(emitter, project, FOLDERS[emitter.name] ?? []);
    byEmitter.set(emitter.name, files);
    // The cmake emitter writes project files only; every other backend has files of each op.
    if (emitter.name !== 'cmake')
      for (const op of project.ops)
        assert.ok(
          files.some((f) => f.op === op.name),
          `${emitter.name}: no file of ${op.name}`,
        );
  });

  test(`${emitter.name}: emit() is the project's files then each op's, in op order`, () => {
    const parts = [
      ...emitter.project(project, { perOp: (_k, f) => f }),
      ...project.ops.flatMap((op) => emitter.op(op, project)),
    ];
    assert.equal(
      parts.map((f) => f.path),
      emitter.emit(project).map((f) => f.path),
    );
  });
}

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
