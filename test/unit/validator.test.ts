// The validator against a corpus of bad specs: each file in test/fixtures/bad/ops states the
// errors it must produce (`# expect: line:col key.path message|hint`), and gets exactly those.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SpecErrors, formatDiagnostic, type Diagnostic } from '../../generator/model/diagnostics.js';
import { evalExpr } from '../../generator/model/expr.js';
import type { Expr } from '../../generator/model/ir.js';
import { listSpecFiles } from '../../generator/model/load.js';
import { loadProject } from '../../generator/model/project.js';
import { fixtures, root } from '../helpers/paths.js';
import { LineCounter, parseDocument, visit } from 'yaml';

const opsDir = path.join(fixtures, 'bad', 'ops');

function allDiagnostics(): Diagnostic[] {
  try {
    loadProject({ opsDir, root: path.join(fixtures, 'bad') });
  } catch (e) {
    if (e instanceof SpecErrors) return e.diagnostics;
    throw e;
  }
  throw new Error('the bad corpus validated');
}

const diags = allDiagnostics();

for (const file of listSpecFiles(opsDir)) {
  const base = path.basename(file);
  test(`bad spec ${base}`, () => {
    const expects = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('# expect: '))
      .map((l) => {
        const m = /^# expect: (\d+):(\d+) (\S+) (.*)$/.exec(l);
        if (!m) throw new Error(`bad expect line in ${base}: ${l}`);
        const [msg, hint] = m[4]!.split('|');
        return { line: Number(m[1]), col: Number(m[2]), path: m[3]!, msg: msg!, hint };
      });
    if (base.startsWith('valid_')) {
      assert.is(diags.filter((d) => path.basename(d.file) === base).length, 0);
      return;
    }
    assert.ok(expects.length > 0, `${base} states no expectations`);
    const mine = diags.filter((d) => path.basename(d.file) === base);
    const shown = mine.map((d) => formatDiagnostic(d)).join('\n');
    assert.is(mine.length, expects.length, `${base}: expected ${expects.length} errors, got:\n${shown}`);
    for (const x of expects) {
      const hit = mine.find(
        (d) => d.line === x.line && d.col === x.col && d.path === x.path && d.message.includes(x.msg),
      );
      assert.ok(hit, `${base}: no error ${x.line}:${x.col} ${x.path} "${x.msg}" among:\n${shown}`);
      if (x.hint)
        assert.ok(
          `${hit.message} ${hit.hint ?? ''}`.includes(x.hint),
          `${base}: hint "${x.hint}" missing: ${formatDiagnostic(hit)}`,
        );
      assert.ok(hit.file.endsWith(path.join('bad', 'ops', base)), `file is named: ${hit.file}`);
    }
  });
}

test('every error over the bad catalogue names the value it found (the scalar it points at)', () => {
  // Each diagnostic points at a YAML node: a scalar it found wrong (a value, or a key), or a
  // collection where something is missing. A scalar's value must appear in the message or hint.
  let checked = 0;
  const silent: string[] = [];
  for (const file of listSpecFiles(opsDir)) {
    const text = readFileSync(file, 'utf8');
    const lc = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false });
    const scalars = new Map<number, string>();
    visit(doc, {
      Scalar(_, node) {
        if (node.range) scalars.set(node.range[0], String(node.value));
      },
    });
    for (const d of diags.filter((x) => x.file === file || path.resolve(x.file) === file)) {
      if (d.path.startsWith('(')) continue; // the file or the document as a whole
      const found = scalars.get(lc.lineStarts[d.line - 1]! + d.col - 1);
      if (found === undefined) continue; // a collection: something missing, not a value found
      checked++;
      const said = `${d.message} ${d.hint ?? ''}`;
      if (!said.includes(found) && !said.includes(JSON.stringify(found)))
        silent.push(`${formatDiagnostic(d)}\n  does not name the value it points at: ${JSON.stringify(found)}`);
    }
  }
  assert.equal(silent, []);
  assert.ok(checked >= 35, `${checked} located errors checked`);
});

test('good seed ops validate', () => {
  const project = loadProject({ opsDir: path.join(fixtures, '..', '..', 'ops') });
  assert.equal(
    project.ops.map((o) => o.name),
    [
      'CustomRelu',
      'CustomReluGrad',
      'DynamicTRTResize',
      'DynamicTRTResizeGrad',
      'KNNQuery',
      'LeakyRelu',
      'LeakyReluGrad',
      'MyAdd',
      'MyAddGrad',
    ],
  );
  const op = (n: string) => project.ops.find((o) => o.name === n)!;
  // The backward resolved to indices: CustomReluGrad(grad_y = grad(y), x = x), alpha by name, grad_x -> x.
  assert.equal(op('CustomRelu').backward, [
    {
      op: 'CustomReluGrad',
      ident: op('CustomReluGrad').ident,
      inputs: [
        { kind: 'grad', index: 0 },
        { kind: 'input', index: 0 },
      ],
      attributes: ['alpha'],
      outputs: [0],
    },
  ]);
  assert.equal(op('MyAdd').backward![0]!.outputs, [0, 1]);
  // KNNQuery: declared non-differentiable (float points marked, int offsets and idx never).
  assert.equal(
    op('KNNQuery').inputs.map((i) => i.differentiable),
    [false, false, false, false],
  );
  assert.equal(
    op('KNNQuery').outputs.map((o) => o.differentiable),
    [false, false],
  );
  assert.is(op('KNNQuery').backward, undefined);
  // DynamicTRTResize: its shape_only size tensor is not differentiable, so only input gets a gradient.
  assert.equal(op('DynamicTRTResize').backward![0]!.outputs, [0]);
  assert.equal(
    op('DynamicTRTResize').inputs.map((i) => i.differentiable),
    [true, false],
  );
});

