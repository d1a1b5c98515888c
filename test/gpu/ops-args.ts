// `--ops DIR` and `--out DIR` for the GPU harnesses: which ops to check (default: the seed ops in
// ops/) and where their generated code is. For any ops dir but the seed one with its committed
// out/, the harness (re)generates first, into --out or a build directory of its own, so a
// user's ops are checked exactly like the seed ops. Kernel paths are relative to project.root.

import path from 'node:path';
import { generateIncremental } from '../../generator/output/incremental.js';
import type { ProjectIR } from '../../generator/spec/ir.js';
import { loadProject } from '../../generator/spec/project.js';
import { opsDir as seedOpsDir, outDir as seedOutDir, root as repoRoot } from '../helpers/paths.js';

export interface OpsArgs {
  project: ProjectIR;
  /** Directory holding the generated code (include/, trt/, node/, ...). */
  outDir: string;
  /** Whether these are the seed ops (checks written for them alone may run). */
  seed: boolean;
  /** The arguments left once --ops/--out are taken out. */
  rest: string[];
}

/** Takes --ops/--out out of argv; `genDir` is where a non-seed project is generated without --out. */
export function opsArgs(argv: string[], genDir: string): OpsArgs {
  const rest: string[] = [];
  let ops: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = /^--(ops|out)=(.*)$/.exec(a);
    if (eq) { if (eq[1] === 'ops') ops = eq[2]; else out = eq[2]; continue; }
    if (a === '--ops' || a === '--out') {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a directory`);
      if (a === '--ops') ops = v; else out = v;
      continue;
    }
    rest.push(a);
  }
  const opsDir = path.resolve(ops ?? seedOpsDir);
  const seed = opsDir === path.resolve(seedOpsDir);
  if (seed && (out === undefined || path.resolve(out) === path.resolve(seedOutDir))) return { project: loadProject({ opsDir }), outDir: seedOutDir, seed, rest };
  const outDir = path.resolve(out ?? genDir);
  const { project } = generateIncremental({ opsDir, outDir });
  process.stdout.write(`ops: ${path.relative(repoRoot, opsDir) || '.'} -> ${path.relative(repoRoot, outDir) || '.'}\n`);
  return { project: project ?? loadProject({ opsDir }), outDir, seed, rest };
}
