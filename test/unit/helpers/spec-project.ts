// Small projects written by a test: spec texts (and empty kernel files, which the spec model
// requires to exist) in a temporary directory, loaded in-process into the IR the emitters read.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SpecErrors, type Diagnostic } from '../../../generator/model/diagnostics.js';
import type { ProjectIR } from '../../../generator/model/ir.js';
import { loadProject } from '../../../generator/model/project.js';

/** Removes every project made here when the test process exits. */
const made: string[] = [];
process.on('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes `specs` (file name under ops/ -> YAML text) into a fresh project directory with an empty
 * file for every `kernels/...` path the texts mention; returns the directory.
 */
export function writeProject(specs: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-unit-'));
  made.push(dir);
  const ops = path.join(dir, 'ops');
  mkdirSync(path.join(ops, 'kernels'), { recursive: true });
  for (const [name, text] of Object.entries(specs)) {
    writeFileSync(path.join(ops, name), text);
    for (const m of text.matchAll(/\bkernels\/[\w./-]+/g)) writeFileSync(path.join(ops, m[0]), '');
  }
  return dir;
}

/** The project's IR; throws SpecErrors when a spec is invalid. */
export function loadSpecs(specs: Record<string, string>): ProjectIR {
  const dir = writeProject(specs);
  return loadProject({ opsDir: path.join(dir, 'ops'), root: dir });
}

/** The diagnostics loading the specs gives (none: the test fails). */
export function specErrors(specs: Record<string, string>): Diagnostic[] {
  try {
    loadSpecs(specs);
  } catch (e) {
    if (e instanceof SpecErrors) return e.diagnostics;
    throw e;
  }
  throw new Error('the specs validated');
}
