// Paths and names of the JAX backend's files and symbols, shared by its modules and the test harness.

import type { OpIR, ProjectNames } from '../../model/ir.js';

/** Where the JAX files of an op live under out/ (its module in the project's package). */
export function jaxPaths(op: OpIR, names: ProjectNames): { handlers: string; module: string } {
  const s = op.ident.snake;
  return { handlers: `jax/${s}/${s}_jax.cc`, module: `jax/${names.jaxPackage}/ops/${s}.py` };
}

/** The JAX library's CMake target: opforge_jax_ops, or <prefix>_jax_ops (built as lib<target>.so). */
export function jaxLibraryTarget(names: ProjectNames): string {
  return `${names.libraryPrefix}_jax_ops`;
}

/** The environment variable that names the JAX library to load (OPFORGE_JAX_LIBRARY, or <PREFIX>_JAX_LIBRARY). */
export function jaxLibraryEnv(names: ProjectNames): string {
  return `${names.libraryPrefix.toUpperCase()}_JAX_LIBRARY`;
}

/** The exported handler symbols of an op in libopforge_jax_ops. */
export function jaxSymbols(op: OpIR): { cpu: string; cuda: string } {
  return { cpu: `opforge_jax_${op.ident.snake}_cpu`, cuda: `opforge_jax_${op.ident.snake}_cuda` };
}

/**
 * The custom-call target an op is registered as (jax.ffi.register_ffi_target) and exported
 * programs name: `opforge.<domain>.<Name>`, so two projects' ops of the same name stay apart.
 */
export function jaxTarget(op: OpIR): string {
  // The default domain ('') is written ai.onnx, which no custom domain can be (the spec model
  // stores that spelling as '').
  return `opforge.${op.domain || 'ai.onnx'}.${op.name}`;
}

/**
 * How jax.vmap batches the op's custom call (ffi_call's vmap_method). `sequential` (one call per
 * batch element, in a loop XLA compiles) is correct for every op. `expand_dims`/`broadcast_all`
 * (one call with the batch as a leading dim) would be correct only for an op whose kernel treats
 * a leading dim independently, which no fact of the spec states (a rank-polymorphic op whose
 * output is shaped like its input may still reduce over every element): every op gets
 * `sequential` until the spec can say so.
 */
export function jaxVmapMethod(_op: OpIR): 'sequential' | 'expand_dims' | 'broadcast_all' {
  return 'sequential';
}

/** The FFI attribute that says which inputs are present, for ops with optional inputs (a dotted name no spec attribute can take). */
export const PRESENT_ATTR = 'opforge.present';
