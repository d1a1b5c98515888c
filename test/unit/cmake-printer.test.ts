// The CMake printer (generator/emit/lang/cmake.ts): plain and quoted arguments, the one kind of
// argument that expands a variable, optional arguments, if() blocks and source lists; and, through
// a real cmake -P, that quoted arguments reach CMake as the exact text.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  cmakeCommand,
  cmakeComment,
  cmakeIf,
  cmakeInclude,
  cmakeSources,
  quoted,
  varPath,
} from '../../generator/emit/lang/cmake.js';

test('commands: plain words as-is, quoted arguments escaped, left-out arguments dropped, a trailing comment', () => {
  assert.is(
    cmakeCommand('opforge_add_op', ['my_op', 'CPU', quoted('k $dir/"a".cpp'), false, undefined, ''], 'MyOp */ x'),
    'opforge_add_op(my_op CPU "k \\$dir/\\"a\\".cpp")  # MyOp * / x',
  );
  assert.is(cmakeCommand('opforge_publish_ops'), 'opforge_publish_ops()');
  assert.is(
    cmakeInclude('../cmake/opforge_ort.cmake'),
    'include("${CMAKE_CURRENT_SOURCE_DIR}/../cmake/opforge_ort.cmake")',
  );
  assert.is(cmakeCommand('set', ['ROOT', varPath('SRC', '../my $x')]), 'set(ROOT "${SRC}/../my \\$x")');
  assert.is(cmakeCommand('set', ['ROOT', varPath('SRC')]), 'set(ROOT "${SRC}")');
  assert.throws(() => cmakeCommand('set', ['A B']), /not a plain CMake argument/);
  assert.throws(() => cmakeCommand('set', ['${X}']), /not a plain CMake argument/);
});

test('if() blocks and source lists', () => {
  assert.is(
    cmakeIf(['WITH_X', 'AND', 'EXISTS', quoted('a b')], [cmakeCommand('add_subdirectory', ['x'])]),
    'if(WITH_X AND EXISTS "a b")\n  add_subdirectory(x)\nendif()',
  );
  assert.is(cmakeSources('target_sources', 'lib', ['a.cc', 'b c.cc']), 'target_sources(lib\n  "a.cc"\n  "b c.cc"\n)');
  assert.is(cmakeComment('one', '', 'two'), '# one\n#\n# two');
});

test('quoted arguments reach CMake as the exact text (cmake -P)', () => {
  const texts = [
    'plain',
    'with space',
    'dollar ${HOME} $ENV{PATH}',
    'quote " and \\ backslash',
    'semi;colon',
    'tab\tend',
  ];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-cmake-printer-'));
  const script = path.join(dir, 'print.cmake');
  writeFileSync(
    script,
    `${texts.map((t, i) => cmakeCommand('set', [`V${i}`, quoted(t)])).join('\n')}\n${texts
      .map((_, i) => `message("[\${V${i}}]")`)
      .join('\n')}\n`,
  );
  const r = spawnSync('cmake', ['-P', script], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.equal(
    r.stderr.trimEnd().split('\n'),
    texts.map((t) => `[${t}]`),
  );
});

test.run();
