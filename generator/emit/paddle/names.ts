// Paths and names of the Paddle backend's files, shared by its modules.

import type { OpIR, ProjectNames } from '../../model/ir.js';
import { DEFAULT_NAMES } from '../../model/project-names.js';

/** Where the Paddle files of an op live under out/. */
/** (`names` places the module: the C++ files' paths are the same in every project.) */
export function paddlePaths(
  op: OpIR,
  names: ProjectNames = DEFAULT_NAMES,
): {
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
    module: `paddle/${names.paddlePackage}/ops/${s}.py`,
  };
}

/** Namespace of an op's framework-free Paddle glue. */
export function paddleNamespace(op: OpIR): string {
  return `::opforge::paddle_ops::${op.ident.snake}`;
}

/** The Paddle library's CMake target and module name: opforge_paddle_ops, or <prefix>_paddle_ops. */
export function paddleLibrary(names: ProjectNames): string {
  return `${names.libraryPrefix}_paddle_ops`;
}
