// The core emitter: each op's C++ header (names, attributes with their C++ types and defaults,
// the dtype bindings, the shape expressions) and the project files beside it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../../generator/emit/core/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertAbsent, assertFacts, emitChecked, file, loose, near } from './helpers/emitted.js';
import { decodeCpp, literalAfter } from './helpers/string-literals.js';
import { loadSpecs } from './helpers/spec-project.js';

const { project } = fixtureProject();
const files = emitChecked(coreEmitter, project, [/^include\/opforge\//, /^\.gitignore$/]);
const header = file(files, 'include/opforge/ops/scale_shift.h');

test('names, domain, version, inputs and outputs', () => {
  assertFacts(
    header,
    [
      near('kName', '"ScaleShift"'),
      near('kDomain', '"unit.test"'),
      near('kVersion', '3'),
      near('kInputNames', '{"x", "idx", "bias"}'),
      near('kOutputNames', '{"y", "count"}'),
      near('kInputOptional', '{false, false, true}'),
      near('kNumBindings', '6'),
      /namespace\s+scale_shift\b/,
    ],
    'scale_shift.h',
  );
});

test('attributes: C++ types and defaults as C++ spells them; a required one has none', () => {
  assertFacts(
    header,
    [
      loose('float alpha'),
      near('alpha', '2.5f'),
      loose('int64_t repeats'),
      near('repeats', '3LL'),
      loose('bool enabled'),
      near('enabled', 'true'),
      loose('std::string mode'),
      near('mode', '"nearest"'),
      loose('int64_t level'),
      near('level', '2LL'),
      loose('std::vector<int64_t> sizes'),
      near('sizes', '{4LL, (-5LL), 6LL}'),
      loose('std::vector<float> weights'),
      near('weights', '{0.5f, -1.25f}'),
      loose('std::string label'),
      loose('float gain'),
    ],
    'Attrs',
  );
  // Wrong spellings: 2.5 truncated, a float attribute typed as an integer, a default made up for the required one.
  assertAbsent(
    header,
    [/\balpha\s*=\s*2[^.\d]/, /\bint\w*\s+alpha\b/, /\bint\w*\s+gain\b/, /\bgain\s*=\s*[1-9]/],
    'Attrs',
  );
});

test('enum-like and ranged attributes are validated', () => {
  assertFacts(header, [/"linear"\s*,\s*"nearest"/, /\{\s*0LL\s*,\s*1LL\s*,\s*2LL\s*\}/, />=\s*1LL/], 'validate');
});

test('the hostile string default survives as the same bytes; the description as a harmless comment', () => {
  // The Attrs member's initializer (kAttributes also names "label", without a default).
  assert.is(decodeCpp(literalAfter(header, 'label\\s*=')), HOSTILE);
  assert.ok(/^[\x00-\x7f]*$/.test(header), 'the header is ASCII');
  const comment = header.split('\n').find((l) => l.includes('Scales x.'));
  assert.ok(comment?.trim().startsWith('//'), `description line: ${comment}`);
  assert.not.ok(/\\|\?\?|"/.test(comment!), `description line keeps a dangerous character: ${comment}`);
});

test('dtype bindings: one kernel overload per combination, in binding order', () => {
  const cpu = [...header.matchAll(/Status\s+cpu\s*\([^)]*Io<([^>]+)>/g)].map((m) => m[1]!.replace(/\s+/g, ''));
  assert.equal(cpu, [
    'float,int32_t',
    'float,int64_t',
    'opforge::float16,int32_t',
    'opforge::float16,int64_t',
    'double,int32_t',
    'double,int64_t',
  ]);
  assert.ok(/Status\s+cuda\s*\(/.test(header), 'the CUDA kernel (kernels.cuda) is declared');
  assert.not.ok(
    /Status\s+cuda\s*\(/.test(file(files, 'include/opforge/ops/plain_copy.h')),
    'PlainCopy has no CUDA kernel',
  );
});

test('output shapes from the spec expressions, the attribute read from attrs', () => {
  assertFacts(
    header,
    [
      // Output 0 (y): {x[0], x[1] * repeats + 1}; output 1 (count): {ceil_div(x[1], 2)}.
      /computedOutput<Core>\(\s*outputs\s*,\s*0\s*,\s*\{\s*inputs\[0\]\.dims\[0\]\s*,\s*\(*\s*inputs\[0\]\.dims\[1\]\s*\*\s*(?:static_cast<int64_t>\(\s*attrs\.repeats\s*\)|attrs\.repeats)\s*\)*\s*\+\s*(?:int64_t\{1\}|1(?:LL)?)\s*\)*\s*\}\s*\)/,
      /computedOutput<Core>\(\s*outputs\s*,\s*1\s*,\s*\{\s*(?:opforge::)?ceilDiv\s*\(\s*inputs\[0\]\.dims\[1\]\s*,\s*(?:int64_t\{2\}|2(?:LL)?)\s*,\s*ok\s*\)\s*\}\s*\)/,
    ],
    'inferShapes',
  );
});

test('an op without attributes or type variables', () => {
  const plain = file(files, 'include/opforge/ops/plain_copy.h');
  assertFacts(
    plain,
    [near('kName', '"PlainCopy"'), near('kDomain', '"custom"'), near('kNumBindings', '1')],
    'plain_copy.h',
  );
  assert.match(plain, /struct\s+Attrs\s*\{\s*\}/);
});

test('project files: the shared headers', () => {
  for (const p of ['include/opforge/core.h', 'include/opforge/serialize.h']) assert.ok(file(files, p).length > 100, p);
});

test('list attributes: validate() checks a declared length first; shapes read elements and lengths', () => {
  const listProject = loadSpecs({
    'pool.yaml': `name: Pool
version: 1
inputs: [{ name: x, dtype: float32, rank: 2 }]
outputs:
  - { name: y, dtype: float32, shape: ['x[1] // stride[-1]', len(pads)] }
attributes:
  - { name: stride, type: ints, length: 2, default: [1, 2] }
  - { name: pads, type: ints, default: [] }
kernels: { cpu: kernels/k.cpp }
`,
  });
  const pool = file(
    emitChecked(coreEmitter, listProject, [/^include\/opforge\//, /^\.gitignore$/]),
    'include/opforge/ops/pool.h',
  );
  assertFacts(
    pool,
    [
      loose(
        'if (attrs.stride.size() != 2u) return failGot(kName, ": attribute stride must have exactly 2 elements, got ", attrs.stride.size());',
      ),
      loose('opforge::floorDiv(inputs[0].dims[1], static_cast<int64_t>(attrs.stride[1]), ok)'),
      loose('static_cast<int64_t>(attrs.pads.size())'),
    ],
    'pool.h',
  );
  assert.not.match(pool, /attrs\.pads\.size\(\) !=/);
});

test.run();
