// Hostile strings in a valid spec (descriptions, enum values, string defaults) are escaped in
// every generated file: the generated C++ compiles, and no hostile string appears raw.

import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../generator/output/gen.js';
import { listTree } from '../generator/output/write-out.js';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { python, testWith } from './helpers/python.js';

// Each contains a character that needs escaping (quote, backslash, newline, non-ASCII), so
// finding it verbatim in a generated file means it was not escaped.
const HOSTILE = [
  '"; system("rm -rf /"); //',
  '"*/ #include <evil.h> /*',
  '\'\'\'""" import os',
  '\\\\ trailing backslash \\',
  '??= trigraph ??/',
  '"`${process.exit(1)}`',
  'multi\nline\r\ntext',
  'non-ASCII: 你好 \u2028 ünïcödé',
];

/** Double- and single-quoted literals with backslash escapes (C++, Python, TS all fit this). */
const STRING_LITERAL = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g;

testWith(['torch'], 'hostile strings are escaped and the C++ still compiles', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-hostile-'));
  mkdirSync(path.join(dir, 'ops', 'k'), { recursive: true });
  writeFileSync(path.join(dir, 'ops', 'k', 'k.cpp'), '// unused\n');
  const spec = {
    name: 'Hostile',
    version: 1,
    description: HOSTILE.join(' | '),
    inputs: [{ name: 'x', dtype: 'float32', description: HOSTILE[1] }],
    outputs: [{ name: 'y', dtype: 'float32', shape: 'x', description: HOSTILE[0] }],
    attributes: [
      { name: 'mode', type: 'string', enum: HOSTILE, default: HOSTILE[2], description: HOSTILE[6] },
      { name: 'label', type: 'string', default: HOSTILE[7] },
    ],
    kernels: { cpu: 'k/k.cpp' },
  };
  writeFileSync(path.join(dir, 'ops', 'hostile.yaml'), JSON.stringify(spec, null, 2)); // JSON is YAML
  const out = path.join(dir, 'out');
  generate({ opsDir: path.join(dir, 'ops'), outDir: out });
  for (const f of listTree(out)) {
    const text = readFileSync(path.join(out, f), 'utf8');
    // Outside string literals (where escapes keep them inert), no hostile string may appear.
    const code = text.replace(STRING_LITERAL, '""');
    for (const h of HOSTILE)
      assert.not.ok(code.includes(h), `${f} contains a raw hostile string: ${JSON.stringify(h)}`);
    if (/\.(h|cpp|cu|py|ts|js)$/.test(f)) assert.ok(/^[\x00-\x7f]*$/.test(text), `${f} is not ASCII`);
  }
  const src = path.join(dir, 'use.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/hostile.h"
#include <cstdio>
int main() {
  opforge::ops::hostile::Attrs a;
  if (!opforge::ops::hostile::validate(a).ok()) return 1;
  a.mode = "not in the enum";
  if (opforge::ops::hostile::validate(a).ok()) return 2;
  std::printf("%s|%s", opforge::ops::hostile::Attrs().mode.c_str(), opforge::ops::hostile::Attrs().label.c_str());
  return 0;
}
`,
  );
  sh('g++', [...CXXFLAGS, '-Wno-trigraphs', `-I${path.join(out, 'include')}`, src, '-o', path.join(dir, 'use')]);
  // The defaults survive escaping byte for byte.
  assert.is(sh(path.join(dir, 'use'), []), `${HOSTILE[2]}|${HOSTILE[7]}`);
  // The Python package imports, and its TORCH_LIBRARY schema (shared with the C++ extension)
  // parses in real torch with the defaults intact.
  const got = JSON.parse(
    python(
      `
import json, sys, torch
import opforge_ops as oo
op = oo.OPS['Hostile']
schema = torch._C.parse_schema('hostile' + op.torch_schema)
print(json.dumps({'doc': op.doc, 'defaults': [a.default for a in op.attributes], 'enum': list(op.attributes[0].enum),
                  'schema': [a.default_value for a in schema.arguments if a.name != 'x']}))
`,
      [],
      { PYTHONPATH: path.join(out, 'python'), OPFORGE_TORCH_NO_EXTENSION: '1' },
    ),
  ) as { doc: string; defaults: string[]; enum: string[]; schema: string[] };
  assert.is(got.doc, HOSTILE.join(' | '));
  assert.equal(got.defaults, [HOSTILE[2], HOSTILE[7]]);
  assert.equal(got.enum, HOSTILE);
  assert.equal(got.schema, [HOSTILE[2], HOSTILE[7]]);
});

test.run();
