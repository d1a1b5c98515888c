// Injected into the CommonJS bundle by esbuild (build-cli.ts), where it stands for import.meta.url
// (pkg-root.ts, schema-check.ts): the bundle's own URL. Only meaningful there: __filename is the
// bundle's module variable.
import { pathToFileURL } from 'node:url';

export const opforgeBundleUrl = pathToFileURL(__filename).href;
