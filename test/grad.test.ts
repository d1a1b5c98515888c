// Training (the spec's `backward`) with Debian's torch 1.13 on the CPU: the seed ops' gradients
// against PyTorch's own ops and gradcheck, through the compiled extension and through the
// reference-only package (test/python/grad_check.py); `opforge test`'s grad column on every case;
// a wrong gradient kernel fails there by op and case. torch >= 2.4's register_autograd,
// torch.compile and opcheck run on the GPU machine (docs/gpu.md).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { generate } from '../generator/output/gen.js';
import { runTests } from './helpers/run-tests.js';
import { buildTorchExtension } from '../runtime/testing/backends/pytorch/build.js';
import { probeTorch } from '../runtime/testing/python-session.js';
import { outDir, root } from './helpers/paths.js';
import { PYTHON, testWith } from './helpers/python.js';

function gradCheck(args: string[]): { summary: { ok: number; failed: number }; log: string } {
  const r = spawnSync(PYTHON, [path.join(root, 'test', 'python', 'grad_check.py'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') },
  });
  const log = `${r.stdout}\n${r.stderr}`;
  const last = r.stdout.trim().split('\n').pop() ?? '{}';
  return {
    summary: JSON.parse(last.startsWith('{') ? last : '{"ok":0,"failed":1}') as { ok: number; failed: number },
    log,
  };
}

testWith(
  ['torch'],
  "seed-op gradients = PyTorch's own ops, gradcheck, no-backward error, non-differentiable KNN, SGD steps: extension and reference",
  async () => {
    const torch = await probeTorch(PYTHON);
    assert.ok(torch.version, torch.why);
    const library = await buildTorchExtension({
      root,
      outDir,
      buildDir: path.join(root, 'build', 'torch'),
      prefix: torch.prefix!,
      python: PYTHON,
      cuda: false,
    });
    for (const args of [['--library', library], []]) {
      const r = gradCheck(args);
      assert.is(r.summary.failed, 0, r.log);
      assert.is(r.summary.ok, 18, r.log);
      assert.match(r.log, args.length ? 'backend extension' : 'backend reference');
    }
  },
);

testWith(
  ['torch'],
  'an op without backward: a gradient through it is an error naming the op and the spec field, inference is unchanged',
  () => {
    // test/fixtures/adapters' StridedScale declares no backward (reference-only package, torch 1.13).
    const out = mkdtempSync(path.join(os.tmpdir(), 'opforge-nobwd-'));
    const r0 = spawnSync(
      process.execPath,
      [
        path.join(root, 'dist', 'cli', 'opforge.js'),
        'gen',
        '--quiet',
        '--ops',
        path.join(root, 'test', 'fixtures', 'adapters', 'ops'),
        '--out',
        out,
      ],
      { encoding: 'utf8' },
    );
    assert.is(r0.status, 0, r0.stderr);
    const script = [
      'import torch, opforge_ops as oo',
      'x = torch.rand(3, 7, requires_grad=True)',
      'y = oo.strided_scale(x, stride=2, scale=1.5, mode="plain", enabled=True, pads=[1], weights=[0.5])',
      'print("inference ok", tuple(y.shape))',
      'try:',
      '    y.sum().backward()',
      '    print("no error")',
      'except RuntimeError as e:',
      '    print("error:", e)',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONPATH: path.join(out, 'python'),
        OPFORGE_TORCH_NO_EXTENSION: '1',
      },
    });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, 'inference ok (3, 4)');
    assert.match(
      r.stdout,
      /error: StridedScale: a gradient was requested through \S+::StridedScale, but its spec \(\S*strided_scale\.yaml\) declares no `backward`/,
    );
  },
);

