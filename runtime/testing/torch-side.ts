// The PyTorch side of `opforge test`: finds a Python with torch, builds the project's extension
// (out/torch, incrementally, with CMake against that torch), and runs runtime/python/opforge_test.py
// over the case files (reference outputs, the extension on each device, the exported models).

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cachedValues, defineArgs, needsConfigure } from '../cmake-cache.js';
import { runLogged } from '../ort.js';
import type { TensorFile } from './cases.js';
import { compileKey } from './compile-key.js';

const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const harness = path.join(pkgRoot, 'runtime', 'python', 'opforge_test.py');

/** What the harness reports per case: outputs written (by output name), an error, or a skip. */
export type PyOutcome = Record<string, TensorFile> | { error: string } | { skip: string };
export interface PyExport {
  model: string;
  shapes: ((number | string | null)[] | null)[];
}
export interface PyCase {
  op: string;
  case: number;
  inputs?: { error: string };
  reference?: PyOutcome;
  'python-shapes'?: ((number | string | null)[] | null)[];
  [backend: string]: unknown;
}
export interface PyRun {
  env: {
    torch: string;
    cuda: boolean;
    onnx?: string;
    extension?: string;
    entry?: string | null;
    entry_bypassed?: string[];
    skipped: Record<string, string>;
  };
  cases: PyCase[];
}

/** What `python` has: torch (version, CMake prefix, CUDA), and the versions of onnx, paddle and jax when installed. */
export interface PythonProbe {
  version?: string;
  prefix?: string;
  cuda?: boolean;
  why?: string;
  packages: Record<string, string>;
  /** The CUDA architectures this torch was built for (`90;100`; empty for a CPU build): the extension builds for those. */
  cudaArchs?: string;
}

/** What a skip message tells users to install (opforge's own tests pin these in requirements-test.txt). */
export const INSTALL_HINT =
  'pip install torch onnx onnxruntime onnxscript; opforge is tested with torch 2.13.0 and 1.13';

const PROBE = [
  'import importlib.metadata as m, json, sys',
  'v = {}',
  'for d in ("onnx", "onnxruntime", "onnxscript", "paddlepaddle", "jax", "jaxlib"):',
  '    try: v[d] = m.version(d)',
  '    except Exception: pass',
  'print(json.dumps({"packages": v, "executable": sys.executable}))',
  'import torch, torch.utils',
  'print(torch.__version__); print(torch.utils.cmake_prefix_path); print(torch.cuda.is_available())',
  'print(";".join(sorted({a[3:] for a in torch.cuda.get_arch_list() if a.startswith("sm_")})))',
].join('\n');

/** The Python `opforge test` runs and its torch version; the reason when torch is not importable. */
export async function probeTorch(python: string): Promise<PythonProbe> {
  const r = await execa(python, ['-c', PROBE], { reject: false });
  const lines = String(r.stdout ?? '')
    .trim()
    .split('\n');
  let packages: Record<string, string> = {};
  try {
    packages = (JSON.parse(lines[0] ?? '{}') as { packages?: Record<string, string> }).packages ?? {};
  } catch {
    /* the Python did not start */
  }
  if (r.exitCode !== 0) {
    const why = /No module named 'torch'/.test(String(r.stderr))
      ? `torch is not importable by ${python}`
      : `${python} failed: ${String(r.stderr ?? r.message)
          .trim()
          .split('\n')
          .at(-1)}`;
    return { why: `${why} (install: ${INSTALL_HINT}; or set OPFORGE_PYTHON to a Python that has them)`, packages };
  }
  const [version, prefix, cuda, archs] = lines.slice(1);
  return {
    version: version!,
    prefix: prefix!,
    cuda: cuda === 'True',
    packages,
    ...(archs ? { cudaArchs: archs } : {}),
  };
}

/**
 * A build dir configured for another torch (or Python) starts its CMake cache afresh: CMake keeps
 * the old Torch_DIR and Caffe2_DIR, and would go on building against the old torch.
 */
export function forgetOtherTorch(buildDir: string, prefix: string, python: string): void {
  const was = cachedValues(buildDir, ['CMAKE_PREFIX_PATH', 'Python3_EXECUTABLE']);
  if (was.CMAKE_PREFIX_PATH !== undefined && (was.CMAKE_PREFIX_PATH !== prefix || was.Python3_EXECUTABLE !== python)) {
    for (const f of ['CMakeCache.txt', 'CMakeFiles']) rmSync(path.join(buildDir, f), { recursive: true, force: true });
  }
}

/**
 * Configures (once) and builds out/torch into buildDir; returns libopforge_torch.so. `python` is the
 * Python whose torch it builds against: its headers build the Python entry beside the library.
 */
