// Incremental build: build the generated CMake project, then (a) touch one op's
// kernel file and (b) change one op's spec and regenerate; count the objects the build reruns.
// Usage: node dist/bench/incremental.js [--write]

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, utimesSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate } from '../generator/output/gen.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const write = process.argv.includes('--write');

function run(cmd: string, args: string[], cwd: string): string {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** Objects compiled by one build step, from make's progress lines. */
function built(log: string): string[] {
  return log
    .split('\n')
    .filter((l) => /Building (CXX|CUDA) object/.test(l))
    .map((l) => l.replace(/.*object /, '').trim());
}

const work = mkdtempSync(path.join(os.tmpdir(), 'opforge-incr-'));
cpSync(path.join(root, 'ops'), path.join(work, 'ops'), { recursive: true });
cpSync(path.join(root, 'schema'), path.join(work, 'schema'), { recursive: true });
generate({ opsDir: path.join(work, 'ops'), outDir: path.join(work, 'out') });
const build = path.join(work, 'build');
run('cmake', ['-S', path.join(work, 'out'), '-B', build, '-DWITH_CUDA=OFF'], work);
const first = built(run('cmake', ['--build', build, '-j2'], work));
const noop = built(run('cmake', ['--build', build, '-j2'], work));
const kernel = path.join(work, 'ops', 'kernels', 'knn_query.cpp');
const later = new Date(); // now: newer than the objects, not in the future (make would keep rebuilding)
utimesSync(kernel, later, later);
const touched = built(run('cmake', ['--build', build, '-j2'], work));
const spec = path.join(work, 'ops', 'my_add.yaml');
writeFileSync(spec, readFileSync(spec, 'utf8').replace('2 * a + b for', '2 * a + b, for'));
generate({ opsDir: path.join(work, 'ops'), outDir: path.join(work, 'out') });
const respec = built(run('cmake', ['--build', build, '-j2'], work));
rmSync(work, { recursive: true, force: true });

const table = [
  `Incremental build of the generated CMake project (CPU kernels, ${first.length} objects), make -j2:`,
  '',
  '| step | objects rebuilt |',
  '|---|---|',
  `| first build | ${first.length} |`,
  `| nothing changed | ${noop.length} |`,
  `| touch ops/kernels/knn_query.cpp | ${touched.length} (${touched.map((o) => path.basename(o)).join(', ')}) |`,
  `| edit ops/my_add.yaml, \`opforge gen\` | ${respec.length} (${respec.map((o) => path.basename(o)).join(', ')}) |`,
].join('\n');
console.log(table);
const ok =
  noop.length === 0 &&
  touched.length === 1 &&
  touched[0]!.includes('knn_query') &&
  respec.every((o) => o.includes('my_add')) &&
  respec.length >= 1;
if (!ok) process.exitCode = 1;
if (write) {
  const doc = path.join(root, 'docs', 'benchmarks.md');
  const begin = '<!-- bench:incremental -->';
  const end = '<!-- /bench:incremental -->';
  const cur = existsSync(doc) ? readFileSync(doc, 'utf8') : '# Benchmarks\n';
  const block = `${begin}\n${table}\n${end}`;
  writeFileSync(
    doc,
    cur.includes(begin)
      ? cur.replace(new RegExp(`${begin}[\\s\\S]*${end}`), block)
      : `${cur.trimEnd()}\n\n## Incremental build\n\n${block}\n`,
  );
}
