// The PyTorch Python emitter (opforge_ops): each op's Python function (annotations and defaults as
// Python spells them, the optional input), its spec table (dtypes, ranks, attributes with their
// defaults, enums, ranges) and the package's exports.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { HOSTILE, fixtureProject } from './helpers/fixture-specs.js';
import { assertFacts, emitChecked, file, loose, opText } from './helpers/emitted.js';
import { decodePython, literalAfter } from './helpers/string-literals.js';

const { project } = fixtureProject();
const files = emitChecked(pythonEmitter, project, [/^python\//]);
const op = opText(files, 'ScaleShift');

test('the function: inputs, keyword-only attributes with Python annotations and defaults', () => {
  assertFacts(
    op,
    [
      loose('def scale_shift(x: torch.Tensor, idx: torch.Tensor, bias: Optional[torch.Tensor] = None, *,'),
      loose('alpha: float = 2.5,'),
      loose('repeats: int = 3,'),
      loose('enabled: bool = True,'),
      loose("mode: str = 'nearest',"),
      loose('level: int = 2,'),
      loose('sizes: Sequence[int] = (4, -5, 6),'),
      loose('weights: Sequence[float] = (0.5, -1.25),'),
      loose('gain: float)'),
      loose('-> Tuple[torch.Tensor, torch.Tensor]:'),
    ],
    'ops/scale_shift.py',
  );
  const def = /def scale_shift\([^\n]*/.exec(op)![0];
  assert.is(decodePython(literalAfter(def, 'label', "'")), HOSTILE);
});

test('the spec table: ports with dtypes, type variables, ranks and optional flags', () => {
  assertFacts(
    op,
    [
      loose("name='ScaleShift'"),
      loose("domain='unit.test'"),
      loose('version=3'),
      loose("_rt.Input('x', ('float32', 'float16', 'float64'), 'T', 2, False,"),
      loose("_rt.Input('idx', ('int32', 'int64'), 'I', 1, False,"),
      loose("_rt.Input('bias', ('float32', 'float16', 'float64'), 'T', None, True,"),
      loose("_rt.Output('count', ('int64',), None,"),
      loose("('I', ('int32', 'int64'))"),
    ],
    'spec table',
  );
});

test('the spec table: attributes with type, required, default, enum and min', () => {
  assertFacts(
    op,
    [
      loose("_rt.Attr('alpha', 'float', False, 2.5,"),
      loose("_rt.Attr('repeats', 'int', False, 3, None, 1,"),
      loose("_rt.Attr('enabled', 'bool', False, True,"),
      loose("_rt.Attr('mode', 'string', False, 'nearest', ('linear', 'nearest'),"),
      loose("_rt.Attr('level', 'int', False, 2, (0, 1, 2),"),
      loose("_rt.Attr('sizes', 'ints', False, [4, -5, 6],"),
      loose("_rt.Attr('weights', 'floats', False, [0.5, -1.25],"),
      loose("_rt.Attr('gain', 'float', True, None,"),
    ],
    'attributes',
  );
  const row = /_rt\.Attr\('label'[^\n]*/.exec(op)![0];
  assert.is(decodePython(literalAfter(row, "'string'\\s*,\\s*False", "'")), HOSTILE);
  assert.ok(/^[\x00-\x7f]*$/.test(op), 'ASCII');
});

test('shape function and the package exports', () => {
  assert.match(op, /attrs\[\s*['"]repeats['"]\s*\]/);
  const init = file(files, 'python/opforge_ops/__init__.py');
  assert.match(init, /from \.ops\.scale_shift import scale_shift\b/);
  assert.match(init, /from \.ops\.plain_copy import plain_copy\b/);
});

test.run();
