// The spec model on small specs written here: load, schema check and build-ir give the IR the
// emitters read (types, defaults, bindings, shapes, case forms), and bad specs give located errors
// (file, line, column, key path, message, hint), all of them at once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatDiagnostic, type Diagnostic } from '../../generator/model/diagnostics.js';
import { evalExpr, formatExpr } from '../../generator/model/expr.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const { project, scale, plain } = fixtureProject();

test('op identity, case forms and source', () => {
  assert.is(scale.domain, 'unit.test');
  assert.is(scale.version, 3);
  assert.equal(scale.ident, { raw: 'ScaleShift', snake: 'scale_shift', camel: 'scaleShift', pascal: 'ScaleShift' });
  assert.is(scale.source.relFile, 'ops/scale_shift.yaml');
  assert.is(plain.domain, 'custom', 'the default domain');
  assert.is(project.opsDir, 'ops');
  assert.equal(scale.kernels, {
    cpu: 'ops/kernels/scale_shift.cpp',
    cuda: 'ops/kernels/scale_shift.cu',
    reference: undefined,
  });
});

test('attributes: types, defaults normalized, enums, ranges, required', () => {
  const byName = Object.fromEntries(scale.attributes.map((a) => [a.name, a]));
  const facts = scale.attributes.map((a) => [a.name, a.type, a.default, a.required]);
  assert.equal(facts, [
    ['alpha', 'float', 2.5, false],
    ['repeats', 'int', 3, false],
    ['enabled', 'bool', true, false],
    ['mode', 'string', 'nearest', false],
    ['level', 'int', 2, false],
    ['sizes', 'ints', [4, -5, 6], false],
    ['weights', 'floats', [0.5, -1.25], false],
    ['label', 'string', byName.label!.default, false],
    ['gain', 'float', undefined, true],
  ]);
  assert.equal(byName.mode!.enum, ['linear', 'nearest']);
  assert.equal(byName.level!.enum, [0, 1, 2]);
  assert.is(byName.repeats!.min, 1);
  assert.is(byName.repeats!.max, undefined);
});

test('type variables and their bindings, in declaration order', () => {
  assert.equal(
    scale.typeVars.map((v) => [v.name, v.dtypes]),
    [
      ['T', ['float32', 'float16', 'float64']],
      ['I', ['int32', 'int64']],
    ],
  );
  assert.equal(
    scale.bindings.map((b) => b.suffix),
    ['f32_i32', 'f32_i64', 'f16_i32', 'f16_i64', 'f64_i32', 'f64_i64'],
  );
  assert.equal(scale.bindings[3]!.vars, { T: 'float16', I: 'int64' });
  assert.equal(plain.bindings, [{ vars: {}, suffix: '' }]);
});

test('inputs: ranks, constraints, optional; outputs: fixed and variable dtypes', () => {
  assert.equal(
    scale.inputs.map((i) => [
      i.name,
      i.rank,
      i.optional,
      i.type.kind === 'var' ? i.type.name : i.type.kind === 'fixed' ? i.type.dtype : '',
    ]),
    [
      ['x', 2, false, 'T'],
      ['idx', 1, false, 'I'],
      ['bias', null, true, 'T'],
    ],
  );
  const idx = scale.inputs[1]!.constraint;
  assert.is(idx.kind, 'dims');
  assert.equal(scale.outputs[1]!.type, { kind: 'fixed', dtype: 'int64' });
  assert.equal(plain.outputs[0]!.shape, { kind: 'like', input: 'src', inputIndex: 0 });
});

test('output shapes are expressions over input dims and int attributes', () => {
  const y = scale.outputs[0]!.shape;
  const count = scale.outputs[1]!.shape;
  assert.ok(y.kind === 'dims' && count.kind === 'dims');
  assert.equal(y.source, ['x[0]', 'x[1] * repeats + 1']);
  // Parsed with precedence: the product binds first.
  assert.equal(y.dims.map(formatExpr), ['x[0]', '((x[1] * repeats) + 1)']);
  assert.is(formatExpr(count.dims[0]!), 'ceil_div(x[1], 2)');
  const dims = [[5, 7], [5], []];
  assert.is(evalExpr(y.dims[1]!, dims, { repeats: 3 }), 22);
  assert.is(evalExpr(count.dims[0]!, dims, {}), 4);
});

/** One spec (file x.yaml) with a kernel. */
const spec = (...lines: string[]): Record<string, string> => ({ 'x.yaml': `${lines.join('\n')}\n` });
const base = [
  'name: X',
  'version: 1',
  'inputs:',
  '  - name: a',
  '    dtype: float32',
  'outputs:',
  '  - name: y',
  '    dtype: float32',
  '    shape: a',
  'kernels:',
  '  cpu: kernels/x.cpp',
];