testWith(
  ['torch'],
  'a mixed float/integer type variable: no silent zero gradient through an op without backward; its float binding trains with one (extension and reference)',
  async () => {
    // test/fixtures/mixed-grad: MixScale (T: [float32, int32], no backward) and MixAffine (the same
    // T, a backward whose gradient op covers float32 only). A parameter feeds each op, as in a model.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-mixed-'));
    cpSync(path.join(root, 'test', 'fixtures', 'mixed-grad', 'ops'), path.join(dir, 'ops'), { recursive: true });
    const report = await runTests({ root: dir, backends: ['torch', 'grad'], python: PYTHON });
    assert.ok(report.ok, JSON.stringify(report.results.filter((r) => r.status !== 'ok')));
    const grad = (op: string) =>
      report.results.filter((r) => r.op === op && r.backend === 'grad').map((r) => [r.case, r.status, r.message ?? '']);
    // Case 0 runs float32 (checked), case 1 int32 (no input takes a gradient).
    assert.equal(grad('MixScale'), [
      [0, 'ok', 'no backward: asking for a gradient raises the named error'],
      [1, 'skip', "no input takes a gradient with this case's dtypes (integer or bool)"],
    ]);
    assert.equal(
      grad('MixAffine').map((r) => r.slice(0, 2)),
      [
        [0, 'ok'],
        [1, 'skip'],
      ],
    );
    const library = path.join(dir, 'build', 'torch', 'libopforge_torch.so');
    for (const args of [[library], []]) {
      const r = spawnSync(PYTHON, [path.join(root, 'test', 'python', 'mixed_grad_check.py'), ...args], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PYTHONDONTWRITEBYTECODE: '1',
          PYTHONPATH: path.join(dir, 'out', 'python'),
          OPFORGE_TORCH_NO_EXTENSION: '1',
        },
      });
      assert.is(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout.trim().split('\n').pop()!) as { ok: number; failed: number; backend: string };
      assert.equal(
        [summary.failed, summary.ok, summary.backend],
        [0, 8, args.length ? 'extension' : 'reference'],
        r.stderr,
      );
    }
  },
);

