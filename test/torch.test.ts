// The PyTorch backend against real torch and onnx (Debian's torch 1.13 / onnx 1.12 in CI): the
// generated extension builds with -Wall -Wextra -Werror and matches the spec's PyTorch reference on
// every spec case; every op exports through the legacy exporter as one custom node with the
// right attributes, opset import and inferred shapes (test/python/torch_ops_check.py).

import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { loadProject } from '../generator/model/project.js';
import { sh } from './helpers/cxx.js';
import { root, opsDir, outDir } from './helpers/paths.js';
import { buildTorchExtension, forgetOtherTorch } from '../runtime/testing/backends/pytorch/build.js';
import { machineCacheDir } from '../runtime/machine-cache.js';
import { PYTHON, TORCH_TAG, python, testWith } from './helpers/python.js';
import { runTests } from './helpers/run-tests.js';

const buildDir = path.join(root, 'build', 'torch');
const modelsDir = path.join(root, 'build', 'models');
const library = path.join(buildDir, 'libopforge_torch.so');

interface Summary {
  ok: number;
  failed: number;
  checks: Record<string, number>;
}

function runCheck(args: string[]): { summary: Summary; log: string; status: number | null } {
  const r = spawnSync(PYTHON, [path.join(root, 'test', 'python', 'torch_ops_check.py'), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') },
  });
  const lines = r.stdout.trim().split('\n');
  return {
    summary: JSON.parse(lines[lines.length - 1] ?? '{}') as Summary,
    log: `${r.stdout}\n${r.stderr}`,
    status: r.status,
  };
}

testWith(['torch'], 'the extension builds against the installed torch, warnings as errors', () => {
  mkdirSync(buildDir, { recursive: true });
  const prefix = python('import torch.utils; print(torch.utils.cmake_prefix_path)').trim();
  forgetOtherTorch(buildDir, prefix, PYTHON); // build/torch is shared with `opforge test`, which may have used another torch
  sh('cmake', [
    '-S',
    path.join(outDir, 'torch'),
    '-B',
    buildDir,
    '-DCMAKE_BUILD_TYPE=Release',
    `-DCMAKE_PREFIX_PATH=${prefix}`,
    `-DPython3_EXECUTABLE=${PYTHON}`,
  ]);
  // Every unit, the extension's own included: the flags are set in out/, which this project adds.
  const commands = JSON.parse(readFileSync(path.join(buildDir, 'compile_commands.json'), 'utf8')) as {
    file: string;
    command: string;
  }[];
  assert.ok(
    commands.some((c) => /opforge_torch\.dir/.test(c.command)),
    'no extension unit in compile_commands.json',
  );
  for (const c of commands)
    assert.ok(/ -Wall -Wextra -Werror /.test(c.command), `${c.file} compiles without -Wall -Wextra -Werror`);
  sh('cmake', ['--build', buildDir, '-j2']);
});

testWith(
  ['torch'],
  'extension = reference on every spec case; legacy export gives the custom node, attributes and shapes',
  () => {
    const project = loadProject({ opsDir });
    const r = runCheck(['--library', library, '--save-models', modelsDir]);
    assert.is(r.status, 0, r.log);
    assert.is(r.summary.failed, 0, r.log);
    const cases = project.ops.reduce((n, op) => n + op.tests.length, 0);
    const outputs = project.ops.reduce((n, op) => n + op.tests.length * op.outputs.length, 0);
    const attrs = project.ops.reduce((n, op) => n + op.tests.length * op.attributes.length, 0);
    // Every case ran every check: a silently skipped case fails here.
    assert.is(r.summary.checks.parity, outputs, r.log);
    assert.is(r.summary.checks.node, cases, r.log);
    assert.is(r.summary.checks.attr ?? 0, attrs, r.log);
    assert.is(r.summary.checks.opset, cases, r.log);
    assert.is(r.summary.checks.shape, outputs, r.log);
    assert.is(r.summary.checks.error, 7, r.log);
    // The Python entry: built, and bit for bit torch.ops' entry on every case, with the case's
    // attributes and with the schema's defaults; what it does not take goes to torch.ops' entry.
    assert.is(r.summary.checks['entry-built'], 1, r.log);
    assert.is(r.summary.checks.entry, cases, r.log);
    assert.is(r.summary.checks['entry-fallback'], 12, r.log);
  },
);

