// Op sets in the Python packages: two projects with their own namespaces (package.json's
// opforge.namespace), sharing an op name, are built and loaded in one Python process (PyTorch, and
// JAX where installed), each op running its own kernel; then a reference that imports a module
// this Python lacks breaks its own op alone (references load at their first call).

import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestReport } from '../runtime/testing/results.js';
import { hasModule, python, testWith } from './helpers/python.js';
import { runOpforge, seedProject } from './helpers/seed-project.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-op-sets-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const MISSING = 'opforge_absent_module_xyz';

/** A project of seed ops with `namespace` in its package.json; the specs name no domain (they take the namespace). */
function namespacedProject(name: string, namespace: string, ops: string[]): string {
  const dir = seedProject(path.join(tmp, name), ops);
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name, opforge: { namespace } }));
  for (const f of readdirSync(path.join(dir, 'ops')).filter((x) => x.endsWith('.yaml'))) {
    const spec = path.join(dir, 'ops', f);
    writeFileSync(spec, readFileSync(spec, 'utf8').replace(/^domain: .*\n/m, ''));
  }
  return dir;
}

/** Rewrites a file of the project (a kernel or reference) with `edit`, which must change it. */
function edit(dir: string, file: string, change: (text: string) => string): void {
  const f = path.join(dir, 'ops', 'kernels', file);
  const before = readFileSync(f, 'utf8');
  const after = change(before);
  assert.ok(after !== before, `${file} unchanged`);
  writeFileSync(f, after);
}

let beta: string | undefined;

/**
 * beta_ops: MyAdd (c = 3a + b; alpha's, the seed's, is 2a + b, kernels and references alike), its
 * gradient op and KNNQuery. Made once: the missing-module test breaks a reference of the project
 * the namespace test built, so it runs the harness again without building anything.
 */
function betaProject(): string {
  if (beta) return beta;
  const dir = namespacedProject('beta', 'beta_ops', ['my_add', 'my_add_grad', 'knn_query']);
  for (const f of ['my_add.cpp', 'my_add.cu', 'my_add_grad.cpp', 'my_add_grad.cu'])
    edit(dir, f, (t) => t.replace('C(2) *', 'C(3) *'));
  edit(dir, 'my_add_ref.py', (t) => t.replace('2 * a', '3 * a'));
  edit(dir, 'my_add_grad_ref.py', (t) => t.replace('2 * grad_c', '3 * grad_c'));
  beta = dir;
  return dir;
}

