// The PyTorch side of `opforge test`: finds a Python with torch, builds the project's extension
// (out/torch, incrementally, with CMake against that torch), and runs runtime/python/opforge_test.py
// over the case files (reference outputs, the extension on each device, the exported models).

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { PKG_ROOT } from '../../../../generator/pkg-root.js';
import type { ProjectNames } from '../../../../generator/model/ir.js';
import { torchLibraryFile } from '../../../../generator/model/ir-helpers.js';
import { DEFAULT_NAMES } from '../../../../generator/model/project-names.js';
import { cachedValues, defineArgs, needsConfigure } from '../../../cmake-cache.js';
import { runLogged } from '../../../run-logged.js';
import type { TensorFile } from '../../cases.js';
import { caseFileOwner, caseInputFiles } from '../../case-files.js';
import { compileKey } from '../../compile-key.js';
import { testTorchPch, testUnityBatch } from '../../unity-batch.js';
import { type PythonProbe, type PythonSession, runHarnessScript } from '../../python-session.js';
import { ENTRY, entryCacheFolder, entryIn, keepEntry, placeEntry } from './entry-cache.js';

const _pythonDir = path.join(PKG_ROOT, 'runtime', 'python');

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
  /** Op units per unity batch (default: as `opforge test` batches out/torch's op units, testUnityBatch). */
  unityBatch?: number;
  /** Precompile the torch headers (default: as `opforge test` decides for those batches, testTorchPch). */
  pch?: boolean;
  /** The project's names (its library's file name); default: opforge's own. */
  names?: ProjectNames;
  /** The machine cache (torch-entry-cache.ts): the Python entry comes from there when kept, and goes there when built. */
  entryCacheDir?: string;
  cudaArchs?: string;
  kernels?: Readonly<Record<string, string>>;
  jobs?: number;
  onLine?: (l: string) => void;
}): Promise<string> {
  // A caller that names neither builds as `opforge test` would: one unit per op costs the torch
  // headers' parse per op, most of the extension's time.
  const units = readdirSync(path.join(o.outDir, 'torch')).filter(
    (f) => f.endsWith('.cpp') && f !== 'python_entry.cpp',
  ).length;
  const unityBatch = o.unityBatch ?? testUnityBatch(units);
  const pch = o.pch ?? testTorchPch(units, unityBatch);
  const defs: Record<string, string> = {
    CMAKE_BUILD_TYPE: 'Release',
    CMAKE_PREFIX_PATH: o.prefix,
    Python3_EXECUTABLE: o.python,
    OPFORGE_PROJECT_ROOT: o.root,
    WITH_CUDA: o.cuda ? 'ON' : 'OFF',
    OPFORGE_UNITY_BATCH: String(unityBatch),
    OPFORGE_TORCH_PCH: pch ? 'ON' : 'OFF',
    // The CUDA kernels for the architectures the found torch was built for, not a fixed list.
    ...(o.cuda && o.cudaArchs ? { CMAKE_CUDA_ARCHITECTURES: o.cudaArchs } : {}),
    OPFORGE_KERNELS: 'OFF',
    ...o.kernels,
  };
  const entrySource = path.join(o.outDir, 'torch', 'python_entry.cpp');
  const folder =
    o.entryCacheDir && existsSync(entrySource)
      ? entryCacheFolder({ cacheDir: o.entryCacheDir, source: entrySource, prefix: o.prefix, python: o.python })
      : undefined;
  // A build folder that compiled its own entry keeps doing so (rebuilding it is incremental, and
  // switching would reconfigure); a new one, or one that took the kept entry before, takes it.
  const own = cachedValues(o.buildDir, ['OPFORGE_TORCH_PYTHON']).OPFORGE_TORCH_PYTHON === 'ON';
  const kept = folder && !own ? entryIn(folder) : undefined;
  defs.OPFORGE_TORCH_PYTHON = kept ? 'OFF' : 'ON';
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
  if (kept) placeEntry(kept, o.buildDir);
  else if (folder) {
    const built = entryIn(o.buildDir);
    if (built) keepEntry(built, folder);
  }
  return path.join(o.buildDir, torchLibraryFile(o.names ?? DEFAULT_NAMES));
}

/** Runs the harness over casesDir; throws with its stderr when it cannot run at all. */
export async function runHarness(o: {
  python: string;
  casesDir: string;
  outDir: string;
  library?: string;
  /** The generated package's name (ProjectNames.torchPackage); default: the one package in out/python. */
  packageName?: string;
  devices: string[];
  exportModels: boolean;
  grad?: boolean;
  /** The run's interpreter (started with the run, or now): the harness runs there when it has the same Python. */
  session?: () => PythonSession | undefined;
}): Promise<PyRun> {
  const args = ['--cases', o.casesDir, '--package', path.join(o.outDir, 'python'), '--device', o.devices.join(',')];
  if (o.library) args.push('--library', o.library);
  if (o.packageName) args.push('--package-name', o.packageName);
  if (o.exportModels) args.push('--export');
  if (o.grad) args.push('--grad');
  const r = await runHarnessScript(o.python, 'torch', args, o.session?.());
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
  const { cacheDir, probe, session, ...args } = o;
  const built = o.library
    ? readdirSync(path.dirname(o.library))
        .filter((f) => f === path.basename(o.library!) || ENTRY.test(f))
        .map((f) => path.join(path.dirname(o.library!), f))
    : [];
  const dirs = [path.join(PKG_ROOT, 'runtime', 'python'), path.join(o.outDir, 'python')];
  const inputs = caseInputFiles(o.casesDir);
  const parts = [
    JSON.stringify({ ...args, casesDir: undefined, library: !!o.library }),
    JSON.stringify(probe),
    o.python,
  ];
  const key = compileKey([...parts, o.library ?? ''], dirs, [...inputs, ...built]);
  const exportKey = o.exportModels ? compileKey(parts, dirs, inputs) : undefined;
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
  const run = await runHarness({ ...args, ...(session ? { session } : {}), exportModels: o.exportModels && !kept });
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
  // Its own files only: the Paddle and JAX harnesses may be writing theirs beside them meanwhile.
  cpSync(o.casesDir, full.cases, {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || caseFileOwner(path.relative(o.casesDir, src)) === 'pytorch',
  });
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
