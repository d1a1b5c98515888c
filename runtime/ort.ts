// ONNX Runtime from Node with opforge's custom ops: builds the project's custom-op library
// (out/ort) and a small session binding (runtime/ort-session), loads onnxruntime-node's bundled
// libonnxruntime.so.1 (or another ONNX Runtime) and runs whole ONNX models whose graphs contain
// opforge ops, which onnxruntime-node alone cannot (it has no way to register a custom-op library).

import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DType } from '../generator/model/type-table.js';
import { readProjectNames } from '../generator/model/project-names.js';
import { ortLibraryFile } from '../generator/emit/ort/names.js';
import { defineArgs, needsConfigure } from './cmake-cache.js';
import { tritonPython } from './python-env.js';
import { cmakeJsBin, nodeAddonApiDir, packageDir } from './resolve.js';
import { compileKey } from './testing/compile-key.js';
import { runLogged } from './run-logged.js';

const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/** The TypedArray each dtype uses (16-bit floats as raw bits, bool as 0/1 bytes), as in the Node binding. */
export interface ArrayFor {
  float32: Float32Array;
  float16: Uint16Array;
  bfloat16: Uint16Array;
  float64: Float64Array;
  int8: Int8Array;
  uint8: Uint8Array;
  int32: Int32Array;
  int64: BigInt64Array;
  bool: Uint8Array;
}

/** A dense row-major tensor. Inputs are used without copying; outputs are new arrays. */
export interface Tensor<D extends DType = DType> {
  readonly dtype: D;
  readonly dims: readonly number[];
  readonly data: ArrayFor[D];
}

/** A graph input or output: dims are numbers, symbolic names, or null where unknown. */
export interface ValueInfo {
  readonly name: string;
  /** null for element types opforge tensors cannot hold. */
  readonly dtype: DType | null;
  readonly dims: readonly (number | string | null)[];
}

export interface OrtSession {
  readonly inputs: readonly ValueInfo[];
  readonly outputs: readonly ValueInfo[];
  /** Runs the model; returns the named outputs (all when outputNames is absent). Throws ORT's error on failure. */
  run(feeds: Readonly<Record<string, Tensor>>, outputNames?: readonly string[]): Record<string, Tensor>;
  /** Releases the session (further run() calls throw). */
  close(): void;
}

export interface OrtBuildOptions {
  /** Project root holding out/ (default: the current directory). */
  root?: string;
  /** Build directory for the custom-op library (default: <root>/build/ort). */
  buildDir?: string;
  /** The generated code (`opforge gen --out`; default: <root>/out). */
  outDir?: string;
  /** Directory holding onnxruntime_c_api.h and onnxruntime_cxx_api.h (default: $ORT_INCLUDE_DIR, then the com.github.asus4.onnxruntime package). */
  includeDir?: string;
  /** Called with each line the build prints. */
  onLine?: (line: string) => void;
  /** Also build the CUDA-EP kernels (nvcc needed); CMAKE_CUDA_ARCHITECTURES defaults to "80;90". */
  cuda?: boolean | { architectures: string };
  /** Kernel objects to link instead of compiling the kernels (runtime/kernels.ts: KernelBuild.defs). */
  kernels?: Readonly<Record<string, string>>;
  /** Parallel compiles (default 2). */
  jobs?: number;
  /** Op units per unity batch (default: the CMakeLists' own, 4). */
  unityBatch?: number;
}

export interface SessionOptions extends OrtBuildOptions {
  /** Custom-op libraries to register (default: this project's, built on first use). */
  customOpLibraries?: readonly string[];
  /** libonnxruntime to load (default: onnxruntimeLibrary(): $ONNXRUNTIME_ROOT's, else onnxruntime-node's). */
  ortLibrary?: string;
  /** Intra-op threads (0: ORT's default). */
  intraOpThreads?: number;
  /**
   * The execution provider (default 'cpu'). 'cuda' needs a runtime with the CUDA provider beside it
   * (an onnxruntime-gpu install: cudaProviderOf()); no node may fall back to the CPU EP then.
   */
  provider?: 'cpu' | 'cuda';
  /** The CUDA device (default 0). */
  device?: number;
  /** With the CUDA EP: let nodes it has no kernel for run on the CPU EP (default false: an error). */
  cpuFallback?: boolean;
}

/** Where the ORT headers are: option, $ORT_INCLUDE_DIR, $ONNXRUNTIME_ROOT, or the headers com.github.asus4.onnxruntime ships. */
export function ortIncludeDir(given?: string): string {
  const candidates = [given, process.env.ORT_INCLUDE_DIR, process.env.ONNXRUNTIME_ROOT];
  let headersPkg: string | undefined;
  try {
    headersPkg = packageDir('com.github.asus4.onnxruntime', 'the ONNX Runtime backend', [process.cwd()]);
  } catch {
    /* optional: the error below names it */
  }
  if (headersPkg)
    candidates.push(
      path.join(
        headersPkg,
        'Plugins',
        'iOS~',
        'onnxruntime.xcframework',
        'ios-arm64',
        'onnxruntime.framework',
        'Headers',
      ),
    );
  for (const c of candidates) {
    if (!c) continue;
    for (const d of [c, path.join(c, 'include'), path.join(c, 'include', 'onnxruntime')]) {
      if (existsSync(path.join(d, 'onnxruntime_cxx_api.h'))) return d;
    }
  }
  throw new Error(
    'ONNX Runtime headers not found: set ORT_INCLUDE_DIR to a directory with onnxruntime_cxx_api.h, or install com.github.asus4.onnxruntime (docs/ort.md)',
  );
}

