// Injected into the command's bundle by esbuild (build-cli.ts): the precompiled schema validator
// (build-validator.ts, built before the bundle) becomes part of the bundle, so that it is
// code-cached with the rest (required on its own, compiling its 91 KB took ~6 ms of a one-op
// gen). Only meaningful there: `require` is the bundle's.

export const opforgeBundledValidator = (): unknown => require('../schema-validator.cjs');
