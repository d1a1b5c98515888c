// The PyTorch extension's Python entry (opforge_torch_py) kept once per machine (machine-cache.ts): its source is the
// same file for every project (it finds each op by name in the dispatcher), so for one torch and
// one Python it is the same module in every project, and it is a fifth of a cold `opforge test`'s
// compiling (13 s of 96 on two cores). `opforge test` builds it with the project's extension the
// first time and keeps it in the cache; later builds of any project with that torch and Python
// configure the extension without it (-DOPFORGE_TORCH_PYTHON=OFF) and copy it beside the library.
// The key is the entry's source, the torch (where, and its libtorch_python's size and time: a
// reinstall over it changes them) and the Python (where it resolves to, and its executable).

import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { compileKey } from '../../compile-key.js';

/** The entry module's file: opforge_torch_py, or <prefix>_torch_py for a project with a namespace. */
export const ENTRY = /^\w+_torch_py\..*\.(so|pyd|dylib)$/;

const describe = (f: string): string => {
  if (!existsSync(f)) return `${f}: absent`;
  const s = statSync(f);
  return `${realpathSync(f)} ${s.size} ${s.mtimeMs}`;
};

/** The folder holding the entry built from `source` against the torch at `prefix` for `python`. */
export function entryCacheFolder(o: { cacheDir: string; source: string; prefix: string; python: string }): string {
  // prefix is torch.utils.cmake_prefix_path (<torch>/share/cmake); its libraries are in <torch>/lib.
  const lib = path.resolve(o.prefix, '..', '..', 'lib');
  const torchPython = existsSync(lib)
    ? readdirSync(lib)
        .filter((f) => /^libtorch_python\./.test(f))
        .sort()
    : [];
  const key = compileKey(
    [o.prefix, describe(o.python), ...torchPython.map((f) => describe(path.join(lib, f)))],
    [],
    [o.source],
  );
  return path.join(o.cacheDir, 'torch-entry', key.slice(0, 32));
}

/** The entry module in `dir` (a cache folder, or the build folder a build left it in), if any. */
export function entryIn(dir: string): string | undefined {
  const f = existsSync(dir) ? readdirSync(dir).find((n) => ENTRY.test(n)) : undefined;
  return f ? path.join(dir, f) : undefined;
}

/** Keeps `built` in `folder` (written aside, then renamed: a concurrent run sees all of it or none). */
export function keepEntry(built: string, folder: string): void {
  try {
    mkdirSync(folder, { recursive: true });
    const tmp = path.join(folder, `.${path.basename(built)}.${process.pid}`);
    copyFileSync(built, tmp);
    renameSync(tmp, path.join(folder, path.basename(built)));
  } catch {
    // A cache that cannot be written is only a slower next run.
  }
}

/** Puts the kept entry beside the library in `buildDir`, replacing any other entry there. */
export function placeEntry(kept: string, buildDir: string): void {
  const dest = path.join(buildDir, path.basename(kept));
  for (const f of readdirSync(buildDir)) if (ENTRY.test(f) && f !== path.basename(kept)) rmSync(path.join(buildDir, f));
  if (
    existsSync(dest) &&
    statSync(dest).size === statSync(kept).size &&
    statSync(dest).mtimeMs >= statSync(kept).mtimeMs
  )
    return;
  copyFileSync(kept, dest);
}
