// The JAX emitter: the XLA FFI handlers (each attribute decoded as jax.ffi encodes it), the Python
// function (annotations, defaults), its spec table with shapes as data, and the package exports.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jaxEmitter } from '../../generator/emit/jax/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose } from './helpers/emitted.js';
import { decodePython, literalAfter } from './helpers/string-literals.js';

const { project } = fixtureProject();
const files = emitChecked(jaxEmitter, project, [/^jax\//, /^cmake\/opforge_jax\.cmake$/]);
const cc = file(files, 'jax/scale_shift/scale_shift_jax.cc');
const py = file(files, 'jax/opforge_jax/ops/scale_shift.py');

test('FFI handler: each attribute bound with the type XLA delivers it as, in order', () => {
  const binds = [...cc.split('XLA_FFI_DEFINE_HANDLER_SYMBOL')[1]!.matchAll(/\.Attr<(.+?)>\("([\w.]+)"\)/g)].map(
    (m) => `${m[2]}: ${m[1]!.replace(/\s+/g, '')}`,
  );
  assert.equal(binds, [
    'alpha: double',
    'repeats: int64_t',
    'enabled: bool',
    'mode: std::string_view',
    'level: int64_t',
    'sizes: ::xla::ffi::Span<constint64_t>',
    'weights: ::xla::ffi::Span<constdouble>',
    'label: std::string_view',
    'gain: double',
    'opforge.present: int64_t',
  ]);
  assert.match(cc, /opforge_jax_scale_shift_cpu/);
  assert.match(cc, /opforge_jax_scale_shift_cuda/);
});

test('Python function: annotations and defaults; the custom-call target', () => {
  assertFacts(
    py,
    [
      loose('def scale_shift(x: jax.Array, idx: jax.Array, bias: Optional[jax.Array] = None, *,'),
      loose('alpha: float = 2.5,'),
      loose('repeats: int = 3,'),
      loose('enabled: bool = True,'),
      loose("mode: str = 'nearest',"),
      loose('level: int = 2,'),
      loose('sizes: Sequence[int] = (4, -5, 6),'),
      loose('weights: Sequence[float] = (0.5, -1.25),'),
      loose('gain: float)'),
      loose("target='opforge.unit.test.ScaleShift'"),
      loose("_rt.Attr('alpha', 'float', False, 2.5,"),
      loose("_rt.Attr('level', 'int', False, 2, (0, 1, 2),"),
      loose("_rt.Attr('gain', 'float', True, None,"),
      loose("_rt.Input('idx', ('int32', 'int64'), 'I', 1, False,"),
    ],
    'opforge_jax/ops/scale_shift.py',
  );
  const def = /def scale_shift\([^\n]*/.exec(py)![0];
  assert.is(decodePython(literalAfter(def, 'label', "'")), HOSTILE);
});

test('result shapes and input constraints as the data _dims.py evaluates (python-dims.test.ts checks its values)', () => {
  assert.match(py, "shape=(('dim', 0, 0), ('+', ('*', ('dim', 0, 1), ('attr', 'repeats')), 1))");
  assert.match(py, "shape=(('ceil_div', ('dim', 0, 1), 2),)");
  assert.match(
    py,
    "_rt.Input('idx', ('int32', 'int64'), 'I', 1, False, False, shape=(('dim', 0, 0),), shape_source=('x[0]',))",
  );
  assert.match(file(files, 'jax/opforge_jax/__init__.py'), /from \.ops\.scale_shift import scale_shift\b/);
});

test.run();
