// Where the runtime's tools are: every npm package it runs or compiles against (cmake-js,
// node-addon-api, onnxruntime-node, the ORT headers package) is found by Node module resolution,
// never by a fixed node_modules path, so opforge works installed in a user's project (npm hoists
// its dependencies to the project's node_modules) as well as cloned (docs/decisions.md).

import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/**
 * The directory of npm package `name`, resolved from opforge's own install (which finds a nested or
 * a hoisted copy), then from each of `from` (e.g. the user's project). A clear error when absent.
 */
export function packageDir(name: string, why: string, from: readonly string[] = []): string {
  for (const paths of [undefined, ...from.map((d) => [d])]) {
    try {
      return path.dirname(require.resolve(`${name}/package.json`, paths ? { paths } : undefined));
    } catch {
      /* next */
    }
  }
  throw new Error(`${why} needs the npm package ${name}: npm install ${name}`);
}

/** cmake-js's CLI script (run with process.execPath). */
export function cmakeJsBin(why = 'opforge build'): string {
  return path.join(packageDir('cmake-js', why), 'bin', 'cmake-js');
}

/** node-addon-api's include directory (absolute). */
export function nodeAddonApiDir(why = 'opforge build'): string {
  return packageDir('node-addon-api', why);
}
