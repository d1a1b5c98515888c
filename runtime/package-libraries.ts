// `opforge package ort` and `opforge package trt`: the ONNX Runtime custom-op library and the
// TensorRT plugin library as artifacts, each a tarball of the built library, a README saying how
// to load it and which versions it was built against, and the same versions as build-info.json
// (docs/decisions.md, "Library artifacts").

import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { fillTemplate } from '../generator/emit/lang/template.js';
import type { ProjectIR } from '../generator/model/ir.js';
import { loadProject } from '../generator/model/project.js';
import { defineArgs, needsConfigure } from './cmake-cache.js';
import { buildOrtLibrary, ortIncludeDir } from './ort.js';
import { platformTag } from './package.js';
import { runLogged } from './run-logged.js';

export interface LibraryArtifactOptions {
  /** Project root holding the ops dir and out/ (default: the current directory). */
  root?: string;
  /** The ops dir (default: <root>/ops). */
  opsDir?: string;
  /** The generated directory (default: <root>/out). */
  outDir?: string;
  /** Where the tarball goes (default: packages). */
  dest?: string;
  /** With the CUDA kernels (always for TensorRT). */
  cuda?: boolean;
  onLine?: (line: string) => void;
}

/** What the architectures default to where $CUDAARCHS (CMake's own variable) does not say: Turing to Hopper. */
export const DEFAULT_CUDA_ARCHITECTURES = '75;80;86;89;90';

function project(opts: LibraryArtifactOptions): { root: string; outDir: string; ir: ProjectIR } {
  const root = path.resolve(opts.root ?? process.cwd());
  const outDir = path.resolve(opts.outDir ?? path.join(root, 'out'));
  const ir = loadProject({ opsDir: path.resolve(opts.opsDir ?? path.join(root, 'ops')), root });
  return { root, outDir, ir };
}

/** A `#define NAME value` of a header, following one level of `#define NAME OTHER`. */
function defineOf(header: string, name: string): string | undefined {
  const text = readFileSync(header, 'utf8');
  const value = new RegExp(`^#define ${name} (\\w+)`, 'm').exec(text)?.[1];
  if (value === undefined || /^\d+$/.test(value)) return value;
  return new RegExp(`^#define ${value} (\\d+)`, 'm').exec(text)?.[1];
}

/**
 * <dest>/<base>.tar.gz of one folder <base>: the `files` copied in (name -> path) and the `texts`
 * written there (name -> content); returns the tarball's path.
 */
async function tarball(
  stage: string,
  base: string,
  files: Record<string, string>,
  texts: Record<string, string>,
  dest: string,
): Promise<string> {
  rmSync(stage, { recursive: true, force: true });
  const dir = path.join(stage, base);
  mkdirSync(dir, { recursive: true });
  for (const [name, from] of Object.entries(files)) copyFileSync(from, path.join(dir, name));
  for (const [name, text] of Object.entries(texts))
    writeFileSync(path.join(dir, name), text.endsWith('\n') ? text : `${text}\n`);
  mkdirSync(dest, { recursive: true });
  const file = path.join(dest, `${base}.tar.gz`);
  const r = await execa('tar', ['-czf', file, '-C', stage, base], { reject: false });
  if (r.exitCode !== 0) throw new Error(`opforge package: tar failed (exit ${r.exitCode}): ${r.stderr}`);
  return file;
}

/** The ONNX Runtime custom-op library with its README; returns the tarball. */
export async function packageOrt(opts: LibraryArtifactOptions = {}): Promise<string> {
  const { root, outDir, ir } = project(opts);
  const library = await buildOrtLibrary({
    root,
    outDir,
    buildDir: path.join(root, 'build', 'ort-package'),
    ...(opts.cuda ? { cuda: { architectures: process.env.CUDAARCHS ?? DEFAULT_CUDA_ARCHITECTURES } } : {}),
    ...(opts.onLine ? { onLine: opts.onLine } : {}),
  });
  const apiVersion = defineOf(path.join(ortIncludeDir(), 'onnxruntime_c_api.h'), 'ORT_API_VERSION') ?? 'unknown';
  const name = ir.names.torchPackage;
  const base = `${name}-ort-${ir.version}-${platformTag()}`;
  const file = path.basename(library);
  const info = {
    name,
    version: ir.version,
    platform: platformTag(),
    library: file,
    ortApiVersion: Number(apiVersion),
    cuda: Boolean(opts.cuda),
    ops: ir.ops.map((o) => ({ op: o.name, domain: o.domain, version: o.version })),
  };
  const readme = fillTemplate('generator/static/md/ort-artifact-readme.md.tmpl', {
    name,
    version: ir.version,
    library: file,
    platform: platformTag(),
    flavour: opts.cuda ? 'CPU and CUDA kernels; the CUDA runtime must be installed' : 'CPU kernels',
    apiVersion,
    ops: ir.ops.map((o) => `| ${o.name} | \`${o.domain || 'ai.onnx'}\` | ${o.version} |`).join('\n'),
  });
  return tarball(
    path.join(root, 'build', 'artifacts', 'ort'),
    base,
    { [file]: library },
    { 'README.md': readme, 'build-info.json': JSON.stringify(info, null, 2) },
    path.resolve(opts.dest ?? 'packages'),
  );
}

