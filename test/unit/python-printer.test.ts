// The Python printer (generator/emit/lang/python.ts): literals, calls and their multi-line layout,
// def signatures, docstrings, isort's import sections; and, through a real python3, that what it
// prints parses and evaluates to the values it was given.

import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  pyCall,
  pyCode,
  pyDef,
  pyDict,
  pyFloat,
  pyImports,
  pyList,
  pyLit,
  pyModule,
  pyParams,
  pyTuple,
} from '../../generator/emit/lang/python.js';

test('JS values print as Python literals: tuples (one item with its comma), dicts, None, True, floats', () => {
  assert.is(pyLit(['a', 1, true, null, undefined]), "('a', 1, True, None, None)");
  assert.is(pyLit(['x']), "('x',)");
  assert.is(pyLit([]), '()');
  assert.is(pyLit({ T: 'float32', n: [2, 3] }), "{'T': 'float32', 'n': (2, 3)}");
  assert.is(pyLit(pyList([pyFloat(1), pyFloat(0.5)])), '[1.0, 0.5]');
  assert.is(pyLit("it's \\ \u00e9\n"), "'it\\'s \\\\ \\xe9\\x0a'");
  assert.throws(() => pyLit([Number.NaN]), /no Python literal for NaN/);
  assert.throws(() => pyFloat(Number.POSITIVE_INFINITY), /no Python literal for Infinity/);
});

test('multi-line layout: one item a line at indent + 4, comments after the comma, the closer at indent', () => {
  const call = pyCall(
    '_rt.OpInfo',
    [],
    {
      name: 'Op',
      inputs: pyTuple([pyCall('_rt.Input', ['x', ['float32']])], { multiline: true }),
      none: pyTuple([], { multiline: true }),
    },
    { multiline: true },
  );
  assert.is(
    pyLit(call),
    "_rt.OpInfo(\n    name='Op',\n    inputs=(\n        _rt.Input('x', ('float32',)),\n    ),\n    none=(),\n)",
  );
  assert.is(
    pyLit(pyList([pyCode('a'), pyCode('b')], { multiline: true, comments: ['first', undefined] })),
    '[\n    a,  # first\n    b,\n]',
  );
  assert.is(pyLit(pyDict([[pyCode('k'), 1]])), '{k: 1}');
});

test('def: typed keyword-only parameters, defaults spaced per PEP 8, docstring closing on its own line', () => {
  assert.is(
    pyParams(
      [
        { name: 'x', type: 'torch.Tensor' },
        { name: 'y', default: null },
      ],
      [{ name: 'alpha', type: 'float', default: pyFloat(0) }],
    ),
    'x: torch.Tensor, y=None, *, alpha: float = 0.0',
  );
  assert.is(pyParams([{ name: 'x' }]), 'x');
  assert.is(
    pyDef({
      name: 'f',
      params: 'x',
      returns: 'int',
      doc: ['Doc.', '', 'Args:', '    x: int.', ''],
      body: ['if x:\n    return 1', 'return 0'],
    }),
    'def f(x) -> int:\n    """Doc.\n\n    Args:\n        x: int.\n    """\n    if x:\n        return 1\n    return 0',
  );
  assert.is(
    pyDef({ name: 'g', params: '', doc: ['One line.'], body: ['pass'] }),
    'def g():\n    """One line."""\n    pass',
  );
});

test('imports: future, stdlib, third party, local, a blank line between; modules and names sorted', () => {
  assert.is(
    pyImports([
      { module: '.ops.b', names: ['b'] },
      { module: 'torch' },
      { module: '.', names: ['_runtime'] },
      { module: 'typing', names: ['Tuple', 'Optional'], comment: 'noqa: F401' },
      { module: '__future__', names: ['annotations'] },
      { module: '._runtime', names: ['load', 'NAMESPACE'] },
    ]),
    [
      'from __future__ import annotations',
      '',
      'from typing import Optional, Tuple  # noqa: F401',
      '',
      'import torch',
      '',
      'from . import _runtime',
      'from ._runtime import NAMESPACE, load',
      'from .ops.b import b',
    ].join('\n'),
  );
});

test('a printed module parses, and its values are the ones given (python3)', () => {
  const tricky = ['quote \' and "', 'back\\slash', 'tab\tnewline\n', 'ünï', '\u{1F600}', ''];
  const src = pyModule({
    doc: ['Test module.', ''],
    imports: [{ module: 'json' }],
    blocks: [
      `VALUES = ${pyLit(pyCall('dict', [], { strings: tricky, nested: { a: [1, [2]], b: null }, flag: false }, { multiline: true }))}`,
      `__all__ = ${pyLit(pyList(['A', 'VALUES'], { multiline: true }))}`,
      'A = 1\nprint(json.dumps(VALUES))',
    ],
  });
  const r = spawnSync('python3', ['-c', src], { encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout), { strings: tricky, nested: { a: [1, [2]], b: null }, flag: false });
  assert.ok(src.endsWith(')\n') && src.includes("__all__ = [\n    'A',\n    'VALUES',\n]"), src);
});

test.run();
