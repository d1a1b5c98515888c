// The PyTorch side of `opforge test`: finds a Python with torch, builds the project's extension
// (out/torch, incrementally, with CMake against that torch), and runs runtime/python/opforge_test.py
// over the case files (reference outputs, the extension on each device, the exported models).

import { availableParallelism } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
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
import { entryCacheFolder, entryIn, keepEntry, placeEntry } from './torch-entry-cache.js';

const pkgRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const pythonDir = path.join(pkgRoot, 'runtime', 'python');

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

const probeScript = path.join(pythonDir, 'opforge_probe.py');
const sessionScript = path.join(pythonDir, 'opforge_session.py');

/** The Python `opforge test` runs and its torch version; the reason when torch is not importable. */
export async function probeTorch(python: string): Promise<PythonProbe> {
  const r = await execa(python, [probeScript], { reject: false });
  return parseProbe(python, String(r.stdout ?? ''), r.exitCode ?? 1, String(r.stderr ?? r.message));
}

/** opforge_probe.py's lines (and, when it failed, its exit status and stderr) as a PythonProbe. */
function parseProbe(python: string, stdout: string, exitCode: number, stderr: string): PythonProbe {
  const lines = stdout.trim().split('\n');
  let packages: Record<string, string> = {};
  try {
    packages = (JSON.parse(lines[0] ?? '{}') as { packages?: Record<string, string> }).packages ?? {};
  } catch {
    /* the Python did not start */
  }
  if (exitCode !== 0 || lines.length < 4) {
    const why = /No module named 'torch'/.test(stderr)
      ? `torch is not importable by ${python}`
      : `${python} failed: ${stderr.trim().split('\n').at(-1)}`;
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

/** The harnesses a session runs, and their scripts (run alone when there is no session). */
const HARNESS_SCRIPTS = {
  torch: path.join(pythonDir, 'opforge_test.py'),
  paddle: path.join(pythonDir, 'opforge_paddle_test.py'),
  jax: path.join(pythonDir, 'opforge_jax_test.py'),
} as const;
export type Harness = keyof typeof HARNESS_SCRIPTS;

/** Where every harness runs, in the session or alone: Paddle's and JAX's native logs at errors only. */
const HARNESS_ENV = { PYTHONDONTWRITEBYTECODE: '1', GLOG_minloglevel: '2', TF_CPP_MIN_LOG_LEVEL: '2' };

/** What a harness run gave: its exit status, its stdout (the report last) and its stderr. */
export interface HarnessOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const DONE = '\0opforge-session-done';

/**
 * The one interpreter of a run's Python side (runtime/python/opforge_session.py). Started before
 * the builds, it answers the probe the builds are configured with and imports torch, the harness
 * and the generated package while they run; started later (the probe kept), it imports only what
 * its requests need. Then it runs the harnesses one after another (`run`): the PyTorch side's, then
 * Paddle's and JAX's. `close` ends it (or stops it, unused: the harness's results were kept).
 */
export class PythonSession {
  readonly probe: Promise<PythonProbe>;
  private readonly child: ChildProcess;
  private readonly exit: Promise<number>;
  private exited: number | undefined;
  private stdout = '';
  private stderr = '';
  private used = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Looks for what a caller waits on (the probe's lines, a run's end) each time output or the exit arrives. */
  private readonly watchers = new Set<() => void>();

  constructor(
    readonly python: string,
    outDir: string,
    opts: { warm?: boolean } = {},
  ) {
    this.child = spawn(
      python,
      [sessionScript, path.join(outDir, 'python'), ...(opts.warm === false ? ['--no-warm'] : [])],
      {
        env: { ...process.env, ...HARNESS_ENV },
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    const changed = (): void => {
      for (const w of [...this.watchers]) w();
    };
    this.child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      this.stdout += d;
      changed();
    });
    this.child.stderr!.setEncoding('utf8').on('data', (d: string) => {
      this.stderr += d;
      changed();
    });
    // A session told nothing more (its stdin closed early) is not an error.
    this.child.stdin!.on('error', () => {});
    this.exit = new Promise((resolve) => {
      this.child.on('error', (e) => {
        this.stderr += String(e.message);
        resolve(127);
      });
      this.child.on('close', (code, signal) => resolve(code ?? (signal ? 128 : 1)));
    });
    void this.exit.then((c) => {
      this.exited = c;
      changed();
    });
    this.probe = new Promise((resolve) => {
      const look = (): void => {
        const lines = this.stdout.split('\n');
        if (lines.length > 5 || this.exited !== undefined) {
          this.watchers.delete(look);
          resolve(parseProbe(python, lines.slice(0, 5).join('\n'), this.exited ?? 0, this.stderr));
        }
      };
      this.watchers.add(look);
    });
  }

  /** Runs `harness` with `args` (its script's, less the script) after the runs asked for before. */
  run(harness: Harness, args: readonly string[]): Promise<HarnessOutput> {
    this.used = true;
    const turn = this.queue.then(() => this.request(harness, args));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  private async request(harness: Harness, args: readonly string[]): Promise<HarnessOutput> {
    await this.probe; // its lines come first on stdout
    const [out0, err0] = [this.stdout.length, this.stderr.length];
    if (this.exited === undefined) this.child.stdin!.write(`${JSON.stringify({ harness, args })}\n`);
    return new Promise((resolve) => {
      const look = (): void => {
        const out = this.stdout.slice(out0);
        const err = this.stderr.slice(err0);
        const done = new RegExp(`${DONE} (-?\\d+)\n`).exec(out);
        const errDone = err.indexOf(`${DONE} `);
        if (done && errDone >= 0) {
          this.watchers.delete(look);
          resolve({ exitCode: Number(done[1]), stdout: out.slice(0, done.index), stderr: err.slice(0, errDone) });
        } else if (this.exited !== undefined) {
          // Ended without finishing this run (a crash): its exit status, and what it printed.
          this.watchers.delete(look);
          resolve({ exitCode: this.exited || 1, stdout: out, stderr: err });
        }
      };
      this.watchers.add(look);
      look();
    });
  }

  /** Whether harnesses can still run here (it has not ended). */
  get available(): boolean {
    return this.exited === undefined && !this.child.stdin!.writableEnded;
  }

  /** Ends the session: lets a used one finish (end of input), stops an unused one (it may still be importing). */
  close(): void {
    if (!this.available) return;
    if (this.used) this.child.stdin!.end();
    else this.child.kill();
  }
}

/** Runs `harness` with `args` in the run's session when it has the same Python, else in a Python of its own. */
export async function runHarnessScript(
  python: string,
  harness: Harness,
  args: readonly string[],
  session: PythonSession | undefined,
): Promise<HarnessOutput> {
  if (session?.available && session.python === python) return session.run(harness, args);
  const r = await execa(python, [HARNESS_SCRIPTS[harness], ...args], {
    reject: false,
    env: HARNESS_ENV,
    maxBuffer: 256 << 20,
  });
  return { exitCode: r.exitCode ?? 1, stdout: String(r.stdout), stderr: String(r.stderr) };
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
  /** Op units per unity batch (default 1, the CMakeLists' own: one unit per op). */
  unityBatch?: number;
  /** Precompile the torch headers (default: the CMakeLists' own, on). */
  pch?: boolean;
  /** The machine cache (torch-entry-cache.ts): the Python entry comes from there when kept, and goes there when built. */
  entryCacheDir?: string;
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
    OPFORGE_TORCH_PCH: o.pch === false ? 'OFF' : 'ON',
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
  /** The run's interpreter (started with the run, or now): the harness runs there when it has the same Python. */
  session?: () => PythonSession | undefined;
}): Promise<PyRun> {
  const args = ['--cases', o.casesDir, '--package', path.join(o.outDir, 'python'), '--device', o.devices.join(',')];
  if (o.library) args.push('--library', o.library);
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
 * The probe is kept in file until this Python or its packages change: the interpreter's real path
 * and time, and the times of torch's version file and of the site-packages folder (installing,
 * upgrading or removing a package adds or removes entries there).
 */
function probeKey(python: string, p: PythonProbe | undefined): string {
  const stamp = (f: string): string => {
    try {
      return `${realpathSync(f)}@${statSync(f).mtimeMs}`;
    } catch {
      return `${f}@none`;
    }
  };
  const site = p?.prefix ? path.resolve(p.prefix, '..', '..', '..') : '';
  return JSON.stringify([
    python,
    stamp(python),
    site && stamp(site),
    site && stamp(path.join(site, 'torch', 'version.py')),
  ]);
}

/** The kept probe of `python` while it holds; a bare name (python3 on PATH, maybe a shim that switches interpreters) never. */
function keptProbe(python: string, file: string): PythonProbe | undefined {
  if (!path.isAbsolute(python)) return undefined;
  try {
    const kept = JSON.parse(readFileSync(file, 'utf8')) as { key: string; probe: PythonProbe };
    return kept.probe.version && kept.key === probeKey(python, kept.probe) ? kept.probe : undefined;
  } catch {
    return undefined; // none yet
  }
}

/**
 * What `python` has, and the run's Python-side interpreter: with the probe kept (file), no Python
 * starts now (a run with nothing else to do in Python starts none; the first harness to run starts
 * the session then); else the session starts now, answers the probe (kept for the next run) and
 * stays for the harnesses.
 */
export function probeOrStartSession(
  python: string,
  file: string,
  outDir: string,
): { probe: Promise<PythonProbe>; session?: PythonSession } {
  const kept = keptProbe(python, file);
  if (kept) return { probe: Promise.resolve(kept) };
  const session = new PythonSession(python, outDir);
  const probe = session.probe.then((p) => {
    if (p.version && path.isAbsolute(python)) {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify({ key: probeKey(python, p), probe: p }));
    }
    return p;
  });
  return { probe, session };
}
