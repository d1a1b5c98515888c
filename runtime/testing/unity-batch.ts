// How `opforge test` batches each build's op units (CMake's unity build) and when it precompiles
// the torch headers: fewer, larger units cost less CPU in all, and the build queue (run.ts) gives
// the cores one unit leaves to the other backends' builds.

/**
 * Op units per unity batch when `opforge test` builds the PyTorch extension, the Node addon and
 * the ONNX Runtime library of `ops` ops: at most eight ops a batch, spread evenly (twelve ops: two
 * of six). Most of a unit's time is what every unit compiles whatever its ops (the headers, and the
 * inline code of torch, the autograd Function machinery and the op base that the ops use): the
 * PyTorch extension without its precompiled header took 15.7 s for three ops and 18.2 s for six,
 * so six ops as one unit cost 18 s of CPU where two units of three cost 31 s, and a spec edit,
 * which recompiles its op's batch, waits 18 s instead of 16. The other cores meanwhile build the
 * other backends (run.ts's build queue).
 */
export function testUnityBatch(ops: number): number {
  const batches = Math.max(1, Math.ceil(ops / 8));
  return Math.max(1, Math.ceil(ops / batches));
}

/**
 * Whether `opforge test` precompiles the torch headers for an extension of `ops` ops in unity
 * batches of `batch`: the precompiled header costs about what three units spend parsing them
 * (measured with two batches of three ops: 18.3 s to precompile, then 9.7 s a batch, against 15.7 s
 * a batch without it, and the batches wait for it), so it pays from three units up.
 */
export function testTorchPch(ops: number, batch: number): boolean {
  return Math.ceil(ops / Math.max(1, batch)) >= 3;
}
