// The Node emitter: the op table index.js checks attributes against (names, types, defaults,
// enums, ranges, required), the TypeScript declarations (attribute types, enum unions, optional
// inputs, dtype parameters) and the addon's attribute conversions.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nodeEmitter } from '../../generator/emit/node/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, near, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(nodeEmitter, project, [/^node\//]);
const js = file(files, 'node/index.js');
const dts = file(files, 'node/index.d.ts');

/** The `{ name: "x", ... }` entry of one attribute in index.js's op table. */
function attrEntry(name: string): string {
  // Quoted strings may hold braces of their own (the hostile default does).
  const m = new RegExp(`\\{\\s*name:\\s*"${name}"(?:[^{}"]|"(?:[^"\\\\\\n]|\\\\.)*")*\\}`).exec(js);
  assert.ok(m, `no attribute entry ${name} in index.js`);
  return m[0];
}

test('index.js: each attribute with its type, default, enum, range and required flag', () => {
  const expect: [string, string, string, boolean][] = [
    ['alpha', 'float', '2.5', false],
    ['repeats', 'int', '3', false],
    ['enabled', 'bool', 'true', false],
    ['mode', 'string', '"nearest"', false],
    ['level', 'int', '2', false],
    ['sizes', 'ints', '[4, -5, 6]', false],
    ['weights', 'floats', '[0.5, -1.25]', false],
    ['gain', 'float', 'undefined', true],
  ];
  for (const [name, type, def, required] of expect) {
    const e = attrEntry(name);
    assertFacts(e, [loose(`type: "${type}"`), loose(`default: ${def}`), loose(`required: ${required}`)], name);
  }
  assertFacts(attrEntry('mode'), [loose('enum: ["linear", "nearest"]')], 'mode');
  assertFacts(attrEntry('level'), [loose('enum: [0, 1, 2]')], 'level');
  assertFacts(attrEntry('repeats'), [loose('min: 1')], 'repeats');
});

test('index.js: the hostile default is the same string in JS', () => {
  const m = /default:\s*("(?:[^"\\\n]|\\.)*")/.exec(attrEntry('label'));
  assert.ok(m, 'label default');
  assert.is(JSON.parse(m[1]!), HOSTILE);
  assert.ok(/^[\x00-\x7f]*$/.test(js), 'index.js is ASCII');
});

test('index.js: inputs with their dtypes and optional flags; both ops exported by camelCase name', () => {
  assertFacts(
    js,
    [
      loose('{ name: "x", dtypes: ["float32", "float16", "float64"], rank: 2, optional: false }'),
      loose('{ name: "idx", dtypes: ["int32", "int64"], rank: 1, optional: false }'),
      loose('{ name: "bias", dtypes: ["float32", "float16", "float64"], rank: null, optional: true }'),
      /\bscaleShift\s*:/,
      /\bplainCopy\s*:/,
    ],
    'index.js',
  );
});

test('index.d.ts: attribute types as TypeScript spells them, enums as unions, required without ?', () => {
  assertFacts(
    dts,
    [
      loose('readonly alpha?: number;'),
      loose('readonly repeats?: number;'),
      loose('readonly enabled?: boolean;'),
      /readonly mode\?:\s*(?:"linear"\s*\|\s*"nearest"|'linear'\s*\|\s*'nearest');/,
      loose('readonly level?: 0 | 1 | 2;'),
      loose('readonly sizes?: readonly number[];'),
      loose('readonly weights?: readonly number[];'),
      loose('readonly label?: string;'),
      loose('readonly gain: number;'),
      /scaleShift\s*<\s*T\s+extends\s+'float32'\s*\|\s*'float16'\s*\|\s*'float64'\s*,\s*I\s+extends\s+'int32'\s*\|\s*'int64'\s*>/,
      /\{\s*y:\s*Tensor<T>;\s*count:\s*Tensor<'int64'>\s*\}/,
    ],
    'index.d.ts',
  );
});