testWith(
  ['torch'],
  'importing the package loads no dynamo; its registration is still marked constant for dynamo',
  () => {
    // torch.compiler.assume_constant_result imports all of dynamo (2.5 s per import of the package)
    // to set one attribute; the package sets it itself (generator/static/python/opforge_ops/_register.py).
    // If a torch marks functions otherwise, the second line fails, and ops first called inside a
    // torch.compile(fullgraph=True) region would stop compiling.
    const out = python(
      `
import sys, json, torch, opforge_ops
from opforge_ops import _register
loaded = "torch._dynamo" in sys.modules
api = hasattr(getattr(torch, "compiler", None), "assume_constant_result")
f = lambda: 0
if api:
    torch.compiler.assume_constant_result(f)
print(json.dumps({"dynamo_loaded": loaded, "api": api, "attr": getattr(f, "_dynamo_marked_constant", None),
                  "marked": getattr(_register._register, "_dynamo_marked_constant", None)}))
`,
      [],
      { PYTHONPATH: path.join(outDir, 'python') },
    );
    const r = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.is(r.dynamo_loaded, false, out);
    // (torch 1.13 of the oldest-torch leg has no torch.compiler, and nothing to mark.)
    if (r.api) assert.equal({ attr: r.attr, marked: r.marked }, { attr: true, marked: true }, out);
  },
);

testWith(['torch'], 'without the extension the package runs the reference and still exports', () => {
  const r = runCheck(['--no-legacy']);
  assert.is(r.status, 0, r.log);
  assert.is(r.summary.checks.backend, 9, r.log);
  assert.is(r.summary.checks.parity ?? 0, 0, r.log);
});

testWith(
  ['torch'],
  'every attribute type and an optional input (fixture project): build, parity, legacy export',
  async () => {
    // test/fixtures/adapters: StridedScale has an optional input, all six attribute types and a
    // shape expression over an attribute (ceil_div(x[1], stride)).
    const r = await fixtureCheck('adapters');
    assert.is(r.status, 0, r.log);
    const { summary } = r;
    // 2 cases: parity of y, one node each, 6 attributes each with name, type and value checked; the
    // Python entry converts every attribute type and the optional input as torch.ops does (bit for bit).
    assert.equal(
      [summary.checks.parity, summary.checks.node, summary.checks.attr, summary.checks.shape, summary.checks.entry],
      [2, 2, 12, 2, 2],
      r.log,
    );
  },
);

/**
 * Generates a fixture project into build/, builds its extension (-Werror, from out/) as `opforge
 * test` does (op units in unity batches, the machine's Python entry where one was built from the
 * same source; the first test builds the seed ops as a user's cmake does) and runs the checks on it.
 */
async function fixtureCheck(name: string): Promise<{ summary: Summary; log: string; status: number | null }> {
  const { out, library } = await fixtureBuild(name);
  const r = spawnSync(PYTHON, [path.join(root, 'test', 'python', 'torch_ops_check.py'), '--library', library], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(out, 'python') },
  });
  const lines = r.stdout.trim().split('\n');
  return {
    summary: JSON.parse(lines[lines.length - 1] ?? '{}') as Summary,
    log: `${r.stdout}\n${r.stderr}`,
    status: r.status,
  };
}

const fixtureBuilds = new Map<string, Promise<{ out: string; library: string }>>();

/** A fixture's generated out/ and built extension, made once per file run (later tests reuse it). */
function fixtureBuild(name: string): Promise<{ out: string; library: string }> {
  let built = fixtureBuilds.get(name);
  if (built === undefined) {
    built = buildFixture(name);
    fixtureBuilds.set(name, built);
  }
  return built;
}

async function buildFixture(name: string): Promise<{ out: string; library: string }> {
  const fixture = path.join(root, 'test', 'fixtures', name);
  const out = path.join(root, 'build', `${name}-torch-out`);
  const build = path.join(root, 'build', `${name}-torch-build-${TORCH_TAG}`);
  sh(process.execPath, [
    path.join(root, 'dist', 'cli', 'opforge.js'),
    'gen',
    '--quiet',
    '--ops',
    path.join(fixture, 'ops'),
    '--out',
    out,
  ]);
  const library = await buildTorchExtension({
    root: fixture,
    outDir: out,
    buildDir: build,
    prefix: python('import torch.utils; print(torch.utils.cmake_prefix_path)').trim(),
    python: PYTHON,
    cuda: false,
    entryCacheDir: machineCacheDir(),
  });
  return { out, library };
}

