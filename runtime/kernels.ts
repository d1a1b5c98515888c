// The kernels of a project compiled once per device configuration, for every backend that links
// them (`opforge test`): a CMake build of out/ alone (no backend) writes opforge_kernels.cmake,
// the object files of every op's kernels; the Node addon, the PyTorch extension and the ONNX
// Runtime library are configured with -DOPFORGE_KERNELS=<that file> and link those objects, and the
// TensorRT lifecycle driver links them too. What differs between device configurations (CUDA on or
// off, the CUDA architectures) is a build directory of its own.

import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { defineArgs, needsConfigure } from './cmake-cache.js';
import { runLogged } from './run-logged.js';
import { tritonPython } from './python-env.js';

export interface KernelBuild {
  /** opforge_kernels.cmake: `set(OPFORGE_OBJECTS_<op>_cpu|_cuda "<objects>")` per op. */
  manifest: string;
  /** The CMake definitions a backend build passes to link these objects (the configuration included). */
  defs: Record<string, string>;
  /** Per op (snake name): its kernel object files, CPU then CUDA. */
  objects: Map<string, string[]>;
  /** Whether this build wrote an object (none existed, or a kernel or what it includes changed). */
  changed: boolean;
}

/** Configures (when needed) and builds the kernels of out/ into buildDir; incremental. */
export async function buildKernels(o: {
  root: string;
  outDir: string;
  buildDir: string;
  cuda: boolean;
  cudaArchs?: string;
  /** The Python that runs (python-env.ts tritonPython: $OPFORGE_TRITON_PYTHON first); it compiles the Triton kernels. */
  python?: string;
  jobs: number;
  onLine?: (l: string) => void;
}): Promise<KernelBuild> {
  const config: Record<string, string> = {
    WITH_CUDA: o.cuda ? 'ON' : 'OFF',
    ...(o.cuda && o.cudaArchs ? { CMAKE_CUDA_ARCHITECTURES: o.cudaArchs } : {}),
    ...(o.cuda ? { OPFORGE_TRITON_PYTHON: tritonPython(o.python) } : {}),
  };
  // compile_commands.json: the kernels' own flags, for clangd and for timing one compile (bench/loop.ts).
  const defs = {
    CMAKE_BUILD_TYPE: 'Release',
    OPFORGE_PROJECT_ROOT: o.root,
    OPFORGE_EXPORT_KERNELS: 'ON',
    CMAKE_EXPORT_COMPILE_COMMANDS: 'ON',
    ...config,
  };
  if (needsConfigure(o.buildDir, defs))
    await runLogged(
      'cmake',
      ['-S', o.outDir, '-B', o.buildDir, ...defineArgs(defs)],
      'cmake configure of the kernels (out/)',
      o.onLine,
    );
  const manifest = path.join(o.buildDir, 'opforge_kernels.cmake');
  const before = existsSync(manifest) ? stamps(readManifest(manifest)) : undefined;
  await runLogged('cmake', ['--build', o.buildDir, '-j', String(o.jobs)], 'building the kernels', o.onLine);
  const objects = readManifest(manifest);
  return { manifest, defs: { OPFORGE_KERNELS: manifest, ...config }, objects, changed: stamps(objects) !== before };
}

/** The objects' paths and modification times, as one string. */
function stamps(objects: Map<string, string[]>): string {
  return [...objects.values()]
    .flat()
    .map((f) => `${f}@${existsSync(f) ? statSync(f).mtimeMs : 'none'}`)
    .join('\n');
}

function readManifest(file: string): Map<string, string[]> {
  const objects = new Map<string, string[]>();
  for (const m of readFileSync(file, 'utf8').matchAll(/^set\(OPFORGE_OBJECTS_(\w+)_(cpu|cuda) "([^"]*)"\)$/gm)) {
    objects.set(m[1]!, [...(objects.get(m[1]!) ?? []), ...m[3]!.split(';').filter(Boolean)]);
  }
  return objects;
}
