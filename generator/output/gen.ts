// The generator as a library: specs -> IR -> every emitter -> out/.

import path from 'node:path';
import type { GeneratedFile } from '../emit/emitter.js';
import { EMITTERS } from '../emit/index.js';
import type { ProjectIR } from '../model/ir.js';
import { kernelFiles } from '../model/ir-helpers.js';
import { loadProject } from '../model/project.js';
import { writeOut, type WriteResult } from './write-out.js';

export interface GenOptions {
  opsDir: string;
  outDir: string;
  root?: string;
  /** Emit only this op's files (project-wide files are still refreshed). */
  only?: string;
}

export function emitAll(project: ProjectIR): GeneratedFile[] {
  const files = EMITTERS.flatMap((e) => e.emit(project));
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function generate(opts: GenOptions): { project: ProjectIR; result: WriteResult; files: GeneratedFile[] } {
  const project = loadProject(
    opts.root === undefined ? { opsDir: opts.opsDir } : { opsDir: opts.opsDir, root: opts.root },
  );
  checkOutDir(project, opts.outDir);
  // Paths back into the project (CMake's kernel sources) are relative to where out/ really is.
  project.outDir = path.resolve(opts.outDir);
  let files = emitAll(project);
  let keep: ((p: string) => boolean) | undefined;
  if (opts.only !== undefined) {
    const only = opts.only;
    if (!project.ops.some((o) => o.name === only))
      throw new UsageError(`--only: no op named ${only} (ops: ${project.ops.map((o) => o.name).join(', ')})`);
    const otherOps = new Set(files.filter((f) => f.op !== undefined && f.op !== only).map((f) => f.path));
    files = files.filter((f) => f.op === undefined || f.op === only);
    keep = (p) => otherOps.has(p);
  }
  const result = writeOut(opts.outDir, files, keep);
  return { project, result, files };
}

export class UsageError extends Error {}

/**
 * The output directory is replaced as a whole (write-out.ts swaps in a new tree and deletes the
 * old one), so it must not hold the project: `--out specs` with the specs in specs/, or `--out .`
 * in the project, would delete the specs and kernels. Refused before anything is written.
 */
export function checkOutDir(project: ProjectIR, outDir: string): void {
  const out = path.resolve(outDir);
  // A prefix test on resolved paths (path.relative per kernel cost ~7 ms on 500 ops).
  const inside = out.endsWith(path.sep) ? out : out + path.sep;
  const holds = (p: string): boolean => {
    const r = path.resolve(p);
    return r === out || r.startsWith(inside);
  };
  const ops = path.resolve(project.root, project.opsDir);
  const kernels = project.ops.flatMap(kernelFiles);
  const what = holds(project.root)
    ? `the project root ${project.root}`
    : holds(ops)
      ? `the ops directory ${ops}`
      : kernels.filter((k) => holds(path.join(project.root, k))).map((k) => `the kernel ${k}`)[0];
  if (what !== undefined) {
    throw new UsageError(
      `--out ${outDir} holds ${what}; the output directory is replaced as a whole on every gen, so it must be a directory of its own (such as ${path.join(path.relative(process.cwd(), project.root) || '.', 'out')})`,
    );
  }
}