testWith(
  ['torch'],
  'two namespaced op sets sharing an op name build, load in one process and run their own kernels',
  () => {
    // JAX where this Python has it (the oldest-torch leg has none).
    const withJax = hasModule('jax');
    const alpha = namespacedProject('alpha', 'alpha_ops', ['my_add', 'my_add_grad']);
    const beta = betaProject();

    // opforge test in each: the extension, its gradients and the exported models agree with the references.
    for (const [dir, ns] of [
      [beta, 'beta_ops'],
      [alpha, 'alpha_ops'],
    ] as const) {
      const r = runOpforge(dir, ['test', '--json', '--backend', `torch,grad,export${withJax ? ',jax' : ''}`]);
      assert.is(r.status, 0, `${ns}: ${r.out}\n${r.err.slice(-3000)}`);
      const report = JSON.parse(r.out) as TestReport;
      assert.ok(report.ok);
      for (const b of ['torch', 'grad', 'ort-legacy', ...(withJax ? ['jax', 'jax-grad'] : [])])
        assert.ok(report.backends.includes(b), `${ns}: ${b}`);
      assert.ok(
        report.results.every((x) => x.status === 'ok' || x.status === 'skip'),
        JSON.stringify(report.results.filter((x) => x.status !== 'ok')),
      );
      assert.ok(report.results.some((x) => x.op === 'MyAdd' && x.backend === 'torch' && x.status === 'ok'));
      assert.is(report.env.extension, path.join(dir, 'build', 'torch', `lib${ns}_torch.so`));
      assert.match(String(report.env.entry), new RegExp(`/${ns}_torch_py\\.`));
    }

    // One process: both packages, each loading its own library (found beside its out/).
    const out = python(
      [
        'import sys, torch',
        `sys.path[:0] = [${JSON.stringify(path.join(alpha, 'out', 'python'))}, ${JSON.stringify(path.join(beta, 'out', 'python'))}]`,
        'import alpha_ops, beta_ops',
        'a = torch.tensor([1.0, 2.0], requires_grad=True)',
        'b = torch.tensor([10.0, 20.0])',
        'for m in (alpha_ops, beta_ops):',
        '    c = m.my_add(a, b)',
        '    (g,) = torch.autograd.grad(c.sum(), [a])',
        '    ns = getattr(torch.ops, m.TORCH_NAMESPACE)',
        '    print(m.__name__, m.backend("MyAdd"), m.extension_path().rsplit("/", 1)[1], m.OPS["MyAdd"].domain,',
        '          c.tolist(), g.tolist(), ns.my_add(a, b).tolist(), hasattr(m, "knn_query"))',
      ].join('\n'),
    );
    assert.is(
      out,
      [
        'alpha_ops extension libalpha_ops_torch.so alpha_ops [12.0, 24.0] [2.0, 2.0] [12.0, 24.0] False',
        'beta_ops extension libbeta_ops_torch.so beta_ops [13.0, 26.0] [3.0, 3.0] [13.0, 26.0] True',
        '',
      ].join('\n'),
    );
    if (!withJax) return;
    // The JAX packages too: each registers its own custom-call targets from its own library.
    const jaxOut = python(
      [
        'import sys, jax, jax.numpy as jnp',
        `sys.path[:0] = [${JSON.stringify(path.join(alpha, 'out', 'jax'))}, ${JSON.stringify(path.join(beta, 'out', 'jax'))}]`,
        'import alpha_ops_jax, beta_ops_jax',
        'a, b = jnp.array([1.0, 2.0]), jnp.array([10.0, 20.0])',
        'for m in (alpha_ops_jax, beta_ops_jax):',
        '    c = jax.jit(m.my_add)(a, b)',
        '    g = jax.grad(lambda x: m.my_add(x, b).sum())(a)',
        '    print(m.__name__, m.library_path().rsplit("/", 1)[1], c.tolist(), g.tolist())',
      ].join('\n'),
    );
    assert.is(
      jaxOut,
      [
        'alpha_ops_jax libalpha_ops_jax_ops.so [12.0, 24.0] [2.0, 2.0]',
        'beta_ops_jax libbeta_ops_jax_ops.so [13.0, 26.0] [3.0, 3.0]',
        '',
      ].join('\n'),
    );
  },
);

testWith(['torch'], 'a reference importing a missing module fails its own op alone, naming op and module', () => {
  const dir = betaProject();
  edit(dir, 'knn_query_ref.py', (t) => `import ${MISSING}\n${t}`);
  const named = new RegExp(
    `KNNQuery: its reference \\(ops/kernels/knn_query_ref\\.py\\) imports the module \`${MISSING}\`, which is not installed`,
  );

  // (beta_ops, after the namespace test built it.) The package imports; the other ops run their
  // references; the broken one says what is wrong.
  assert.is(runOpforge(dir, ['gen']).status, 0);
  const out = python(
    [
      'import torch, beta_ops as o',
      'x = torch.tensor([-2.0, 3.0])',
      'print(o.my_add(x, x).tolist(), o.backend("KNNQuery"))',
      'try:',
      '    i32 = torch.int32',
      '    o.knn_query(torch.zeros(4, 3), torch.tensor([4], dtype=i32), torch.zeros(2, 3), torch.tensor([2], dtype=i32), nsample=1)',
      'except ModuleNotFoundError as e:',
      '    print("error:", e.name, "|", e)',
    ].join('\n'),
    [],
    { PYTHONPATH: path.join(dir, 'out', 'python'), OPFORGE_TORCH_NO_EXTENSION: '1' },
  );
  assert.match(out, '[-8.0, 12.0] reference\n');
  assert.match(out, `error: ${MISSING} | `);
  assert.match(out, named);

  // opforge test: the two other ops run and agree on the torch columns; the broken one fails with that message.
  const r = runOpforge(dir, ['test', '--json', '--backend', 'torch,grad,export']);
  assert.is(r.status, 1, `${r.out}\n${r.err.slice(-3000)}`);
  const report = JSON.parse(r.out) as TestReport;
  for (const op of ['MyAdd', 'MyAddGrad'])
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