testWith(
  ['torch'],
  'edge-case shapes (fixture edges): outputs of attributes only, constants and rank 0 build -Werror and match the reference',
  async () => {
    // SegmentSum: y [num_segments], hist [2, 2], total [], workspace num_segments * 8; ConstFill:
    // no attributes, y [3]. The op core used to name inferShapes' unused `inputs`: no build at all.
    // ListScale: floats/ints attributes with non-empty defaults; the extension used to append the
    // given floats to the default (scales=[2.0] ran as [1.0, 2.0]); its n output reports the lengths.
    const project = loadProject({ opsDir: path.join(root, 'test', 'fixtures', 'edges', 'ops') });
    const r = await fixtureCheck('edges');
    assert.is(r.status, 0, r.log);
    const outputs = project.ops.reduce((n, op) => n + op.tests.length * op.outputs.length, 0);
    assert.is(r.summary.checks.parity, outputs, r.log);
    assert.is(r.summary.checks.shape, outputs, r.log);
    assert.is(r.summary.checks.backend, project.ops.length, r.log);
    assert.is(
      r.summary.checks.entry,
      project.ops.reduce((n, op) => n + op.tests.length, 0),
      r.log,
    );
  },
);

testWith(
  ['torch'],
  "CUDA tensors to an op without kernels.cuda: a clear error naming the op, not the dispatcher's (checked on the CPU)",
  async () => {
    // Every op registers for the CUDA key (before, only ops with kernels.cuda, and only in a CUDA
    // build: CUDA tensors met "Could not run 'opforge::...' with arguments from the 'CUDA' backend").
    // No GPU here: the registration, the Python layer's check (a stand-in with a CUDA device) and the
    // C++ message in the library; scripts/gpu/check.sh (part device) runs real CUDA tensors.
    const check = (pythonPath: string, lib: string, ops: string[]): Record<string, unknown> =>
      JSON.parse(
        python(
          `
import importlib, json, sys, types, torch, opforge_ops
from opforge_ops import _runtime as rt
cuda = types.SimpleNamespace(device=torch.device("cuda", 0))
result = {}
for snake in sys.argv[2:]:
    op = importlib.import_module("opforge_ops.ops." + snake)._OP
    before = None
    try:
        rt.check_device(op, [cuda])  # the reference runs on any device: no error yet
    except RuntimeError as e:
        before = str(e)
    result[snake] = {"has_cuda": op.has_cuda, "before_load": before}
opforge_ops.load_library(sys.argv[1])
blob = open(sys.argv[1], "rb").read()
for snake in sys.argv[2:]:
    op = importlib.import_module("opforge_ops.ops." + snake)._OP
    r = result[snake]
    r["cuda_key"] = torch._C._dispatch_has_kernel_for_dispatch_key(op.qualname, "CUDA")
    try:
        rt.check_device(op, [cuda])
        r["error"] = None
    except RuntimeError as e:
        r["error"] = str(e)
    # The compiled extension raises the same text (opforge/torch/op_base.h checkDevice).
    r["in_library"] = rt.no_cuda_kernel_message(op)[len(op.name):].encode() in blob
print(json.dumps(result))
`,
          [lib, ...ops],
          { PYTHONPATH: pythonPath },
        )
          .trim()
          .split('\n')
          .pop()!,
      );
    // The edges fixture's build from the test above (built here when run alone).
    const edgesBuild = await fixtureBuild('edges');
    const edges = check(path.join(edgesBuild.out, 'python'), edgesBuild.library, ['const_fill', 'segment_sum']);
    const message =
      'ConstFill has no CUDA kernel (its spec names no kernels.cuda), so it runs on the CPU only: move the inputs to the CPU (.cpu()) or add a CUDA kernel to the spec';
    assert.equal(edges.const_fill, {
      has_cuda: false,
      before_load: null,
      cuda_key: true,
      error: message,
      in_library: true,
    });
    assert.equal((edges.segment_sum as { error: string }).error, message.replace('ConstFill', 'SegmentSum'));
    // Seed ops have CUDA kernels: registered for CUDA even in this CPU-only build (which then says
    // it was built without CUDA), and no Python-side refusal.
    const seeds = check(path.join(outDir, 'python'), library, ['custom_relu', 'knn_query']);
    for (const [snake, r] of Object.entries(seeds)) {
      const { has_cuda: hasCuda, before_load: beforeLoad, cuda_key: cudaKey, error } = r as Record<string, unknown>;
      assert.equal(
        { hasCuda, beforeLoad, cudaKey, error },
        { hasCuda: true, beforeLoad: null, cudaKey: true, error: null },
        snake,
      );
    }
  },
);

