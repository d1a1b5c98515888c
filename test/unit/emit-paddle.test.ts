// The Paddle emitter: PD_BUILD_OP's inputs (the optional one), outputs and attribute types as Paddle
// spells them (32-bit integers), and the conversion to the op core's attributes; the opforge_paddle
// package: its files, and (through a real python3 without Paddle) each checked function's
// parameters and defaults in the spec's order and the checks that need no tensor.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paddleEmitter } from '../../generator/emit/paddle/index.js';
import { loadProject } from '../../generator/model/project.js';
import { BROAD_SEEDS, writeCorpus } from '../specspace/corpus.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, near, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(paddleEmitter, project, [/^paddle\//, /^cmake\/opforge_paddle\.cmake$/]);
const op = opText(files, 'ScaleShift');

test('Backward names only the parameters it reads (the rest commented out: -Wunused-parameter), over the spec-space corpus', () => {
  const corpus = writeCorpus(mkdtempSync(path.join(os.tmpdir(), 'opforge-paddle-corpus-')), BROAD_SEEDS);
  const out = paddleEmitter.emit(loadProject({ opsDir: corpus.opsDir }));
  let checked = 0;
  for (const f of out.filter((x) => x.path.endsWith('_op.cc'))) {
    const m = /std::vector<paddle::Tensor> Backward\(([^)]*)\) \{\n([\s\S]*?)\n\}/.exec(f.content);
    if (!m) continue;
    for (const p of m[1]!.split(', ')) {
      const name = /(\w+)$/.exec(p)?.[1];
      if (name && !p.endsWith('*/')) assert.ok(new RegExp(`\\b${name}\\b`).test(m[2]!), `${f.path}: ${name} is unused`);
      checked++;
    }
  }
  assert.ok(checked > 20, `${checked} parameters`);
});

test('PD_BUILD_OP: op type, inputs, outputs and attribute types', () => {
  assertFacts(
    op,
    [
      loose('PD_BUILD_OP(scale_shift)'),
      loose('.Inputs({"x", "idx", paddle::Optional("bias")})'),
      loose('.Outputs({"y", "count"})'),
      loose(
        '.Attrs({"alpha: float", "repeats: int", "enabled: bool", "mode: std::string", "level: int", "sizes: std::vector<int>", "weights: std::vector<float>", "label: std::string", "gain: float"})',
      ),
      near('kPaddleType', '"scale_shift"'),
    ],
    'scale_shift_op.cc',
  );
  assert.match(file(files, 'paddle/plain_copy/plain_copy_op.cc'), /\.Inputs\(\s*\{\s*"src"\s*\}\s*\)/);
});

test("attributes widen to the op core's types", () => {
  assertFacts(
    op,
    [
      /opforge_attrs\.repeats\s*=\s*static_cast<int64_t>\(\s*repeats\s*\)/,
      /opforge_attrs\.sizes\s*=\s*[^;]*widen\(\s*sizes\s*\)/,
      /opforge_attrs\.alpha\s*=\s*alpha\s*;/,
      loose('float alpha, int repeats, bool enabled, const std::string& mode'),
    ],
    'makeAttrs',
  );
});

test('CMake: each op, CUDA only where kernels.cuda exists', () => {
  const cmake = file(files, 'paddle/CMakeLists.txt');
  assert.match(cmake, /opforge_paddle_add_op\(\s*scale_shift\s+CUDA\s*\)/);
  assert.match(cmake, /opforge_paddle_add_op\(\s*plain_copy\s*\)/);
});

test('the opforge_paddle package: load/wrap, the runtime, the shared checks and one module per op', () => {
  const pkg = files.filter((f) => f.path.startsWith('paddle/opforge_paddle')).map((f) => f.path);
  assert.equal(pkg.sort(), [
    'paddle/opforge_paddle/__init__.py',
    'paddle/opforge_paddle/_attrs.py',
    'paddle/opforge_paddle/_dims.py',
    'paddle/opforge_paddle/_runtime.py',
    'paddle/opforge_paddle/ops/__init__.py',
    ...project.ops.map((o) => `paddle/opforge_paddle/ops/${o.ident.snake}.py`).sort(),
  ]);
  assert.not.ok(files.some((f) => f.path === 'paddle/opforge_paddle.py'));
});

test("each checked function: inputs then attributes, the spec's defaults, positional or by keyword; a missing required attribute named", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-pdpkg-'));
  for (const f of files.filter((x) => x.path.startsWith('paddle/opforge_paddle/'))) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    writeFileSync(path.join(dir, f.path), f.content);
  }
  // No Paddle here: the checks that run before a tensor is looked at (attributes, arity).
  const script = `
import inspect, json, sys
sys.path.insert(0, sys.argv[1])
import opforge_paddle
f = opforge_paddle._BINDERS["ScaleShift"](lambda *a: a)
params = [[p.name, repr(p.default) if p.default is not inspect.Parameter.empty else None, p.kind.name] for p in inspect.signature(f).parameters.values()]
errors = []
for call in (lambda: f(1, 2), lambda: f(1, 2, None, 2.5, 3, True, "linear", 1, [1], [0.5], "l", 1.0, 9), lambda: f(1, 2, mode="cubic", gain=1.0)):
    try:
        call()
    except Exception as e:
        errors.append(type(e).__name__ + ": " + str(e))
print(json.dumps({"params": params, "label": inspect.signature(f).parameters["label"].default, "errors": errors,
                  "ops": sorted(opforge_paddle.OPS), "types": [o.type for o in opforge_paddle.OPS.values()]}))
`;
  const r = spawnSync('python3', ['-c', script, path.join(dir, 'paddle')], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const got = JSON.parse(r.stdout) as {
    params: [string, string | null, string][];
    label: string;
    errors: string[];
    ops: string[];
    types: string[];
  };
  assert.equal(got.params, [
    ['x', null, 'POSITIONAL_OR_KEYWORD'],
    ['idx', null, 'POSITIONAL_OR_KEYWORD'],
    ['bias', 'None', 'POSITIONAL_OR_KEYWORD'],
    ['alpha', '2.5', 'POSITIONAL_OR_KEYWORD'],
    ['repeats', '3', 'POSITIONAL_OR_KEYWORD'],
    ['enabled', 'True', 'POSITIONAL_OR_KEYWORD'],
    ['mode', "'nearest'", 'POSITIONAL_OR_KEYWORD'],
    ['level', '2', 'POSITIONAL_OR_KEYWORD'],
    ['sizes', '(4, -5, 6)', 'POSITIONAL_OR_KEYWORD'],
    ['weights', '(0.5, -1.25)', 'POSITIONAL_OR_KEYWORD'],
    ['label', got.params[10]![1], 'POSITIONAL_OR_KEYWORD'],
    // Required after defaulted ones: a MISSING default the checks report as required.
    ['gain', 'MISSING', 'POSITIONAL_OR_KEYWORD'],
  ]);
  assert.is(got.label, HOSTILE);
  assert.equal(got.errors, [
    "TypeError: ScaleShift: attribute 'gain' is required",
    'TypeError: scale_shift() takes from 2 to 12 positional arguments but 13 were given',
    "ValueError: ScaleShift: attribute 'mode' must be one of ['linear', 'nearest'], got 'cubic'",
  ]);
  assert.equal(got.ops, project.ops.map((o) => o.name).sort());
  assert.ok(got.types.includes('scale_shift'));
});

test.run();
