// load -> validate -> IR for a whole ops dir. Reports every error of every file together.

import path from 'node:path';
import { resolveProjectBackward } from './backward.js';
import { buildOp, type RawGradient } from './build-ir.js';
import { SpecErrors, type Diagnostic } from './diagnostics.js';
import type { OpIR, ProjectIR } from './ir.js';
import { diagAt, listSpecFiles, loadSpec, type LoadedSpec } from './load.js';
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
  const specs = new Map<OpIR, LoadedSpec>();
  const backward = new Map<OpIR, RawGradient[]>();
  const brokenNames = new Set<string>();
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
    const rawName = (spec.value as { name?: unknown } | null)?.name;
    if (schemaErrors.length) { diagnostics.push(...schemaErrors); if (typeof rawName === 'string') brokenNames.add(rawName); continue; }
    const built = buildOp(spec, { root });
    diagnostics.push(...built.errors);
    if (!built.op) { if (typeof rawName === 'string') brokenNames.add(rawName); continue; }
    const key = built.op.ident.snake;
    const prev = byName.get(key);
    if (prev) diagnostics.push(diagAt(spec, ['name'], `op \`${built.op.name}\` clashes with the op in ${prev} (same name or same snake_case form \`${key}\`)`));
    else byName.set(key, display);
    ops.push(built.op);
    specs.set(built.op, spec);
    if (built.backward) backward.set(built.op, built.backward);
  }
  // Backward declarations name other ops: resolved once every spec is in (a gradient op whose own
  // spec failed is not reported again as missing).
  diagnostics.push(...resolveProjectBackward(ops, backward, (op, p, m, o) => diagAt(specs.get(op)!, p, m, o ?? {}), brokenNames));
  if (diagnostics.length) throw new SpecErrors(diagnostics);
  ops.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ops, root, opsDir: path.relative(root, opsDir).split(path.sep).join('/') || '.' };
}