export async function buildTorchExtension(o: {
  root: string;
  outDir: string;
  buildDir: string;
  prefix: string;
  python: string;
  cuda: boolean;
  unityBatch?: number;
  cudaArchs?: string;
  kernels?: Readonly<Record<string, string>>;
  jobs?: number;
  onLine?: (l: string) => void;
}): Promise<string> {
  const defs: Record<string, string> = {
    CMAKE_BUILD_TYPE: 'Release',
    CMAKE_PREFIX_PATH: o.prefix,
    Python3_EXECUTABLE: o.python,
    OPFORGE_PROJECT_ROOT: o.root,
    WITH_CUDA: o.cuda ? 'ON' : 'OFF',
    OPFORGE_UNITY_BATCH: String(o.unityBatch ?? 1),
    // The CUDA kernels for the architectures the found torch was built for, not a fixed list.
    ...(o.cuda && o.cudaArchs ? { CMAKE_CUDA_ARCHITECTURES: o.cudaArchs } : {}),
    OPFORGE_KERNELS: 'OFF',
    ...o.kernels,
  };
  forgetOtherTorch(o.buildDir, o.prefix, o.python);
  // Reconfigure only when there is no cache or an option changed (CUDA, another torch, a moved project).
  if (needsConfigure(o.buildDir, defs))
    await runLogged(
      'cmake',
      ['-S', path.join(o.outDir, 'torch'), '-B', o.buildDir, ...defineArgs(defs)],
      'cmake configure of out/torch',
      o.onLine,
    );
  const jobs = String(o.jobs ?? availableParallelism());
  await runLogged('cmake', ['--build', o.buildDir, '-j', jobs], 'building the PyTorch extension (out/torch)', o.onLine);
  return path.join(o.buildDir, 'libopforge_torch.so');
}

/** Runs the harness over casesDir; throws with its stderr when it cannot run at all. */
export async function runHarness(o: {
  python: string;
  casesDir: string;
  outDir: string;
  library?: string;
  devices: string[];
  exportModels: boolean;
  grad?: boolean;
}): Promise<PyRun> {
  const args = [
    harness,
    '--cases',
    o.casesDir,
    '--package',
    path.join(o.outDir, 'python'),
    '--device',
    o.devices.join(','),
  ];
  if (o.library) args.push('--library', o.library);
  if (o.exportModels) args.push('--export');
  if (o.grad) args.push('--grad');
  const r = await execa(o.python, args, { reject: false, env: { PYTHONDONTWRITEBYTECODE: '1' }, maxBuffer: 256 << 20 });
  const last = String(r.stdout).trim().split('\n').at(-1) ?? '';
  if (r.exitCode !== 0 || !last.startsWith('{'))
    throw new Error(
      `the PyTorch side of opforge test failed (exit ${r.exitCode}):\n${String(r.stderr).trim().split('\n').slice(-15).join('\n')}`,
    );
  return JSON.parse(last) as PyRun;
}

const EXPORTS = ['ort-legacy', 'ort-dynamo'] as const;

/**
 * runHarness, its outcome kept by content under cacheDir: the report and every file it wrote beside
 * the inputs (outputs, exported models). A run whose inputs are all the same (the case files, the
 * harness, out/python, the extension and its Python entry, this Python and what it has, the
 * arguments) restores them instead of starting Python: nothing the results come from changed. The
 * exported models are kept apart, by the same inputs less the extension's binaries: a model is the
 * graph opforge_ops builds (out/python), not the kernel, so after a kernel edit the harness runs
 * without exporting and the ort-legacy / ort-dynamo columns run the kept models with the new
 * kernels in the rebuilt ONNX Runtime library.
 */
