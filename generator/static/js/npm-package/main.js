// The project's ops with their prebuilt Node addon: node-gyp-build picks the addon of this
// platform from prebuilds/<platform>-<arch>/ (an N-API build: one per platform serves every Node
// version), and bind() gives one checked function per op. Nothing is compiled on install.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bind, bindAsync } from './index.js';

const require = createRequire(import.meta.url);

/** The prebuilt addon (for device(addon) and the like). */
export const addon = require('node-gyp-build')(fileURLToPath(new URL('.', import.meta.url)));
/** One function per op, run on the calling thread. */
export const ops = bind(addon);
/** The same functions, run off the JS thread; each returns a Promise. */
export const opsAsync = bindAsync(addon);
export * from './index.js';