/**
 * The libonnxruntime sessions load: under $ONNXRUNTIME_ROOT/lib when that is set (an ONNX Runtime
 * release unpacked, as its CMake users have it, or an onnxruntime-gpu wheel's capi/ folder), else
 * onnxruntime-node's bundled CPU runtime.
 */
export function onnxruntimeLibrary(): string {
  const root = process.env.ONNXRUNTIME_ROOT;
  if (!root) return onnxruntimeNodeLibrary();
  for (const dir of [path.join(root, 'lib'), path.join(root, 'lib64'), root]) {
    if (!existsSync(dir)) continue;
    const names = readdirSync(dir).filter(
      (f) => /^libonnxruntime\.so(\.\d+)*$/.test(f) || f === 'libonnxruntime.dylib',
    );
    // The shortest name is the link a release ships (libonnxruntime.so), else the versioned file.
    const found = names.sort((a, b) => a.length - b.length || a.localeCompare(b))[0];
    if (found) return path.join(dir, found);
  }
  throw new Error(`ONNXRUNTIME_ROOT=${root} holds no lib/libonnxruntime.so (unset it to use onnxruntime-node's)`);
}

/** The CUDA execution provider beside an ONNX Runtime library, or undefined when it has none (a CPU build). */
export function cudaProviderOf(ortLibrary: string): string | undefined {
  const p = path.join(path.dirname(ortLibrary), 'libonnxruntime_providers_cuda.so');
  return existsSync(p) ? p : undefined;
}

/** onnxruntime-node's bundled CPU libonnxruntime.so.1 for this platform. */
export function onnxruntimeNodeLibrary(): string {
  let pkg: string;
  try {
    pkg = path.dirname(require.resolve('onnxruntime-node/package.json', { paths: [process.cwd()] }));
  } catch {
    try {
      pkg = packageDir('onnxruntime-node', 'ONNX Runtime sessions');
    } catch (e) {
      throw new Error(`${(e as Error).message} (or pass ortLibrary, a libonnxruntime path)`);
    }
  }
  const bin = path.join(pkg, 'bin');
  const napi = existsSync(bin)
    ? readdirSync(bin)
        .filter((d) => d.startsWith('napi-v'))
        .sort()
        .reverse()
    : [];
  for (const v of napi) {
    const p = path.join(
      bin,
      v,
      process.platform,
      process.arch,
      process.platform === 'darwin' ? 'libonnxruntime.1.dylib' : 'libonnxruntime.so.1',
    );
    if (existsSync(p)) return p;
  }
  throw new Error(`no libonnxruntime for ${process.platform}/${process.arch} in ${bin}`);
}

/** Builds the project's custom-op library (out/ort, target opforge_ort) with CMake; incremental. Returns its path. */
export async function buildOrtLibrary(opts: OrtBuildOptions = {}): Promise<string> {
  const root = path.resolve(opts.root ?? process.cwd());
  const buildDir = path.resolve(opts.buildDir ?? path.join(root, 'build', 'ort'));
  const out = path.resolve(opts.outDir ?? path.join(root, 'out'));
  if (!existsSync(path.join(out, 'ort', 'CMakeLists.txt')))
    throw new Error(`no generated ONNX Runtime backend in ${path.join(out, 'ort')}: run \`opforge gen\` first`);
  const defs: Record<string, string> = {
    WITH_ONNXRUNTIME: 'ON',
    ONNXRUNTIME_INCLUDE_DIR: ortIncludeDir(opts.includeDir),
    OPFORGE_PROJECT_ROOT: root,
    CMAKE_BUILD_TYPE: 'Release',
    WITH_CUDA: opts.cuda ? 'ON' : 'OFF',
    ...(opts.cuda
      ? {
          CMAKE_CUDA_ARCHITECTURES: typeof opts.cuda === 'object' ? opts.cuda.architectures : '80;90',
          OPFORGE_TRITON_PYTHON: tritonPython(),
        }
      : {}),
    OPFORGE_KERNELS: 'OFF',
    ...opts.kernels,
    ...(opts.unityBatch ? { OPFORGE_ORT_UNITY_BATCH: String(opts.unityBatch) } : {}),
  };
  // Reconfigure when the options differ from the cache (cmake --build alone would keep the old ones).
  if (needsConfigure(buildDir, defs))
    await runLogged(
      'cmake',
      ['-S', out, '-B', buildDir, ...defineArgs(defs)],
      'cmake configure of out/ort',
      opts.onLine,
    );
  await runLogged(
    'cmake',
    ['--build', buildDir, '--target', 'opforge_ort', '-j', String(opts.jobs ?? 2)],
    'building the ONNX Runtime custom-op library',
    opts.onLine,
  );
  return path.join(buildDir, 'ort', ortLibraryFile(readProjectNames(root).names));
}

