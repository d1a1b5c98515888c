// Op sets in the Python packages: a reference that imports a module this Python lacks breaks its
// own op alone (references load at their first call).

import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestReport } from '../runtime/testing/results.js';
import { root } from './helpers/paths.js';
import { PYTHON, python, testWith } from './helpers/python.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');
const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-op-sets-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

function opforge(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, OPFORGE_PYTHON: PYTHON, ...env },
    maxBuffer: 64 << 20,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** A project holding copies of seed ops (spec and kernel files). */
function seedProject(name: string, ops: string[]): string {
  const dir = path.join(tmp, name);
  for (const op of ops) {
    cpSync(path.join(root, 'ops', `${op}.yaml`), path.join(dir, 'ops', `${op}.yaml`));
    for (const ext of ['.cpp', '.cu', '_ref.py', '_impl.h']) {
      try {
        cpSync(path.join(root, 'ops', 'kernels', `${op}${ext}`), path.join(dir, 'ops', 'kernels', `${op}${ext}`));
      } catch {
        /* not every op has every file */
      }
    }
  }
  return dir;
}

const MISSING = 'opforge_absent_module_xyz';

testWith(['torch'], 'a reference importing a missing module fails its own op alone, naming op and module', () => {
  const dir = seedProject('lazy', ['knn_query', 'leaky_relu', 'leaky_relu_grad']);
  const ref = path.join(dir, 'ops', 'kernels', 'knn_query_ref.py');
  writeFileSync(ref, `import ${MISSING}\n${readFileSync(ref, 'utf8')}`);
  const named = new RegExp(
    `KNNQuery: its reference \\(ops/kernels/knn_query_ref\\.py\\) imports the module \`${MISSING}\`, which is not installed`,
  );

  // The package imports; the other ops run their references; the broken one says what is wrong.
  assert.is(opforge(dir, ['gen']).status, 0);
  const out = python(
    [
      'import torch, opforge_ops as o',
      'x = torch.tensor([-2.0, 3.0])',
      'print(o.leaky_relu(x, alpha=0.5).tolist(), o.backend("KNNQuery"))',
      'try:',
      '    i32 = torch.int32',
      '    o.knn_query(torch.zeros(4, 3), torch.tensor([4], dtype=i32), torch.zeros(2, 3), torch.tensor([2], dtype=i32), nsample=1)',
      'except ModuleNotFoundError as e:',
      '    print("error:", e.name, "|", e)',
    ].join('\n'),
    [],
    { PYTHONPATH: path.join(dir, 'out', 'python'), OPFORGE_TORCH_NO_EXTENSION: '1' },
  );
  assert.match(out, '[-1.0, 3.0] reference\n');
  assert.match(out, `error: ${MISSING} | `);
  assert.match(out, named);

  // opforge test: the two other ops run and agree on the torch columns; the broken one fails with that message.
  const r = opforge(dir, ['test', '--json', '--backend', 'torch,grad,export']);
  assert.is(r.status, 1, `${r.out}\n${r.err.slice(-3000)}`);
  const report = JSON.parse(r.out) as TestReport;
  for (const op of ['LeakyRelu', 'LeakyReluGrad'])
    for (const b of ['torch', 'grad', 'ort-legacy']) {
      const rows = report.results.filter((x) => x.op === op && x.backend === b);
      assert.ok(rows.length > 0, `${op} [${b}] ran`);
      assert.ok(
        rows.every((x) => x.status === 'ok'),
        `${op} [${b}]: ${JSON.stringify(rows)}`,
      );
    }
  const failed = report.results.filter((x) => x.status === 'fail');
  assert.ok(failed.length > 0);
  for (const x of failed) {
    assert.is(x.op, 'KNNQuery', JSON.stringify(x));
    assert.match(x.message ?? '', named);
  }
});

test.run();
