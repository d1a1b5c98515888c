// load -> validate -> IR for a whole ops dir. Reports every error of every file together.

import path from 'node:path';
import { buildOp } from './build-ir.js';
import { SpecErrors, type Diagnostic } from './diagnostics.js';
import type { OpIR, ProjectIR } from './ir.js';
import { diagAt, listSpecFiles, loadSpec } from './load.js';
import { checkSchema } from './schema-check.js';

export interface ProjectOptions {
  /** Directory holding the *.yaml specs. */
  opsDir: string;
  /** Project root: kernel files must lie inside it; paths in messages are relative to it. Default: parent of opsDir. */
  root?: string;
}

/** Loads and validates every spec; throws SpecErrors with all diagnostics when any spec is invalid. */
export function loadProject(opts: ProjectOptions): ProjectIR {
  const opsDir = path.resolve(opts.opsDir);
  const root = path.resolve(opts.root ?? path.dirname(opsDir));
  const diagnostics: Diagnostic[] = [];
  const ops: OpIR[] = [];
  const byName = new Map<string, string>();
  let files: string[];
  try {
    files = listSpecFiles(opsDir);
  } catch (e) {
    throw new SpecErrors([{ file: opts.opsDir, line: 1, col: 1, path: '(dir)', message: `cannot read the ops directory: ${(e as Error).message}` }]);
  }
  if (files.length === 0) throw new SpecErrors([{ file: opts.opsDir, line: 1, col: 1, path: '(dir)', message: 'no *.yaml specs found' }]);
  for (const file of files) {
    const display = path.relative(process.cwd(), file) || file;
    const { spec, errors } = loadSpec(file, display);
    diagnostics.push(...errors);
    if (!spec) continue;
    const schemaErrors = checkSchema(spec);
    if (schemaErrors.length) { diagnostics.push(...schemaErrors); continue; }
    const built = buildOp(spec, { root });
    diagnostics.push(...built.errors);
    if (!built.op) continue;
    const key = built.op.ident.snake;
    const prev = byName.get(key);
    if (prev) diagnostics.push(diagAt(spec, ['name'], `op \`${built.op.name}\` clashes with the op in ${prev} (same name or same snake_case form \`${key}\`)`));
    else byName.set(key, display);
    ops.push(built.op);
  }
  if (diagnostics.length) throw new SpecErrors(diagnostics);
  ops.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ops, root, opsDir: path.relative(root, opsDir).split(path.sep).join('/') || '.' };
}
