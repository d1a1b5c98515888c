// Build step (npm run build): the `opforge` command as one bundle, dist/cli/opforge.js, with
// esbuild. Node then loads a handful of files instead of ~120 (the generator's modules and yaml's),
// about 90 ms of a one-op `gen` on a 500-op project (docs/benchmarks.md). Lazily loaded commands
// stay separate chunks; the runtime (build, run, test) is not bundled: it finds its files relative
// to dist/runtime/. dist/cli/ is as deep as dist/generator/, so pkg-root.ts holds in both.

import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../cli/', import.meta.url));
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { opforge: fileURLToPath(new URL('./cli.js', import.meta.url)) },
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outdir,
  external: ['../runtime/*'],
  // yaml and ajv are CommonJS: their require() calls need a real require in an ES module.
  banner: { js: "import { createRequire as opforgeCreateRequire } from 'node:module'; const require = opforgeCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