testWith(
  ['torch'],
  "a backward changes only the Python, JAX and Paddle op modules, the Paddle op and the PyTorch extension's Autograd kernel: every other generated file, and the exported model, are the same without it",
  () => {
    const project = (name: string, withBackward: boolean): string => {
      const dir = mkdtempSync(path.join(os.tmpdir(), `opforge-bwd-${name}-`));
      for (const f of ['custom_relu.yaml', 'custom_relu_grad.yaml'])
        cpSync(path.join(root, 'ops', f), path.join(dir, 'ops', f));
      for (const f of ['custom_relu', 'custom_relu_grad'])
        for (const ext of ['.cpp', '.cu', '_ref.py'])
          cpSync(path.join(root, 'ops', 'kernels', `${f}${ext}`), path.join(dir, 'ops', 'kernels', `${f}${ext}`));
      if (!withBackward) {
        const spec = path.join(dir, 'ops', 'custom_relu.yaml');
        const text = readFileSync(spec, 'utf8');
        const without = text.replace(/^backward:\n(?: {2}.*\n)+/m, '');
        assert.ok(without !== text);
        writeFileSync(spec, without);
      }
      generate({ opsDir: path.join(dir, 'ops'), outDir: path.join(dir, 'out') });
      return dir;
    };
    const a = project('with', true),
      b = project('without', false);
    const files = (d: string): string[] =>
      readdirSync(path.join(d, 'out'), { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile() && !e.name.startsWith('.opforge-'))
        .map((e) => path.relative(path.join(d, 'out'), path.join(e.parentPath, e.name)))
        .sort();
    assert.equal(files(a), files(b));
    const differ = files(a).filter(
      (f) => readFileSync(path.join(a, 'out', f), 'utf8') !== readFileSync(path.join(b, 'out', f), 'utf8'),
    );
    assert.equal(differ, [
      'jax/opforge_jax/ops/custom_relu.py',
      'paddle/custom_relu/custom_relu_op.cc',
      'paddle/opforge_paddle/ops/custom_relu.py',
      'python/opforge_ops/ops/custom_relu.py',
      'torch/custom_relu.cpp',
    ]);
    // The legacy export of the op: the same model bytes with and without the backward.
    const script = [
      'import hashlib, io, torch, opforge_ops as oo',
      'class M(torch.nn.Module):',
      '    def forward(self, x):',
      '        return oo.custom_relu(x, alpha=0.25)',
      'f = io.BytesIO()',
      'torch.onnx.export(M(), (torch.rand(2, 3),), f, opset_version=17, **oo.export_options(dynamo=False))',
      'print(hashlib.sha256(f.getvalue()).hexdigest())',
    ].join('\n');
    const hashes = [a, b].map((d) => {
      const r = spawnSync(PYTHON, ['-c', script], {
        encoding: 'utf8',
        env: {
          ...process.env,
          PYTHONDONTWRITEBYTECODE: '1',
          PYTHONPATH: path.join(d, 'out', 'python'),
          OPFORGE_TORCH_NO_EXTENSION: '1',
        },
      });
      assert.is(r.status, 0, r.stderr);
      return r.stdout.trim();
    });
    assert.is(hashes[0], hashes[1]);
  },
);

testWith(['torch'], "the README's training example converges through the compiled extension", () => {
  const r = spawnSync(PYTHON, [path.join(root, 'examples', 'training', 'train.py')], {
    encoding: 'utf8',
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') },
  });
  assert.is(r.status, 0, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, /loss \d+\.\d+ -> \d+\.\d+ \(extension kernels, cpu\)/); // the script asserts the loss fell 5x
});

testWith(
  ['torch'],
  'opforge test --backend grad: every case of every op with a backward passes; a wrong gradient kernel fails by op and case',
  async () => {
    const report = await runTests({ root, backends: ['grad'], python: PYTHON });
    assert.ok(report.ok, JSON.stringify(report.results.filter((r) => r.status === 'fail')));
    const ok = (op: string) =>
      report.results.filter((r) => r.op === op && r.backend === 'grad' && r.status === 'ok').length;
    assert.is(ok('CustomRelu'), 4);
    assert.is(ok('LeakyRelu'), 3);
    assert.is(ok('MyAdd'), 2);
    assert.is(ok('DynamicTRTResize'), 3);
    assert.ok(
      report.results.some(
        (r) => r.op === 'KNNQuery' && r.status === 'skip' && /not differentiable/.test(r.message ?? ''),
      ),
    );

    // A project with CustomRelu and a gradient kernel that doubles alpha: cases 1 (alpha 0.25) and 3 (alpha -0.5) fail.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-grad-'));
    for (const f of ['custom_relu.yaml', 'custom_relu_grad.yaml'])
      cpSync(path.join(root, 'ops', f), path.join(dir, 'ops', f));
    for (const f of ['custom_relu', 'custom_relu_grad'])
      for (const ext of ['.cpp', '.cu', '_ref.py'])
        cpSync(path.join(root, 'ops', 'kernels', `${f}${ext}`), path.join(dir, 'ops', 'kernels', `${f}${ext}`));
    const kernel = path.join(dir, 'ops', 'kernels', 'custom_relu_grad.cpp');
    const text = readFileSync(kernel, 'utf8');
    const wrong = text.replace('const C scaled = alpha * g;', 'const C scaled = C(2) * alpha * g;');
    assert.ok(wrong !== text);
    writeFileSync(kernel, wrong);
    const bad = await runTests({ root: dir, backends: ['grad'], python: PYTHON, only: ['CustomRelu'] });
    assert.not.ok(bad.ok);
    const failed = bad.results.filter((r) => r.status === 'fail');
    assert.equal(
      failed.map((r) => [r.op, r.case, r.backend]),
      [
        ['CustomRelu', 1, 'grad'],
        ['CustomRelu', 3, 'grad'],
      ],
    );
    for (const f of failed) assert.match(f.message!, /gradient of x\[\d+\] = .*autograd of the reference gives/);
  },
);

test.run();
