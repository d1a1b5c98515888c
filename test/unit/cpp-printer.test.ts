// The C++ printer: unit layout (comment, pragma, include groups, namespaces), tables, enums.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paragraphs } from '../../generator/emit/emitter.js';
import {
  braced,
  constants,
  cppEnum,
  cppUnit,
  docComment,
  includeLines,
  initializer,
  namespaceBlock,
  table,
} from '../../generator/emit/lang/cpp.js';

test('a header unit: comment, pragma, sorted deduplicated include groups, nested namespaces closed by name', () => {
  const text = cppUnit({
    comment: ['first */ line', 'second'],
    header: true,
    includes: { system: ['vector', 'cstdint', 'vector'], external: ['napi.h'], project: ['opforge/core.h', 'a/b.h'] },
    namespace: 'opforge::ops::x',
    body: ['int f();', null, false],
  });
  assert.is(
    text,
    [
      '// first * / line',
      '// second',
      '#pragma once',
      '',
      '#include <cstdint>',
      '#include <vector>',
      '',
      '#include <napi.h>',
      '',
      '#include "a/b.h"',
      '#include "opforge/core.h"',
      '',
      'namespace opforge {',
      'namespace ops {',
      'namespace x {',
      '',
      'int f();',
      '',
      '}  // namespace x',
      '}  // namespace ops',
      '}  // namespace opforge',
    ].join('\n'),
  );
});

test('includes: pre-delimited paths kept; empty groups leave no blank lines; anonymous namespace', () => {
  assert.equal(includeLines({ project: ['"paddle/extension.h"', '<x.h>'] }), [
    '#include "paddle/extension.h"',
    '#include <x.h>',
  ]);
  assert.is(namespaceBlock('', 'int y;'), ['namespace {', '', 'int y;', '', '}  // namespace'].join('\n'));
  assert.is(
    cppUnit({ namespace: [''], body: 'int x;' }),
    ['', 'namespace {', '', 'int x;', '', '}  // namespace'].join('\n'),
  );
});

test('tables: inline when short, one commented row a line, empty is one element', () => {
  assert.is(table({ type: 'int', name: 'kA', rows: ['1', '2'], size: 'kN' }), 'constexpr int kA[kN] = {1, 2};');
  assert.is(
    table({ type: 'bool', name: 'kB', prefix: 'static ', rows: [{ value: 'true', comment: 'x' }, { value: 'false' }] }),
    ['static constexpr bool kB[2] = {', '    true,  // x', '    false,', '};'].join('\n'),
  );
  assert.is(table({ type: 'int', name: 'kE', rows: [] }), 'constexpr int kE[1] = {};  // empty');
  assert.is(braced(['1', '2']), '{1, 2}');
});

test('constants, enums, doc comments', () => {
  assert.equal(constants([{ type: 'int', name: 'kN', value: '3', comment: 'count' }], 'static ', '  '), [
    '  static constexpr int kN = 3;  // count',
  ]);
  assert.is(
    cppEnum({
      name: 'E',
      underlying: 'uint8_t',
      values: [
        { name: 'kA', value: '0' },
        { name: 'kB', comment: 'b' },
      ],
    }),
    ['enum class E : uint8_t {', '  kA = 0,', '  kB,  // b', '};'].join('\n'),
  );
  assert.is(docComment('one "line"'), "/** one 'line' */");
  assert.is(docComment(['a', 'b'], '  '), ['  /**', '   * a', '   * b', '   */'].join('\n'));
});

test('paragraphs drop empty parts; initializers wrap at the width', () => {
  assert.is(paragraphs('a', null, ['b', false, 'c'], '', []), 'a\n\nb\nc');
  assert.is(
    initializer('constexpr X k', ['aa', 'bb', 'cc'], 8),
    ['constexpr X k = {', '    aa, bb,', '    cc};'].join('\n'),
  );
  assert.is(initializer('constexpr X k', ['1', '2']), ['constexpr X k = {', '    1, 2};'].join('\n'));
});

test.run();