function only(errors: Diagnostic[]): Diagnostic {
  assert.is(errors.length, 1, errors.map((d) => formatDiagnostic(d)).join('\n'));
  return errors[0]!;
}

function at(d: Diagnostic, line: number, col: number, path: string, message: RegExp): void {
  assert.ok(d.file.endsWith('x.yaml'), `file: ${d.file}`);
  assert.equal([d.line, d.col, d.path], [line, col, path], formatDiagnostic(d));
  assert.match(d.message, message);
}

test('a valid small spec loads', () => {
  const p = loadSpecs(spec(...base));
  assert.equal(
    p.ops.map((o) => o.name),
    ['X'],
  );
});

test('unknown dtype: located at the value, with the dtypes named', () => {
  const lines = [...base];
  lines[4] = '    dtype: float33';
  const d = only(specErrors(spec(...lines)));
  at(d, 5, 12, 'inputs[0].dtype', /float33/);
  assert.match(`${d.message} ${d.hint ?? ''}`, /float32/);
});

test('a misspelt key: located at the key, did you mean', () => {
  const d = only(specErrors(spec(...base, 'atributes: []')));
  at(d, 12, 1, 'atributes', /atributes/);
  assert.match(d.hint ?? '', /did you mean `attributes`\?/);
});

test('an attribute default of the wrong type, and required with a default', () => {
  const errors = specErrors(
    spec(
      ...base,
      'attributes:',
      '  - name: k',
      '    type: float',
      '    default: "2.5"',
      '  - name: n',
      '    type: int',
      '    required: true',
      '    default: 1',
    ),
  );
  assert.is(errors.length, 2, errors.map((d) => formatDiagnostic(d)).join('\n'));
  at(errors.find((d) => d.path === 'attributes[0].default')!, 15, 14, 'attributes[0].default', /finite number/);
  at(
    errors.find((d) => d.path === 'attributes[1].default')!,
    19,
    14,
    'attributes[1].default',
    /both required and have a default/,
  );
});

test('a shape expression error points into the expression', () => {
  const lines = [...base];
  lines[8] = '    shape: [a[0] + , 2]';
  const errors = specErrors(spec(...lines));
  const d = errors.find((e) => e.path.startsWith('outputs[0].shape'));
  assert.ok(d, errors.map((e) => formatDiagnostic(e)).join('\n'));
  assert.is(d.line, 9);
  assert.ok(d.col >= 12, `col ${d.col}`);
});

test('a shape reading an unknown input or a non-int attribute', () => {
  const lines = [...base];
  lines[8] = '    shape: [b[0], s]';
  const errors = specErrors(spec(...lines, 'attributes:', '  - name: s', '    type: float', '    default: 1.0'));
  assert.ok(
    errors.some((d) => d.path === 'outputs[0].shape[0]' && /\bb\b/.test(d.message)),
    errors.map((e) => formatDiagnostic(e)).join('\n'),
  );
  assert.ok(
    errors.some((d) => d.path === 'outputs[0].shape[1]' && /\bs\b/.test(d.message)),
    errors.map((e) => formatDiagnostic(e)).join('\n'),
  );
});

test('YAML errors: a duplicate key at its line', () => {
  const d = only(specErrors(spec(...base, 'version: 2')));
  assert.equal([d.line, d.path], [12, '(yaml)']);
  assert.match(d.message, /duplicate key/);
});

test('a missing kernel file, and every file reported together', () => {
  const errors = specErrors({
    ...spec(...base.slice(0, -1), '  cpu: kernels/x.cpp', '  cuda: missing/x.cu'),
    'z.yaml': 'name: Z\n',
  });
  const files = new Set(errors.map((d) => d.file.replace(/^.*\//, '')));
  assert.equal([...files].sort(), ['x.yaml', 'z.yaml']);
  const kernel = errors.find((d) => d.path === 'kernels.cuda');
  assert.ok(kernel, errors.map((e) => formatDiagnostic(e)).join('\n'));
  assert.is(kernel.line, 12);
});

test('optional inputs must come last', () => {
  const errors = specErrors(
    spec(
      'name: X',
      'version: 1',
      'inputs:',
      '  - name: a',
      '    dtype: float32',
      '    optional: true',
      '  - name: b',
      '    dtype: float32',
      'outputs:',
      '  - name: y',
      '    dtype: float32',
      '    shape: b',
      'kernels:',
      '  cpu: kernels/x.cpp',
    ),
  );
  assert.ok(
    errors.some((d) => d.path.startsWith('inputs[')),
    errors.map((e) => formatDiagnostic(e)).join('\n'),
  );
});

test.run();
