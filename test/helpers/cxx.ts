// Compiling and running C++ from tests, with the flags the standards ask for.
import { spawnSync } from 'node:child_process';

export const CXXFLAGS = ['-std=c++17', '-Wall', '-Wextra', '-Werror', '-Wpedantic', '-Wshadow', '-O2'];

/** Runs a command; throws with its output when it fails. */
export function sh(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * Compiles (syntax only, warnings as errors) a generated ONNX Runtime op unit with its CUDA-EP
 * kernels switched on: `unit` relative to `outDir`, the ORT headers in `ortInclude` and the CUDA
 * toolkit's in `cudaInclude`.
 */
export function checkOrtCudaUnit(outDir: string, unit: string, ortInclude: string, cudaInclude: string): void {
  sh('g++', [
    ...CXXFLAGS,
    '-fsyntax-only',
    '-DOPFORGE_ORT_WITH_CUDA',
    '-isystem',
    ortInclude,
    '-isystem',
    cudaInclude,
    ...['include', 'ort/include', 'ort'].flatMap((d) => ['-I', `${outDir}/${d}`]),
    `${outDir}/${unit}`,
  ]);
}
