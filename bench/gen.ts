// Generation benchmark: cold `gen`, no-op `gen` and a one-op change on N
// synthetic ops, each as a fresh `opforge` process; medians of repeated runs; peak RSS; and a
// byte-identity check across runs. Prints a Markdown table; `--write` updates docs/benchmarks.md.
// Usage: node dist/bench/gen.js [--ops 500] [--runs 5] [--write]

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { listTree } from '../generator/output/write-out.js';
import { writeGradientPairs, writeSyntheticOps } from './synth-ops.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'dist', 'cli', 'opforge.js');
const { values } = parseArgs({
  options: {
    ops: { type: 'string', default: '500' },
    runs: { type: 'string', default: '5' },
    write: { type: 'boolean', default: false },
  },
});
const N = Number(values.ops);
const RUNS = Number(values.runs);

interface Sample {
  ms: number;
  rssMiB: number;
}

/** The environment of the measured processes (the third pass leaves out NODE_EXTRA_CA_CERTS). */
let childEnv: NodeJS.ProcessEnv = process.env;

function gen(opsDir: string, outDir: string): Sample {
  // /usr/bin/time -f reports the child's peak RSS; fall back to wall time only.
  const t0 = performance.now();
  const r = spawnSync(
    '/usr/bin/time',
    ['-f', '%M', process.execPath, cli, 'gen', '--quiet', '--ops', opsDir, '--out', outDir],
    { encoding: 'utf8', env: childEnv },
  );
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`gen failed: ${r.stderr}`);
  const kb = Number(r.stderr.trim().split('\n').pop());
  return { ms, rssMiB: kb / 1024 };
}

/**
 * `gen --watch` on the project: per edit of `spec`, the time from the write to the op's Python
 * module holding the edit (polled every millisecond).
 */
