// A spec's `backward` through the model and the emitters that train: the resolved gradient (which
// gradient-op input is fed the output's gradient or a forward input, which attribute passes on,
// which output is which input's gradient), then PyTorch's Autograd kernel, the Python and JAX
// gradient tables and Paddle's grad op, each wired as the spec says; an op without a backward
// raises its named error.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jaxEmitter } from '../../generator/emit/jax/index.js';
import { paddleEmitter } from '../../generator/emit/paddle/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { torchEmitter } from '../../generator/emit/torch/index.js';
import { fixtureProject, gradientProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose } from './helpers/emitted.js';

const { project, blend, grad } = gradientProject();

test('the model resolves the backward by position', () => {
  assert.equal(blend.backward, [
    {
      op: 'BlendGrad',
      ident: { raw: 'BlendGrad', snake: 'blend_grad', camel: 'blendGrad', pascal: 'BlendGrad' },
      inputs: [
        { kind: 'grad', index: 0 },
        { kind: 'input', index: 0 },
        { kind: 'input', index: 1 },
      ],
      attributes: ['w'],
      outputs: [0, 1],
    },
  ]);
  assert.is(grad.backward, undefined);
  assert.equal(
    blend.inputs.map((i) => i.differentiable),
    [true, true],
  );
});

test('PyTorch: the Autograd kernel saves the inputs and calls the gradient op with them', () => {
  const cpp = file(emitChecked(torchEmitter, project, [/^torch\//]), 'torch/blend.cpp');
  assertFacts(
    cpp,
    [
      loose('ctx->save_for_backward({a, b})'),
      loose('ctx->saved_data["w"] = w'),
      /callGradient\(\s*"opforge::blend_grad"\s*,\s*\{\s*grads\[0\]\s*,[^;]*saved\[0\][^;]*saved\[1\][^;]*saved_data\["w"\]/,
      /TORCH_LIBRARY_IMPL\(\s*opforge\s*,\s*Autograd\s*,/,
    ],
    'torch/blend.cpp',
  );
});

test('PyTorch without a backward: asking for a gradient raises the named error', () => {
  const { project: other } = fixtureProject();
  const cpp = file(emitChecked(torchEmitter, other, [/^torch\//]), 'torch/scale_shift.cpp');
  assert.match(cpp, /declares no `backward`/);
});

test('Python and JAX: the gradient table of the op', () => {
  const row = loose(
    "_rt.Gradient('blend_grad', inputs=(('grad', 0), ('input', 0), ('input', 1)), attributes=('w',), outputs=(0, 1))",
  );
  assertFacts(
    file(emitChecked(pythonEmitter, project, [/^python\//]), 'python/opforge_ops/ops/blend.py'),
    [row],
    'opforge_ops',
  );
  assertFacts(
    file(emitChecked(jaxEmitter, project, [/^jax\//, /^cmake\/opforge_jax\.cmake$/]), 'jax/opforge_jax/ops/blend.py'),
    [row],
    'opforge_jax',
  );
});

test("Paddle: a grad op whose kernel runs the gradient op's core on the output's gradient and the inputs", () => {
  const cc = file(
    emitChecked(paddleEmitter, project, [/^paddle\//, /^cmake\/opforge_paddle\.cmake$/]),
    'paddle/blend/blend_op.cc',
  );
  assertFacts(
    cc,
    [
      loose('PD_BUILD_GRAD_OP(blend)'),
      loose('.Inputs({"a", "b", paddle::Grad("y")})'),
      loose('.Outputs({paddle::Grad("a"), paddle::Grad("b")})'),
      /compute<::opforge::paddle_ops::blend_grad::PaddleOp>\(\s*::opforge::paddle_ops::blend_grad::makeAttrs\(\s*w\s*\)\s*,\s*\{\s*&y_grad\s*,\s*&a\s*,\s*&b\s*\}\s*\)/,
      /grads\[0\]\s*=\s*g0\[0\]/,
      /grads\[1\]\s*=\s*g0\[1\]/,
    ],
    'paddle/blend/blend_op.cc',
  );
});

test.run();
