// The PyTorch (C++) emitter: the TORCH_LIBRARY schema (argument types, defaults as the schema
// spells them, the optional input as Tensor?), the C++ signature's types, and the CPU/CUDA registrations.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { torchEmitter } from '../../generator/emit/torch/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, opText } from './helpers/emitted.js';
import { decodeCpp, decodePython } from './helpers/string-literals.js';

const { project } = fixtureProject();
const files = emitChecked(torchEmitter, project, [/^torch\//]);
const op = opText(files, 'ScaleShift');

/** The schema string m.def() registers, read back from its C++ literal. */
function schema(text: string, name: string): string {
  const m = new RegExp(`def\\(\\s*("${name}\\((?:[^"\\\\\\n]|\\\\.)*")`).exec(text);
  assert.ok(m, `no m.def of ${name}`);
  return decodeCpp(m[1]!);
}

test('schema: inputs, keyword-only attributes with their schema types and defaults, two outputs', () => {
  const s = schema(op, 'scale_shift');
  assertFacts(
    s,
    [
      loose('scale_shift(Tensor x, Tensor idx, Tensor? bias, *,'),
      loose('float alpha=2.5,'),
      loose('int repeats=3,'),
      loose('bool enabled=True,'),
      loose('str mode="nearest",'),
      loose('int level=2,'),
      loose('int[] sizes=[4, -5, 6],'),
      loose('float[] weights=[0.5, -1.25],'),
      loose('float gain)'),
      loose('-> (Tensor, Tensor)'),
    ],
    'schema',
  );
  const label = /str label=("(?:[^"\\]|\\.)*")/.exec(s);
  assert.ok(label, 'label default');
  assert.is(decodePython(label[1]!), HOSTILE);
  assert.is(schema(file(files, 'torch/plain_copy.cpp'), 'plain_copy'), 'plain_copy(Tensor src) -> Tensor');
});

test('the C++ function takes each attribute as the dispatcher passes it', () => {
  assertFacts(
    op,
    [
      loose('const c10::optional<at::Tensor>& bias'),
      loose('double alpha'),
      loose('int64_t repeats'),
      loose('bool enabled'),
      loose('c10::string_view mode'),
      loose('at::IntArrayRef sizes'),
      loose('at::ArrayRef<double> weights'),
      loose('double gain'),
    ],
    'scale_shift.cpp',
  );
  // Each parameter is stored into the op core's member of the same name; assignAttr (op_base.h)
  // converts by the member's type (float from double, std::vector<float> from ArrayRef<double>, ...).
  const assigned = [...op.matchAll(/assignAttr\(\s*attrs\.(\w+)\s*,\s*(\w+)\s*\)/g)].map((m) => [m[1], m[2]]);
  const names = ['alpha', 'repeats', 'enabled', 'mode', 'level', 'sizes', 'weights', 'label', 'gain'];
  assert.equal(
    assigned,
    names.map((n) => [n, n]),
  );
  const base = file(files, 'torch/include/opforge/torch/op_base.h');
  assertFacts(
    base,
    [
      /assignAttr\(\s*float&\s*field\s*,\s*double\s+v\s*\)\s*\{\s*field\s*=\s*static_cast<float>\(v\)/,
      /assignAttr\(\s*int64_t&\s*field\s*,\s*int64_t\s+v\s*\)/,
      /assignAttr\(\s*std::vector<int64_t>&\s*field\s*,\s*at::IntArrayRef\s+v\s*\)/,
      /assignAttr\(\s*std::vector<float>&\s*field\s*,\s*at::ArrayRef<double>\s+v\s*\)/,
    ],
    'op_base.h',
  );
});

test('CPU and CUDA kernels registered; an op without kernels.cuda says so on CUDA', () => {
  assert.match(op, /TORCH_LIBRARY_IMPL\(\s*opforge\s*,\s*CPU\s*,/);
  assert.match(op, /TORCH_LIBRARY_IMPL\(\s*opforge\s*,\s*CUDA\s*,/);
  // Without kernels.cuda the CUDA key gets a clear error instead of the dispatcher's.
  assert.match(file(files, 'torch/plain_copy.cpp'), /PlainCopy has no kernels\.cuda/);
  assert.not.match(op, /has no kernels\.cuda/);
});

test.run();