export async function runHarnessCached(
  o: Parameters<typeof runHarness>[0] & { cacheDir: string; probe: PythonProbe },
): Promise<PyRun> {
  const { cacheDir, probe, ...args } = o;
  const built = o.library
    ? readdirSync(path.dirname(o.library))
        .filter((f) => /^(libopforge_torch|opforge_torch_py)\b.*\.so$/.test(f))
        .map((f) => path.join(path.dirname(o.library!), f))
    : [];
  const dirs = [o.casesDir, path.join(pkgRoot, 'runtime', 'python'), path.join(o.outDir, 'python')];
  const parts = [
    JSON.stringify({ ...args, casesDir: undefined, library: !!o.library }),
    JSON.stringify(probe),
    o.python,
  ];
  const key = compileKey([...parts, o.library ?? ''], dirs, built);
  const exportKey = o.exportModels ? compileKey(parts, dirs) : undefined;
  const full = {
    key: path.join(cacheDir, 'key'),
    cases: path.join(cacheDir, 'cases'),
    report: path.join(cacheDir, 'report.json'),
  };
  const exp = {
    key: path.join(cacheDir, 'export', 'key'),
    cases: path.join(cacheDir, 'export', 'cases'),
    report: path.join(cacheDir, 'export', 'cells.json'),
  };
  const hit = (c: typeof full, k: string | undefined): boolean =>
    !!k && existsSync(c.key) && readFileSync(c.key, 'utf8') === k && existsSync(c.report) && existsSync(c.cases);
  if (hit(full, key)) {
    cpSync(full.cases, o.casesDir, { recursive: true });
    return JSON.parse(readFileSync(full.report, 'utf8')) as PyRun;
  }
  rmSync(full.key, { force: true });
  const kept = hit(exp, exportKey);
  const run = await runHarness({ ...args, exportModels: o.exportModels && !kept });
  type Cells = { onnx?: string; skipped: Record<string, string>; cases: Record<string, Record<string, unknown>> };
  const id = (c: PyCase): string => `${c.op}#${c.case}`;
  if (kept) {
    // The kept models and their cells, as the exporting run wrote them.
    const cells = JSON.parse(readFileSync(exp.report, 'utf8')) as Cells;
    cpSync(exp.cases, o.casesDir, { recursive: true });
    if (cells.onnx !== undefined) run.env.onnx = cells.onnx;
    Object.assign(run.env.skipped, cells.skipped);
    for (const c of run.cases) Object.assign(c, cells.cases[id(c)] ?? {});
  } else if (exportKey) {
    rmSync(path.dirname(exp.key), { recursive: true, force: true });
    mkdirSync(exp.cases, { recursive: true });
    const cells: Cells = {
      ...(run.env.onnx !== undefined ? { onnx: run.env.onnx } : {}),
      skipped: Object.fromEntries(
        Object.entries(run.env.skipped).filter(([b]) => (EXPORTS as readonly string[]).includes(b)),
      ),
      cases: {},
    };
    for (const c of run.cases)
      cells.cases[id(c)] = Object.fromEntries(EXPORTS.filter((b) => c[b] !== undefined).map((b) => [b, c[b]]));
    copyModels(o.casesDir, exp.cases);
    writeFileSync(exp.report, JSON.stringify(cells));
    writeFileSync(exp.key, exportKey);
  }
  mkdirSync(cacheDir, { recursive: true });
  rmSync(full.cases, { recursive: true, force: true });
  cpSync(o.casesDir, full.cases, { recursive: true });
  writeFileSync(full.report, JSON.stringify(run));
  writeFileSync(full.key, key);
  return run;
}

/** The exported models (*.onnx) under casesDir, copied to the same places under to. */
function copyModels(casesDir: string, to: string): void {
  for (const d of readdirSync(casesDir, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(path.join(casesDir, d.name)).filter((x) => x.endsWith('.onnx'))) {
      mkdirSync(path.join(to, d.name), { recursive: true });
      cpSync(path.join(casesDir, d.name, f), path.join(to, d.name, f));
    }
  }
}

/**
 * probeTorch, kept in file until this Python or its packages change: the interpreter's real path
 * and time, and the times of torch's version file and of the site-packages folder (installing,
 * upgrading or removing a package adds or removes entries there). Saves a Python start (the
 * torch import) in a run with nothing else to do in Python.
 */
export async function probeTorchCached(python: string, file: string): Promise<PythonProbe> {
  const stamp = (p: string): string => {
    try {
      return `${realpathSync(p)}@${statSync(p).mtimeMs}`;
    } catch {
      return `${p}@none`;
    }
  };
  const keyOf = (p: PythonProbe | undefined): string => {
    const site = p?.prefix ? path.resolve(p.prefix, '..', '..', '..') : '';
    return JSON.stringify([
      python,
      stamp(python),
      site && stamp(site),
      site && stamp(path.join(site, 'torch', 'version.py')),
    ]);
  };
  // A bare name (python3 on PATH) may be a shim that switches interpreters: asked every time.
  if (!path.isAbsolute(python)) return probeTorch(python);
  try {
    const cached = JSON.parse(readFileSync(file, 'utf8')) as { key: string; probe: PythonProbe };
    if (cached.probe.version && cached.key === keyOf(cached.probe)) return cached.probe;
  } catch {
    /* none yet */
  }
  const probe = await probeTorch(python);
  if (probe.version) {
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify({ key: keyOf(probe), probe }));
  }
  return probe;
}