test('index.d.ts: no required parameter follows an optional one (TS1016)', () => {
  const sigs = [...dts.matchAll(/^\s*\w+(?:<[^>(]*>)?\(([^)]*)\)\s*:/gm)].map((m) => m[1]!);
  assert.ok(sigs.length >= 8, `found ${sigs.length} signatures`);
  for (const s of sigs) {
    // Split at top-level commas (type arguments hold commas of their own).
    const params: string[] = [];
    let depth = 0;
    let cur = '';
    for (const c of s) {
      if (c === '<' || c === '{' || c === '(') depth++;
      if (c === '>' || c === '}' || c === ')') depth--;
      if (c === ',' && depth === 0) {
        params.push(cur.trim());
        cur = '';
      } else cur += c;
    }
    params.push(cur.trim());
    const optional = params.map((p) => /^\w+\?:/.test(p));
    const firstOptional = optional.indexOf(true);
    if (firstOptional >= 0) assert.ok(optional.slice(firstOptional).every(Boolean), `required after optional: (${s})`);
  }
  // Here attrs is required (gain), so bias is passed explicitly, possibly undefined.
  assert.match(dts, /bias:\s*Tensor<NoInfer<T>>\s*\|\s*undefined\s*,\s*attrs:\s*ScaleShiftAttrs\)/);
  assert.match(dts, /plainCopy\(src:\s*Tensor<'float32'>\s*,\s*attrs\?:\s*PlainCopyAttrs\)/);
});

test('the addon converts each attribute to the C++ type of the op core', () => {
  const cpp = opText(files, 'ScaleShift');
  const slot = (k: number): string => `slots\\[\\s*opforge::node::abi::kAttrBase\\s*\\+\\s*${k}\\s*\\]`;
  // Scalars come from the scratch slot index.js writes them to, converted as the core's field type
  // (float, int64_t, bool); strings and lists from their argument, read into the core's own member
  // (addon_base.h converts a list's elements to the vector's element type, which the core declares).
  const reads: [string, string, RegExp][] = [
    ['alpha', 'slot: 0, arg: -1', new RegExp(`attrs->alpha\\s*=\\s*static_cast<float>\\(\\s*${slot(0)}\\s*\\)`)],
    [
      'repeats',
      'slot: 1, arg: -1',
      new RegExp(`attrs->repeats\\s*=\\s*(?:opforge::node::)?toInt64\\(\\s*${slot(1)}\\s*\\)`),
    ],
    ['enabled', 'slot: 2, arg: -1', new RegExp(`attrs->enabled\\s*=\\s*${slot(2)}\\s*!=\\s*0\\s*;`)],
    [
      'mode',
      'slot: -1, arg: 3',
      /readStringAttr\(\s*info\s*,\s*3\s*,\s*Core::kName\s*,\s*"mode"\s*,\s*&attrs->mode\s*\)/,
    ],
    [
      'level',
      'slot: 3, arg: -1',
      new RegExp(`attrs->level\\s*=\\s*(?:opforge::node::)?toInt64\\(\\s*${slot(3)}\\s*\\)`),
    ],
    [
      'sizes',
      'slot: -1, arg: 4',
      /readListAttr\(\s*info\s*,\s*4\s*,\s*Core::kName\s*,\s*"sizes"\s*,\s*&attrs->sizes\s*\)/,
    ],
    [
      'weights',
      'slot: -1, arg: 5',
      /readListAttr\(\s*info\s*,\s*5\s*,\s*Core::kName\s*,\s*"weights"\s*,\s*&attrs->weights\s*\)/,
    ],
    [
      'label',
      'slot: -1, arg: 6',
      /readStringAttr\(\s*info\s*,\s*6\s*,\s*Core::kName\s*,\s*"label"\s*,\s*&attrs->label\s*\)/,
    ],
    ['gain', 'slot: 4, arg: -1', new RegExp(`attrs->gain\\s*=\\s*static_cast<float>\\(\\s*${slot(4)}\\s*\\)`)],
  ];
  for (const [name, where, read] of reads) {
    assertFacts(attrEntry(name), [loose(where)], `index.js ${name}`);
    assertFacts(cpp, [read], `ops/scale_shift.cpp ${name}`);
  }
  assertFacts(
    cpp,
    [/using\s+Core\s*=\s*(?:::)?opforge::ops::scale_shift::Core\s*;/, near('run_scale_shift', '(x, idx, bias')],
    'ops/scale_shift.cpp',
  );
  // The list element conversion: Int64Value for an int64_t element, FloatValue for a float one.
  assert.match(
    file(files, 'node/include/opforge/node/addon_base.h'),
    /std::is_same<T,\s*float>::value\s*\?\s*static_cast<T>\(x\.FloatValue\(\)\)\s*:\s*static_cast<T>\(x\.Int64Value\(\)\)/,
  );
});

test.run();