/** TensorRT's include directory: $TENSORRT_INCLUDE_DIR, else $TENSORRT_ROOT/include. */
function trtInclude(): { include: string; root: string | undefined } {
  const root = process.env.TENSORRT_ROOT;
  const include = process.env.TENSORRT_INCLUDE_DIR ?? (root ? path.join(root, 'include') : undefined);
  if (!include || !existsSync(path.join(include, 'NvInferVersion.h')))
    throw new Error(
      'opforge package trt needs TensorRT: set TENSORRT_ROOT to its install (include/, lib/) or TENSORRT_INCLUDE_DIR to its include/',
    );
  return { include, root };
}

/** The TensorRT plugin library (and its self-registering variant where libnvinfer is found) with its README; returns the tarball. */
export async function packageTrt(opts: LibraryArtifactOptions = {}): Promise<string> {
  const { root, outDir, ir } = project(opts);
  const trt = trtInclude();
  const buildDir = path.join(root, 'build', 'trt-package');
  const archs = process.env.CUDAARCHS ?? DEFAULT_CUDA_ARCHITECTURES;
  const defs: Record<string, string> = {
    WITH_CUDA: 'ON',
    WITH_TENSORRT: 'ON',
    TENSORRT_INCLUDE_DIR: trt.include,
    ...(trt.root ? { TENSORRT_ROOT: trt.root } : {}),
    CMAKE_CUDA_ARCHITECTURES: archs,
    CMAKE_BUILD_TYPE: 'Release',
    OPFORGE_PROJECT_ROOT: root,
  };
  if (needsConfigure(buildDir, defs))
    await runLogged(
      'cmake',
      ['-S', outDir, '-B', buildDir, ...defineArgs(defs)],
      'cmake configure of out/trt',
      opts.onLine,
    );
  const autoregBuilt = readFileSync(path.join(buildDir, 'CMakeCache.txt'), 'utf8').match(
    /^TENSORRT_NVINFER_LIBRARY:FILEPATH=(?!.*NOTFOUND).+$/m,
  );
  const targets = ['opforge_trt_plugins', ...(autoregBuilt ? ['opforge_trt_plugins_autoreg'] : [])];
  await runLogged(
    'cmake',
    ['--build', buildDir, '--target', ...targets, '-j', String(os.availableParallelism())],
    'building the TensorRT plugin library',
    opts.onLine,
  );
  const header = path.join(trt.include, 'NvInferVersion.h');
  const trtVersion = ['MAJOR', 'MINOR', 'PATCH'].map((p) => defineOf(header, `NV_TENSORRT_${p}`) ?? '?').join('.');
  const nvcc = await execa('nvcc', ['--version'], { reject: false });
  const cudaVersion = /release (\d+\.\d+)/.exec(nvcc.stdout)?.[1] ?? 'unknown';
  const library = 'libopforge_trt_plugins.so';
  const autoregLibrary = 'libopforge_trt_plugins_autoreg.so';
  const name = ir.names.torchPackage;
  const readme = fillTemplate('generator/static/md/trt-artifact-readme.md.tmpl', {
    name,
    version: ir.version,
    library,
    autoregLibrary,
    platform: platformTag(),
    trtVersion,
    cudaVersion,
    archs: archs.split(';').join(', '),
    autoreg: autoregBuilt
      ? ` Beside it, \`${autoregLibrary}\` registers the same plugins when it is loaded (it links libnvinfer).`
      : ' (No libnvinfer was found at build time, so the self-registering variant for TensorRT 8.6 is not included.)',
    plugins: ir.ops.map((o) => `| ${o.name} | ${o.version} | (none) |`).join('\n'),
  });
  const info = {
    name,
    version: ir.version,
    platform: platformTag(),
    tensorrt: trtVersion,
    cuda: cudaVersion,
    cudaArchitectures: archs.split(';'),
    libraries: autoregBuilt ? [library, autoregLibrary] : [library],
    plugins: ir.ops.map((o) => ({ name: o.name, version: String(o.version), namespace: '' })),
  };
  return tarball(
    path.join(root, 'build', 'artifacts', 'trt'),
    `${name}-trt-${ir.version}-${platformTag()}`,
    {
      [library]: path.join(buildDir, 'trt', library),
      ...(autoregBuilt ? { [autoregLibrary]: path.join(buildDir, 'trt', autoregLibrary) } : {}),
    },
    { 'README.md': readme, 'build-info.json': JSON.stringify(info, null, 2) },
    path.resolve(opts.dest ?? 'packages'),
  );
}
