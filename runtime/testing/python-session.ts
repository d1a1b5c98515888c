// The run's Python side, shared by every harness (the PyTorch side's, Paddle's, JAX's): the probe
// of what the Python has (torch, onnx, paddle, jax), kept between runs while that Python is
// unchanged, and the one interpreter that runs the harnesses one after another
// (runtime/python/opforge_session.py), or, without it, each harness in a Python of its own.

import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { PKG_ROOT } from '../../generator/pkg-root.js';

const pythonDir = path.join(PKG_ROOT, 'runtime', 'python');

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
const HARNESS_ENV = {
  PYTHONDONTWRITEBYTECODE: '1',
  GLOG_minloglevel: '2',
  TF_CPP_MIN_LOG_LEVEL: '2',
  // JAX takes most of a GPU's memory when it starts, by default: the PyTorch side needs its share.
  XLA_PYTHON_CLIENT_PREALLOCATE: 'false',
};

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
    /** false: import only what requests need; harnesses: import those harnesses' modules now. */
    opts: { warm?: boolean | readonly Harness[] } = {},
  ) {
    const warm =
      opts.warm === false ? ['--no-warm'] : Array.isArray(opts.warm) ? ['--warm-harnesses', opts.warm.join(',')] : [];
    this.child = spawn(python, [sessionScript, path.join(outDir, 'python'), ...warm], {
      env: { ...process.env, ...HARNESS_ENV },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
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