/**
 * Builds the Node session binding with cmake-js (offline, against the local Node headers);
 * incremental. Returns its path. With `cacheDir` (the machine cache), it is built once per Node,
 * ONNX Runtime headers and binding source, in a folder of the cache named by them, and found
 * there by every later call: it is the same for every project.
 */
export async function buildSessionBinding(
  opts: { buildDir?: string; cacheDir?: string; includeDir?: string; onLine?: (l: string) => void } = {},
): Promise<string> {
  const cmakeJs = cmakeJsBin('the ONNX Runtime session binding');
  const nodedir =
    process.env.npm_config_nodedir ??
    (existsSync('/usr/include/node/node.h') ? '/usr' : path.dirname(path.dirname(process.execPath)));
  const napiDir = nodeAddonApiDir('the ONNX Runtime session binding');
  const source = path.join(pkgRoot, 'runtime', 'ort-session');
  const ortInclude = ortIncludeDir(opts.includeDir);
  const built = (d: string): string => path.join(d, 'Release', 'opforge_ort_session.node');
  let buildDir = path.resolve(opts.buildDir ?? path.join(process.cwd(), 'build', 'ort-session'));
  let keep: string | undefined;
  if (opts.cacheDir) {
    const key = compileKey([process.execPath, process.version, process.arch, nodedir, napiDir, ortInclude], [source]);
    keep = path.join(opts.cacheDir, 'ort-session', key.slice(0, 32));
    if (existsSync(built(keep))) return built(keep);
    // Built aside, then renamed: a concurrent run sees a whole binding or none.
    buildDir = `${keep}.${process.pid}`;
  }
  const compile = runLogged(
    process.execPath,
    [
      cmakeJs,
      'compile',
      '-d',
      source,
      '-O',
      buildDir,
      `--CDORT_INCLUDE_DIR=${ortInclude}`,
      `--CDNODE_ADDON_API_DIR=${napiDir}`,
    ],
    'building the ONNX Runtime session binding',
    opts.onLine,
    { npm_config_nodedir: nodedir },
  );
  if (!keep) {
    await compile;
    return built(buildDir);
  }
  try {
    await compile;
  } catch (e) {
    rmSync(buildDir, { recursive: true, force: true });
    throw e;
  }
  try {
    renameSync(buildDir, keep);
  } catch {
    // Another run kept one first: use that, and drop this.
    rmSync(buildDir, { recursive: true, force: true });
  }
  return built(keep);
}

interface Binding {
  Session: new (
    ortLibrary: string,
    model: string,
    libs: string[],
    threads: number,
    provider: { provider: 'cpu' | 'cuda'; device: string; cpuFallback: boolean },
  ) => OrtSession;
  ortVersion(ortLibrary: string): string;
  apiVersion: number;
}

let binding: Binding | undefined;

/** Loads (building if needed) the session binding. */
export async function loadSessionBinding(
  opts: { buildDir?: string; cacheDir?: string; includeDir?: string; onLine?: (l: string) => void } = {},
): Promise<Binding> {
  if (!binding) binding = require(await buildSessionBinding(opts)) as Binding;
  return binding;
}

/**
 * An ONNX Runtime session over `modelPath` with opforge's custom ops registered. Builds the
 * project's custom-op library and the session binding on first use (CMake and a C++17 compiler
 * needed; later calls are incremental), then loads onnxruntimeLibrary() (or `ortLibrary`).
 */
export async function session(modelPath: string, opts: SessionOptions = {}): Promise<OrtSession> {
  const root = path.resolve(opts.root ?? process.cwd());
  const libs = opts.customOpLibraries ?? [await buildOrtLibrary({ ...opts, root })];
  const b = await loadSessionBinding({
    buildDir: path.join(root, 'build', 'ort-session'),
    ...(opts.includeDir ? { includeDir: opts.includeDir } : {}),
    ...(opts.onLine ? { onLine: opts.onLine } : {}),
  });
  return new b.Session(
    opts.ortLibrary ?? onnxruntimeLibrary(),
    path.resolve(modelPath),
    [...libs],
    opts.intraOpThreads ?? 0,
    {
      provider: opts.provider ?? 'cpu',
      device: String(opts.device ?? 0),
      cpuFallback: opts.cpuFallback ?? false,
    },
  );
}

/** The version string of the ONNX Runtime the sessions use. */
export async function ortVersion(ortLibrary = onnxruntimeLibrary()): Promise<string> {
  return (await loadSessionBinding()).ortVersion(ortLibrary);
}