// ---- calls with commas inside [flow, lists] ----

/** Writes a one-spec project under build/ and loads it: the op, or the diagnostics. */
function loadOne(
  dir: string,
  yaml: string,
): { op?: ReturnType<typeof loadProject>['ops'][number]; diags: Diagnostic[] } {
  const ops = path.join(root, 'build', 'validator', dir, 'ops');
  rmSync(ops, { recursive: true, force: true });
  mkdirSync(ops, { recursive: true });
  writeFileSync(path.join(ops, 'k.cpp'), '// kernel\n');
  writeFileSync(path.join(ops, 'spec.yaml'), yaml);
  try {
    return { op: loadProject({ opsDir: ops }).ops[0]!, diags: [] };
  } catch (e) {
    if (e instanceof SpecErrors) return { diags: e.diagnostics };
    throw e;
  }
}

const CALLS = `# A note (with an unbalanced paren, and one balanced: (a, b)) in a comment
name: Calls
version: 1
description: "f(a, b): keeps [this] {as} # written"
inputs:
  - { name: x, dtype: float32, rank: 4 }
  - { name: y, dtype: float32, rank: 2, shape: [max(x[0], 2), min(x[1], max(x[2], 3))] }
outputs:
  - { name: z, dtype: float32, shape: [x[0], x[1], ceil_div(x[2], 2), ceil_div(x[3], k)] }
  - name: w
    dtype: float32
    shape: [max(x[0], min(x[1], 3)), 'max(x[2], 1)', ceil_div(x[3] * 2, 3) + (1 + k)]
  - name: v
    dtype: float32
    shape:
      - max(x[0], 2)
      - min(x[1], k)
attributes:
  - { name: k, type: int, default: 2, enum: [2, 3] }
workspace: max(x[0], 1) * min(k, 4)
kernels: { cpu: k.cpp }
`;

test('calls with commas in [flow, lists] are one expression (outputs, input constraints, workspace); strings keep their text', () => {
  const { op, diags } = loadOne('calls', CALLS);
  assert.ok(op, diags.map((d) => formatDiagnostic(d)).join('\n'));
  const dims = [
    [5, 7, 9, 11],
    [5, 7],
  ];
  const ev = (e: Expr): number => evalExpr(e, dims, { k: 2 });
  const shapes = op!.outputs.map((o) => (o.shape.kind === 'dims' ? o.shape.dims.map(ev) : []));
  assert.equal(shapes, [
    [5, 7, 5, 6],
    [5, 9, 11],
    [5, 2],
  ]);
  assert.equal(
    op!.outputs.map((o) => (o.shape.kind === 'dims' ? o.shape.source : [])),
    [
      ['x[0]', 'x[1]', 'ceil_div(x[2], 2)', 'ceil_div(x[3], k)'],
      ['max(x[0], min(x[1], 3))', 'max(x[2], 1)', 'ceil_div(x[3] * 2, 3) + (1 + k)'],
      ['max(x[0], 2)', 'min(x[1], k)'],
    ],
  );
  const y = op!.inputs[1]!.constraint;
  assert.equal(y.kind === 'dims' ? y.dims.map((d) => (d.kind === 'expr' ? ev(d.expr) : -1)) : [], [5, 7]);
  assert.is(ev(op!.workspace), 10);
  assert.is(op!.description, 'f(a, b): keeps [this] {as} # written');
  assert.equal(op!.attributes[0]!.enum, [2, 3]);
});

test('errors after and inside such calls keep their exact line:col', () => {
  const lines = [
    'name: Calls',
    'version: 1',
    'inputs:',
    '  - { name: x, dtype: float32, rank: 4 }',
    '  - { name: y, dtype: float32, rank: 2, shape: [max(x[0], 2), min(x[1], q)] }',
    'outputs:',
    '  - { name: z, dtype: float32, shape: [ceil_div(x[2], 2), max(x[0], min(k, 3)), x[0] $ 2], description: (a, b) }',
    '  - { name: w, dtype: float99, shape: [min(x[0], 2)] }',
    'attributes:',
    '  - { name: k, type: int, default: 2 }',
    'kernels: { cpu: k.cpp }',
  ];
  const { op, diags } = loadOne('calls-bad', `${lines.join('\n')}\n`);
  assert.not.ok(op);
  const at = (line: number, needle: string, skip = 0): string =>
    `${line}:${lines[line - 1]!.indexOf(needle) + 1 + skip}`;
  const got = diags.map((d) => `${d.line}:${d.col} ${d.path}`).sort();
  const want = [
    `${at(5, 'q)')} inputs[1].shape[1]`,
    `${at(7, '$')} outputs[0].shape[2]`,
    `${at(8, 'float99')} outputs[1].dtype`,
  ].sort();
  assert.equal(got, want, diags.map((d) => formatDiagnostic(d)).join('\n'));
  assert.ok(
    diags.find((d) => d.path === 'inputs[1].shape[1]')!.message.includes('`q` is not an attribute in `min(x[1], q)`'),
  );
  assert.ok(
    diags.find((d) => d.path === 'outputs[0].shape[2]')!.message.includes('unexpected character "$" in `x[0] $ 2`'),
  );
});

test.run();
