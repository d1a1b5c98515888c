// How `npm test` spreads the test files over the machine's cores: each file is a job (one uvu
// process), and a job starts when a worker is free, the jobs it builds on have ended and none of the
// repo's shared build folders it uses is held by a running job. Most files work in their own
// temporary projects; those that build in the repo's build/ folders (the seed ops' PyTorch
// extension in build/torch, the repo project's default folders) take turns.
//
// What a file shares is read from its compiled text, so a new test is scheduled right without
// a table to keep: `path.join(root, 'build', 'x')` holds build/x; building or testing the repo
// project itself (runTests({ root, ... }), runOpforge(root, ...), build({ root, ... })) holds the
// repo project's default folders; a file that runs the suite runner itself runs alone.

/** The repo project's default build folders (runtime/: build/<backend>, build/kernels, build/test). */
const REPO_PROJECT = [
  'build/kernels',
  'build/test',
  'build/torch',
  'build/node',
  'build/jax',
  'build/ort',
  'build/paddle',
];

/** Every resource at once: a job holding this runs alone. */
export const EVERYTHING = '*';

const BUILD_FOLDER = /\(root, 'build', '([\w-]+)'/g;
const REPO_PROJECT_USE =
  /\b(?:runTests|build|buildOrtLibrary|buildJaxLibrary|buildTorchExtension)\(\{\s*root\s*[,}]|\brunOpforge\(root\b|\? dir : root\b/;

/** The shared folders (and the like) a test file's compiled text says it uses. */
export function sharedResources(text: string): string[] {
  if (text.includes('run-suite.js')) return [EVERYTHING];
  const found = new Set<string>();
  for (const m of text.matchAll(BUILD_FOLDER)) found.add(`build/${m[1]}`);
  if (REPO_PROJECT_USE.test(text)) for (const r of REPO_PROJECT) found.add(r);
  return [...found].sort();
}

export interface Job {
  id: string;
  /** Seconds it took last measured (a guess for new files): the longest runnable job starts first. */
  weight: number;
  resources: readonly string[];
  /** Jobs that must have ended first (the oldest-torch run of a file reuses what its first run built). */
  after: readonly string[];
}

/**
 * The next job to start, given what runs and what has ended; undefined: none can start now. A job
 * holding everything goes first (it would wait for an idle machine, which a queue that keeps
 * starting jobs never has), then the heaviest.
 */
export function nextJob<J extends Job>(
  waiting: readonly J[],
  running: readonly Job[],
  ended: ReadonlySet<string>,
): J | undefined {
  const held = new Set(running.flatMap((j) => j.resources));
  const free = (j: J): boolean =>
    j.resources.includes(EVERYTHING)
      ? running.length === 0
      : !held.has(EVERYTHING) && j.resources.every((r) => !held.has(r));
  const ready = waiting.filter((j) => j.after.every((a) => ended.has(a)) && free(j));
  const alone = (j: Job): number => (j.resources.includes(EVERYTHING) ? 1 : 0);
  const waitsAlone = waiting.some((j) => alone(j) && j.after.every((a) => ended.has(a)));
  // While one waits for the machine to empty, nothing else starts.
  if (waitsAlone && !ready.some(alone)) return undefined;
  return ready.sort((a, b) => alone(b) - alone(a) || b.weight - a.weight || a.id.localeCompare(b.id))[0];
}

/**
 * CPU seconds per file on a 2-core machine, from the suite's `slowest files` line (docs/testing.md,
 * 2026-11-29, b11aa06): only the order matters. Files not named here count as WEIGHT_UNKNOWN.
 */
export const WEIGHTS: Readonly<Record<string, number>> = {
  'hostile-calls': 231,
  installed: 229,
  specspace: 223,
  'opforge-test': 183,
  'mmdeploy-example': 181,
  torch: 121,
  'paddle-run': 113,
  'op-sets': 112,
  'variadic-outputs': 81,
  'user-ops': 73,
  'data-dims': 69,
  grad: 68,
  ort: 67,
  'node-binding': 53,
  jax: 40,
  'kernel-compiled-once': 39,
  'atomic-output-under-kill': 36,
  'benchmarks-smoke': 28,
  'legacy:opforge-test': 69,
  'legacy:specspace': 51,
};
export const WEIGHT_UNKNOWN = 30;
