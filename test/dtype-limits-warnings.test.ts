// Spec dtypes a backend cannot carry (generator/model/dtype-limits.ts): the warnings `opforge check`
// and `gen` print (a Node process each). The limits and the type table's audit, in-process:
// test/unit/dtype-limits.test.ts. The run-time refusals are checked per
// backend: TensorRT by the lifecycle driver (test/trt.test.ts with TENSORRT_INCLUDE_DIR),
// PopART by its header compile (test/popart.test.ts with POPART_INCLUDE_DIR).

import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');
const run = (args: string[]) =>
  spawnSync(process.execPath, [cli, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  });
const dtypesOps = 'test/fixtures/dtypes/ops';
const warnings = (stderr: string): string[] => stderr.split('\n').filter((l) => l.startsWith('warning: '));

const EXPECTED = [
  'warning: test/fixtures/dtypes/ops/top_indices.yaml: TopIndices: TensorRT < 10 has no int64 (idx): the op is refused there',
  'warning: test/fixtures/dtypes/ops/top_indices.yaml: TopIndices: PopART has no int64 (idx): the op is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: TensorRT < 9 has no bfloat16 (x, y): binding bf16 is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: TensorRT has no float64 (x, y): binding f64 is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: TensorRT < 10 has no int64 (x, y): binding i64 is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: PopART has no bfloat16 (x, y): binding bf16 is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: PopART has no float64 (x, y): binding f64 is refused there',
  'warning: test/fixtures/dtypes/ops/typed_scale.yaml: TypedScale: PopART has no int64 (x, y): binding i64 is refused there',
];

test('check: one warning per op, backend and dtype (float64, int64, bfloat16), in a stable order', () => {
  const r = run(['check', '--ops', dtypesOps]);
  assert.is(r.status, 0, r.stderr);
  assert.equal(warnings(r.stderr), EXPECTED);
  assert.equal(warnings(run(['check', '--ops', dtypesOps]).stderr), EXPECTED, 'deterministic');
});

test('gen: the same warnings once each (not per generated file); --quiet silences them; --json carries them', () => {
  const out = path.join(mkdtempSync(path.join(os.tmpdir(), 'opforge-limits-')), 'out');
  const r = run(['gen', '--ops', dtypesOps, '--out', out]);
  assert.is(r.status, 0, r.stderr);
  assert.equal(warnings(r.stderr), EXPECTED);
  const q = run(['gen', '--ops', dtypesOps, '--out', `${out}-quiet`, '--quiet']);
  assert.is(q.status, 0, q.stderr);
  assert.is(q.stderr, '');
  const j = run(['check', '--ops', dtypesOps, '--json']);
  assert.is(j.stderr, '');
  assert.equal(JSON.parse(j.stdout).warnings, EXPECTED);
});

test('the seed ops warn only where they truly hit a limit (float64, for gradcheck: TensorRT, PopART)', () => {
  const r = run(['check']);
  assert.is(r.status, 0, r.stderr);
  // The float64 bindings (CustomRelu's, and those LeakyRelu, MyAdd, DynamicTRTResize and the gradient ops have for
  // gradcheck) are the only limits the seed ops hit.
  const f64 = [
    ['custom_relu', 'CustomRelu', 'x, y'],
    ['custom_relu_grad', 'CustomReluGrad', 'grad_y, x, grad_x'],
    ['dynamic_trt_resize', 'DynamicTRTResize', 'input, size_tensor, output'],
    ['dynamic_trt_resize_grad', 'DynamicTRTResizeGrad', 'grad_output, input, grad_input'],
    ['leaky_relu', 'LeakyRelu', 'input, output'],
    ['leaky_relu_grad', 'LeakyReluGrad', 'grad_output, input, grad_input'],
    ['my_add', 'MyAdd', 'a, b, c'],
    ['my_add_grad', 'MyAddGrad', 'grad_c, grad_a, grad_b'],
  ];
  assert.equal(
    warnings(r.stderr),
    f64.flatMap(([file, op, ports]) =>
      ['TensorRT', 'PopART'].map(
        (b) => `warning: ops/${file}.yaml: ${op}: ${b} has no float64 (${ports}): binding f64 is refused there`,
      ),
    ),
  );
});

test.run();
