// Where the package's files are, for the modules that read them at run time (the static sources
// emitters copy, the schema, the precompiled validator, the generator digest). One place, so that
// the CLI bundle (dist/cli/, the same depth as dist/generator/) finds them too.

import { fileURLToPath } from 'node:url';

/** The package root as a URL ending in `/` (this module is in dist/generator/ or dist/cli/). */
export const PKG_ROOT_URL = new URL('../../', import.meta.url);
/** The package root as a path. */
export const PKG_ROOT = fileURLToPath(PKG_ROOT_URL);
