// The CMake emitter: the top-level CMakeLists.txt lists every op with its kernel files (CUDA only
// where the spec names one), relative to the project root, and includes the backends.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cmakeEmitter } from '../../generator/emit/cmake/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(cmakeEmitter, project, [/^CMakeLists\.txt$/, /^cmake\/opforge(_backends)?\.cmake$/]);
const top = file(files, 'CMakeLists.txt');

test('every op with its kernels, in name order', () => {
  assertFacts(
    top,
    [
      loose('opforge_add_op(plain_copy CPU "ops/kernels/plain_copy.cpp")'),
      loose('opforge_add_op(scale_shift CPU "ops/kernels/scale_shift.cpp" CUDA "ops/kernels/scale_shift.cu")'),
    ],
    'CMakeLists.txt',
  );
  assert.ok(top.indexOf('opforge_add_op(plain_copy') < top.indexOf('opforge_add_op(scale_shift'));
});

test('kernel paths are relative to the project root, which is relative to out/', () => {
  assert.match(top, /OPFORGE_PROJECT_ROOT\s+"\$\{CMAKE_CURRENT_SOURCE_DIR\}\/\.\."/);
});

test('the backends are added where their folders exist', () => {
  // After the op list (the backends link its kernel libraries), the backends file: per backend an
  // option, and its directory added when the option is on and the emitter wrote the folder.
  const include = /include\(\s*"\$\{CMAKE_CURRENT_SOURCE_DIR\}\/cmake\/opforge_backends\.cmake"\s*\)/.exec(top);
  assert.ok(include, 'CMakeLists.txt includes cmake/opforge_backends.cmake');
  assert.ok(top.indexOf('opforge_add_op(scale_shift') < include.index, 'the backends come after the ops');
  const backends = file(files, 'cmake/opforge_backends.cmake');
  const dirs: [string, string][] = [
    ['WITH_TENSORRT', 'trt'],
    ['WITH_PADDLE', 'paddle'],
    ['WITH_JAX', 'jax'],
    ['WITH_POPART', 'popart'],
    ['WITH_ONNXRUNTIME', 'ort'],
  ];
  for (const [option, dir] of dirs) {
    assert.match(backends, new RegExp(`option\\(\\s*${option}\\s+"[^"]*"\\s+OFF\\s*\\)`), option);
    const guarded = new RegExp(
      `if\\(\\s*${option}\\s+AND\\s+EXISTS\\s+"\\$\\{CMAKE_CURRENT_SOURCE_DIR\\}/${dir}/CMakeLists\\.txt"\\s*\\)\\s*add_subdirectory\\(\\s*${dir}\\s*\\)\\s*endif\\(\\)`,
    );
    assert.match(backends, guarded, dir);
  }
});

test.run();
