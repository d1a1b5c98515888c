// Paths and names of the Paddle backend's files, shared by its modules.

import type { OpIR } from '../../model/ir.js';

/** Where the Paddle files of an op live under out/. */
export function paddlePaths(op: OpIR): {
  dir: string;
  header: string;
  include: string;
  op: string;
  example: string;
  readme: string;
  module: string;
} {
  const s = op.ident.snake;
  return {
    dir: `paddle/${s}`,
    header: `paddle/${s}/${s}_paddle.h`,
    include: `${s}/${s}_paddle.h`,
    op: `paddle/${s}/${s}_op.cc`,
    example: `paddle/${s}/custom_op_test.cc`,
    readme: `paddle/${s}/README.md`,
    module: `paddle/opforge_paddle/ops/${s}.py`,
  };
}

/** Namespace of an op's framework-free Paddle glue. */
export function paddleNamespace(op: OpIR): string {
  return `::opforge::paddle_ops::${op.ident.snake}`;
}