testWith(
  ['torch'],
  "the fast call path: used once the extension has the op, same values as the checked path, the wrapper's own errors",
  () => {
    const script = [
      'import os, torch',
      'os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"',
      'import opforge_ops as oo',
      'from opforge_ops import _runtime as rt',
      `oo.load_library(${JSON.stringify(library)})`,
      'x = torch.rand(4, 5) * 2 - 1',
      'fast = oo.custom_relu(x, alpha=0.3)',
      // The Python entry built beside the library, falling back to torch.ops' own entry.
      'slot = rt._slots["opforge::custom_relu"][0]',
      'print("fast entry", type(slot).__name__ == "Op" and slot.usable and slot.fallback is torch.ops.opforge.custom_relu.default._op)',
      'print("entry file", oo.entry_path())',
      'print("same values", torch.equal(fast, rt._call_checked(oo.OPS["CustomRelu"], (x,), {"alpha": 0.3})))',
      // An int for a float attribute is the same value on the direct path.
      'print("int alpha", torch.equal(oo.custom_relu(x, alpha=2), rt._call_checked(oo.OPS["CustomRelu"], (x,), {"alpha": 2.0})))',
      // The direct path is really taken: the checked path is not entered once the slot is filled.
      'calls = []',
      'orig = rt._call_checked',
      'rt._call_checked = lambda *a: calls.append(a) or orig(*a)',
      'oo.custom_relu(x, alpha=0.5); oo.my_add(x, x); oo.my_add(x, x)',
      'print("checked calls", len(calls))',
      'rt._call_checked = orig',
      // Training through torch.ops itself: the extension's C++ Autograd kernel (any torch version).
      'xg = (torch.rand(3, 4, dtype=torch.float64) - 0.5).requires_grad_()',
      'print("torch.ops gradcheck", torch.autograd.gradcheck(lambda t: torch.ops.opforge.custom_relu(t, alpha=0.3), (xg,)))',
      'print("no grad_fn without grad", torch.ops.opforge.custom_relu(xg.detach(), alpha=0.3).grad_fn is None)',
      'try:',
      '    torch.ops.opforge.custom_relu_grad(xg, xg, alpha=0.1).sum().backward()',
      'except RuntimeError as e:',
      '    print("no backward:", str(e).splitlines()[0])',
      'for bad in (lambda: oo.custom_relu(x, alpha=True), lambda: oo.custom_relu(x, alpha="a"), lambda: oo.custom_relu(x.to(torch.int32)), lambda: oo.custom_relu([1.0, 2.0]), lambda: oo.knn_query(x, torch.tensor([4], dtype=torch.int32), x, torch.tensor([4], dtype=torch.int32), nsample=0)):',
      '    try:',
      '        bad()',
      '        print("no error")',
      '    except Exception as e:',
      '        print(type(e).__name__, e)',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], {
      encoding: 'utf8',
      env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONPATH: path.join(outDir, 'python') },
    });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, 'fast entry True');
    assert.match(r.stdout, `entry file ${path.join(buildDir, 'opforge_torch_py.')}`);
    assert.match(r.stdout, 'same values True');
    assert.match(r.stdout, 'int alpha True');
    assert.match(r.stdout, 'torch.ops gradcheck True');
    assert.match(r.stdout, 'no grad_fn without grad True');
    assert.match(
      r.stdout,
      'no backward: CustomReluGrad: a gradient was requested through custom::CustomReluGrad, but its spec (ops/custom_relu_grad.yaml) declares no `backward`',
    );
    // my_add's first call fills its slot through the checked path; custom_relu's is filled already.
    assert.match(r.stdout, 'checked calls 1');
    // bool for a float: the dispatcher would take it as 1.0; the wrapper refuses it.
    assert.match(r.stdout, "TypeError CustomRelu: attribute 'alpha' must be a float, got bool True");
    assert.match(r.stdout, "TypeError CustomRelu: attribute 'alpha' must be a float, got str 'a'");
    // Failures of the compiled op are re-checked, so the message is the wrapper's, not the dispatcher's.
    assert.match(r.stdout, "TypeError CustomRelu: input 'x' has dtype torch.int32");
    assert.match(r.stdout, "TypeError CustomRelu: input 'x' must be a torch.Tensor");
    assert.match(r.stdout, "ValueError KNNQuery: attribute 'nsample' must be >= 1, got 0");
    assert.not.match(r.stdout, 'no error');
  },
);

