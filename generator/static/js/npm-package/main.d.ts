// Types of the project's ops with their prebuilt Node addon (main.js).
import type { AsyncOps, Ops } from './index.js';

export * from './index.js';
/** The prebuilt addon (for device(addon) and the like). */
export declare const addon: unknown;
/** One function per op, run on the calling thread. */
export declare const ops: Ops;
/** The same functions, run off the JS thread; each returns a Promise. */
export declare const opsAsync: AsyncOps;
