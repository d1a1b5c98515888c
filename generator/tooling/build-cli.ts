// Build step (npm run build): the `opforge` command as one bundle, with esbuild. Node then loads a
// couple of files instead of ~120 (the generator's modules and yaml's), about 90 ms of a one-op
// `gen` on a 500-op project (docs/benchmarks.md).
// - dist/cli/opforge-main.cjs: the generator and its packages, CommonJS, so that the entry can
//   compile it with a V8 code cache (a vm script; Node 20 has no code cache for ES modules). The
//   runtime (build, run, test) is not bundled: it finds its files relative to dist/runtime/, and
//   is imported through runtime-import.ts by paths under dist/, resolved from the package root
//   (spec/pkg-root.ts finds it from the bundle too).
// - dist/cli/opforge.js: the entry (cli-entry.cts), the package's bin; CommonJS, like the bundle.

import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const outdir = fileURLToPath(new URL('../../cli/', import.meta.url));
const from = (f: string): string => fileURLToPath(new URL(f, import.meta.url));
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { 'opforge-main': from('../cli/cli.js') },
  outExtension: { '.js': '.cjs' },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir,
  // import.meta.url (pkg-root.ts, schema-check.ts) is the bundle's own URL. Injected, not a
  // banner: a banner would come before the bundle's "use strict".
  define: { 'import.meta.url': 'opforgeBundleUrl' },
  inject: [from('./bundle-meta-url.js'), from('./bundled-validator.js')],
  logLevel: 'warning',
});
await build({
  entryPoints: { opforge: from('../cli/cli-entry.cjs') },
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  outdir,
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
chmodSync(path.join(outdir, 'opforge.js'), 0o755); // the package's bin
// dist/cli/*.js are CommonJS (the package is "type": "module").
writeFileSync(path.join(outdir, 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