testWith(
  ['torch'],
  "without the Python entry (OPFORGE_TORCH_NO_ENTRY, or not built) the functions call torch.ops' own entry, same values",
  () => {
    const script = [
      'import os, torch',
      'os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"',
      'import opforge_ops as oo',
      'from opforge_ops import _runtime as rt',
      `oo.load_library(${JSON.stringify(library)})`,
      'x = torch.linspace(-1, 1, 16)',
      'y = oo.custom_relu(x, alpha=0.3)',
      'print("entry", oo.entry_path())',
      'print("torch.ops entry", rt._slots["opforge::custom_relu"][0] is torch.ops.opforge.custom_relu.default._op)',
      'print("torch.ops packet", type(torch.ops.opforge.custom_relu._op).__name__)',
      'print("same", torch.allclose(y, torch.where(x > 0, x, 0.3 * x), rtol=1e-6, atol=1e-7))',
    ].join('\n');
    const r = spawnSync(PYTHON, ['-c', script], {
      encoding: 'utf8',
      env: {
        ...process.env,
        OPFORGE_TORCH_NO_ENTRY: '1',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONPATH: path.join(outDir, 'python'),
      },
    });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, 'entry None');
    assert.match(r.stdout, 'torch.ops entry True');
    assert.match(r.stdout, 'torch.ops packet builtin_function_or_method');
    assert.match(r.stdout, 'same True');
  },
);

testWith(
  ['torch'],
  'a variadic input (test/fixtures/variadic): node, torch and grad agree on every case; members out of order fail by case; both exports list the members',
  async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-variadic-'));
    cpSync(path.join(root, 'test', 'fixtures', 'variadic', 'ops'), path.join(dir, 'ops'), { recursive: true });
    const report = await runTests({ root: dir, backends: ['node', 'torch', 'grad'], python: PYTHON });
    assert.ok(report.ok, JSON.stringify(report.results.filter((r) => r.status !== 'ok')));
    const cells = (backend: string, status: string) =>
      report.results.filter((r) => r.backend === backend && r.status === status).map((r) => `${r.op} ${r.case}`);
    const all = [
      'ScaleSum 0',
      'ScaleSum 1',
      'ScaleSum 2',
      'ScaleSumGrad 0',
      'WeightedSum 0',
      'WeightedSum 1',
      'WeightedSum 2',
    ];
    assert.equal(cells('torch', 'ok').sort(), all);
    assert.equal(cells('node', 'ok').sort(), all);
    // ScaleSum's backward (its other input) is checked against autograd of the reference and by gradcheck.
    assert.equal(
      cells('grad', 'ok')
        .filter((c) => c.startsWith('ScaleSum '))
        .sort(),
      all.slice(0, 3),
    );

    // The members, their order and count through the package, its checks, torch.compile and both
    // exporters: with the extension and with the reference alone.
    const library = path.join(dir, 'build', 'torch', 'libopforge_torch.so');
    for (const args of [[library], []]) {
      const r = spawnSync(PYTHON, [path.join(root, 'test', 'python', 'variadic_check.py'), ...args], {
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
        [0, 5, args.length ? 'extension' : 'reference'],
        r.stderr,
      );
    }

    // A kernel that takes the members last to first: the cases whose weights differ per member fail
    // (case 0, weights all 1, cannot tell). The torch column only: this process keeps the Node
    // addon it loaded above (a native module loads once per path).
    const kernel = path.join(dir, 'ops', 'kernels', 'weighted_sum.cpp');
    const text = readFileSync(kernel, 'utf8');
    const reversed = text.replace('acc += w * io.xs[m].data[i];', 'acc += w * io.xs[io.xs.size() - 1 - m].data[i];');
    assert.ok(reversed !== text);
    writeFileSync(kernel, reversed);
    const bad = await runTests({ root: dir, backends: ['torch'], python: PYTHON, only: ['WeightedSum'] });
    assert.equal(
      bad.results.filter((r) => r.status === 'fail').map((r) => `${r.backend} ${r.case}`),
      ['torch 1', 'torch 2'],
    );
  },
);

test.run();
