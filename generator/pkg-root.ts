// Where the package's files are, for the modules that read them at run time (the static sources
// emitters copy, the schema, the precompiled validator, the generator digest). Found by walking up
// from this module to the folder holding schema/op.schema.json, so that it holds both in
// dist/generator/model/ and in the CLI bundle (dist/cli/), whose import.meta.url is the bundle's.

import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

function findRoot(from: URL): URL {
  for (let dir = new URL('./', from); ; dir = new URL('../', dir)) {
    if (existsSync(new URL('schema/op.schema.json', dir))) return dir;
    if (dir.pathname === '/')
      throw new Error(`opforge: no schema/op.schema.json above ${fileURLToPath(from)} (a broken install?)`);
  }
}

/** The package root as a URL ending in `/`. */
export const PKG_ROOT_URL = findRoot(new URL(import.meta.url));
/** The package root as a path. */
export const PKG_ROOT = fileURLToPath(PKG_ROOT_URL);
