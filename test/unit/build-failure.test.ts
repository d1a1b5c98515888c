// Which op broke a shared build (runtime/testing/build-failure.ts), from the compiler's log: by the
// kernel file an error is in, written absolute or (ccache's base_dir) relative to the folder the
// compiler ran in, or by the kernel whose include chain leads to it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { OpIR } from '../../generator/model/ir.js';
import { findCulprits } from '../../runtime/testing/build-failure.js';

const root = '/home/u/proj';
const op = (snake: string): OpIR =>
  ({ name: snake, ident: { snake }, kernels: { cpu: `ops/kernels/${snake}.cpp` } }) as unknown as OpIR;
const ops = [op('relu'), op('my_relu'), op('add')];

test('an error in a kernel file named absolute names its op and line', () => {
  const c = findCulprits(`${root}/ops/kernels/add.cpp:12:5: error: expected ';'`, ops, root);
  assert.equal(
    c.map((x) => [x.op.name, x.where]),
    [['add', 'ops/kernels/add.cpp:12']],
  );
});

test('relative to the build folder (ccache base_dir): the kernel whose path ends so, not a namesake', () => {
  const log = [
    '../../../ops/kernels/relu.cpp:7:3: error: expected primary-expression',
    '../../ops/kernels/relu.cpp:8:1: error: expected ; before }',
  ].join('\n');
  const c = findCulprits(log, ops, root);
  assert.equal(
    c.map((x) => [x.op.name, x.where]),
    [['relu', 'ops/kernels/relu.cpp:7']],
  );
  assert.is(c[0]!.errors.length, 2);
});

test('an error in a header reached from a kernel: the kernel of the include chain', () => {
  const log = [
    'In file included from ../../ops/kernels/my_relu.cpp:3:',
    `${root}/out/include/opforge/ops/my_relu.h:40:2: error: boom`,
  ].join('\n');
  assert.equal(
    findCulprits(log, ops, root).map((x) => [x.op.name, x.where]),
    [['my_relu', 'ops/kernels/my_relu.cpp:3']],
  );
});

test.run();