async function watchLatency(
  opsDir: string,
  outDir: string,
  spec: string,
  orig: string,
  snake: string,
): Promise<Sample[]> {
  const child = spawn(process.execPath, [cli, 'gen', '--watch', '--ops', opsDir, '--out', outDir], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: childEnv,
  });
  let log = '';
  child.stdout.on('data', (d: Buffer) => {
    log += d.toString();
  });
  const until = async (ok: () => boolean, ms = 20000): Promise<void> => {
    const t0 = performance.now();
    while (!ok()) {
      if (performance.now() - t0 > ms) throw new Error(`gen --watch timed out; log:\n${log}`);
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  await until(() => log.includes('[opforge watch'));
  await new Promise((r) => setTimeout(r, 300)); // recursive watching is set up asynchronously
  const module = path.join(outDir, 'python', 'opforge_ops', 'ops', `${snake}.py`);
  const samples: Sample[] = [];
  for (let r = 0; r < RUNS; r++) {
    const mark = `watch edit ${r}`;
    const t0 = performance.now();
    writeFileSync(spec, orig.replace('Synthetic benchmark op', `Synthetic benchmark op (${mark})`));
    await until(() => {
      try {
        return readFileSync(module, 'utf8').includes(mark);
      } catch {
        return false;
      }
    });
    samples.push({ ms: performance.now() - t0, rssMiB: 0 });
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  return samples;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

interface Result {
  cold: Sample[];
  noop: Sample[];
  change: Sample[];
  grad: Sample[];
  watch: Sample[];
  node: Sample[];
  files: number;
  identical: boolean;
}

/** A bare `node -e 0`, interleaved with the no-op runs: how fast this (shared) machine starts Node now. */
function bareNode(): Sample {
  const t0 = performance.now();
  spawnSync(process.execPath, ['-e', '0'], { env: childEnv });
  return { ms: performance.now() - t0, rssMiB: 0 };
}

/**
 * All runs with out/ (and the specs) under `base`: first every cold run, each into a new directory,
 * then the no-op and one-op-change runs; trees are deleted only at the end, so that no run pays for
 * the kernel's deferred work from deleting the previous run's 8.5k files.
 */
async function measure(base: string): Promise<Result> {
  const work = mkdtempSync(path.join(base, 'opforge-bench-'));
  const opsDir = path.join(work, 'ops');
  writeSyntheticOps(opsDir, N);
  const res: Result = { cold: [], noop: [], change: [], grad: [], watch: [], node: [], files: 0, identical: true };
  const outs = Array.from({ length: RUNS }, (_, r) => path.join(work, `out${r}`));
  for (const out of outs) res.cold.push(gen(opsDir, out));
  let reference: Map<string, string> | undefined;
  for (const out of outs) {
    const snap = new Map(listTree(out).map((p) => [p, readFileSync(path.join(out, p), 'utf8')]));
    if (reference === undefined) reference = snap;
    else res.identical &&= snap.size === reference.size && [...snap].every(([p, c]) => reference!.get(p) === c);
  }
  for (const out of outs) {
    res.node.push(bareNode());
    res.noop.push(gen(opsDir, out));
  }
  const edited = Math.min(7, N - 1);
  const f = path.join(opsDir, `op_${String(edited).padStart(4, '0')}.yaml`);
  const orig = readFileSync(f, 'utf8');
  outs.forEach((out, r) => {
    writeFileSync(f, orig.replace('Synthetic benchmark op', `Synthetic benchmark op (edit ${r})`));
    res.change.push(gen(opsDir, out));
  });
  // The incremental out/ must be what a cold run of the edited specs writes.
  const cold = path.join(work, 'cold-edited');
  gen(opsDir, cold);
  const a = listTree(cold);
  const b = listTree(outs[RUNS - 1]!);
  res.identical &&=
    a.length === b.length &&
    a.every(
      (p, k) =>
        p === b[k] && readFileSync(path.join(cold, p), 'utf8') === readFileSync(path.join(outs[RUNS - 1]!, p), 'utf8'),
    );
  res.watch = await watchLatency(opsDir, outs[0]!, f, orig, `synth_op${edited}`);
  writeFileSync(f, orig);
  // A training project: N/2 forward ops, each with its gradient op; one forward op edited per run.
  const pairsDir = path.join(work, 'pairs');
  writeGradientPairs(path.join(pairsDir, 'ops'), Math.max(1, Math.floor(N / 2)));
  const fwd = path.join(pairsDir, 'ops', `fwd_${String(Math.min(7, Math.floor(N / 2) - 1)).padStart(4, '0')}.yaml`);
  const fwdText = readFileSync(fwd, 'utf8');
  gen(path.join(pairsDir, 'ops'), path.join(pairsDir, 'out'));
  for (let r = 0; r < RUNS; r++) {
    writeFileSync(fwd, fwdText.replace('Forward benchmark op', `Forward benchmark op (edit ${r})`));
    res.grad.push(gen(path.join(pairsDir, 'ops'), path.join(pairsDir, 'out')));
  }
  gen(path.join(pairsDir, 'ops'), path.join(pairsDir, 'cold'));
  const pa = listTree(path.join(pairsDir, 'cold'));
  const pb = listTree(path.join(pairsDir, 'out'));
  res.identical &&=
    pa.length === pb.length &&
    pa.every(
      (p, k) =>
        p === pb[k] &&
        readFileSync(path.join(pairsDir, 'cold', p), 'utf8') === readFileSync(path.join(pairsDir, 'out', p), 'utf8'),
    );
  res.files = reference?.size ?? 0;
  rmSync(work, { recursive: true, force: true });
  return res;
}

// The same runs on the machine's disk and, where there is one, on a RAM disk: the difference is the
// kernel's cost of creating the files, which on some disks exceeds the generator's own work.
const disk = await measure(os.tmpdir());
const ram = existsSync('/dev/shm') ? await measure('/dev/shm') : undefined;
// NODE_EXTRA_CA_CERTS (set on this VM) makes Node 20 read and parse the CA bundle at every start
// (~45 ms of each process here): the same runs without it show what opforge itself costs.
const { NODE_EXTRA_CA_CERTS: extraCerts, ...withoutCerts } = process.env;
let plain: Result | undefined;
if (extraCerts !== undefined) {
  childEnv = withoutCerts;
  plain = await measure(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir());
  childEnv = process.env;
}
const identical = disk.identical && (ram?.identical ?? true) && (plain?.identical ?? true);

const med = (s: Sample[]): string => `${median(s.map((x) => x.ms)).toFixed(0)} ms`;
const row = (name: string, k: 'cold' | 'noop' | 'change' | 'grad' | 'watch' | 'node', target: string): string =>
  `| ${name} | ${med(disk[k])} | ${ram ? med(ram[k]) : 'n/a'} | ${plain ? med(plain[k]) : 'n/a'} | ${k === 'watch' || k === 'node' ? '—' : `${Math.max(...disk[k].map((x) => x.rssMiB)).toFixed(0)} MiB`} | ${target} |`;
const table = [
  `Generation, ${N} synthetic ops (${disk.files} files), median of ${RUNS} runs, each a fresh \`opforge gen\` process on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, Node ${process.version}; out/ on the disk (${os.tmpdir()}) and on a RAM disk (/dev/shm), in this machine's environment${extraCerts !== undefined ? ', and on the RAM disk without its NODE_EXTRA_CA_CERTS (which costs Node 20 a read of the CA bundle at every start)' : ''}:`,
  '',
  '| step | median wall, disk | median wall, RAM disk | RAM disk, no NODE_EXTRA_CA_CERTS | peak RSS | target |',
  '|---|---|---|---|---|---|',
  row('cold gen (empty out/)', 'cold', '< 2000 ms'),
  row('no-op gen', 'noop', '< 150 ms'),
  row('one-op change (incremental)', 'change', '< 300 ms'),
  row(`one-op change, ${Math.max(1, Math.floor(N / 2))} forward ops with gradient ops instead`, 'grad', '< 300 ms'),
  row('`gen --watch`: save to written files', 'watch', '< 100 ms'),
  row('baseline: bare `node -e 0` (this machine now)', 'node', '—'),
  '',
  `Output byte-identical across cold runs, and the incremental run's to a cold run of the edited specs: ${identical ? 'yes' : 'NO'}.`,
].join('\n');
console.log(table);
if (!identical) process.exitCode = 1;
if (values.write) {
  const doc = path.join(root, 'docs', 'benchmarks.md');
  const begin = '<!-- bench:gen -->';
  const end = '<!-- /bench:gen -->';
  const cur = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Benchmarks\n\n';
  const block = `${begin}\n${table}\n${end}`;
  writeFileSync(
    doc,
    cur.includes(begin)
      ? cur.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block)
      : `${cur.trimEnd()}\n\n## Generation\n\n${block}\n`,
  );
}
