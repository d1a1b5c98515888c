// The Paddle emitter: PD_BUILD_OP's inputs (the optional one), outputs and attribute types as Paddle
// spells them (32-bit integers), and the conversion to the op core's attributes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { paddleEmitter } from '../../generator/emit/paddle/index.js';
import { fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, near, opText } from './helpers/emitted.js';

const { project } = fixtureProject();
const files = emitChecked(paddleEmitter, project, [/^paddle\//, /^cmake\/opforge_paddle\.cmake$/]);
const op = opText(files, 'ScaleShift');

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

test.run();
