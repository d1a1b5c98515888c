// opforge runtime: build the generated Node addon with cmake-js (offline) and load it.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { defineArgs, needsConfigure } from './cmake-cache.js';
import { tritonPython } from './python-env.js';
import { runLogged } from './run-logged.js';
import { cmakeJsBin, nodeAddonApiDir } from './resolve.js';

export interface BuildOptions {
  /** Project root holding out/ (default: the current directory). */
  root?: string;
  /** Build directory (default: <root>/build/node). */
  buildDir?: string;
  /** The generated code (`opforge gen --out`; default: <root>/out). Kernel paths stay relative to root. */
  outDir?: string;
  /** Called with each line cmake prints (progress). */
  onLine?: (line: string) => void;
  /** Also build the CUDA kernels (needs nvcc); the addon still runs on the CPU without a GPU. */
  cuda?: boolean;
  /** Kernel objects to link instead of compiling the kernels (runtime/kernels.ts: KernelBuild.defs). */
  kernels?: Readonly<Record<string, string>>;
  /** Parallel compiles (default: cmake-js's). */
  jobs?: number;
  /** Op units per unity batch (default: the CMakeLists' own, 4). */
  unityBatch?: number;
}

/** Builds out/node with cmake-js, offline against the local Node headers; incremental. Returns the addon path. */
export async function build(opts: BuildOptions = {}): Promise<string> {
  const root = path.resolve(opts.root ?? process.cwd());
  const buildDir = path.resolve(opts.buildDir ?? path.join(root, 'build', 'node'));
  const source = path.join(path.resolve(opts.outDir ?? path.join(root, 'out')), 'node');
  if (!existsSync(path.join(source, 'CMakeLists.txt')))
    throw new Error(`no generated Node binding in ${source}: run \`opforge gen\` first`);
  const cmakeJs = cmakeJsBin();
  const napiDir = nodeAddonApiDir();
  const nodedir =
    process.env.npm_config_nodedir ??
    (existsSync('/usr/include/node/node.h') ? '/usr' : path.dirname(path.dirname(process.execPath)));
  // OPFORGE_KERNELS always defined: a build dir `opforge test` configured with its shared kernel
  // objects compiles its own again when built alone (those objects are only current during a test).
  // OFF, not '': cmake-js drops a --CD option whose value is empty.
  const defs = {
    OPFORGE_PROJECT_ROOT: root,
    NODE_ADDON_API_DIR: napiDir,
    WITH_CUDA: opts.cuda ? 'ON' : 'OFF',
    ...(opts.cuda ? { OPFORGE_TRITON_PYTHON: tritonPython() } : {}),
    OPFORGE_KERNELS: 'OFF',
    ...opts.kernels,
    ...(opts.unityBatch ? { OPFORGE_UNITY_BATCH: String(opts.unityBatch) } : {}),
  };
  const args = [
    '-d',
    source,
    '-O',
    buildDir,
    ...defineArgs(defs, '--CD'),
    ...(opts.jobs ? ['--parallel', String(opts.jobs)] : []),
  ];
  const env = { npm_config_nodedir: nodedir };
  // cmake-js compile configures only a fresh directory: options asked for now must reach the cache.
  if (needsConfigure(buildDir, defs))
    await runLogged(
      process.execPath,
      [cmakeJs, 'configure', ...args],
      'opforge build (cmake-js configure)',
      opts.onLine,
      env,
    );
  await runLogged(
    process.execPath,
    [cmakeJs, 'compile', ...args],
    'opforge build (cmake-js compile)',
    opts.onLine,
    env,
  );
  return addonPath(buildDir);
}

export function addonPath(buildDir: string): string {
  return path.join(buildDir, 'Release', 'opforge_node.node');
}

/** Loads the built addon; a clear error when it has not been built. */
export function load(buildDir = path.join(process.cwd(), 'build', 'node')): unknown {
  const p = addonPath(path.resolve(buildDir));
  if (!existsSync(p))
    throw new Error(`the opforge Node addon is not built (looked for ${p}); run \`opforge build\` or runtime build()`);
  return createRequire(import.meta.url)(p);
}

// ONNX Runtime with opforge's custom ops (docs/ort.md).
export {
  buildOrtLibrary,
  cudaProviderOf,
  onnxruntimeLibrary,
  onnxruntimeNodeLibrary,
  ortIncludeDir,
  ortVersion,
  session,
} from './ort.js';
export type { OrtBuildOptions, OrtSession, SessionOptions, Tensor as OrtTensor, ValueInfo } from './ort.js';
