// The project namespace (package.json's opforge.namespace): validated naming the file and key;
// without it opforge's own names; with it every package, the torch namespace, the default ONNX
// domain and the libraries carry it, and nothing generated still names opforge's own.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EMITTERS } from '../../generator/emit/index.js';
import { SpecErrors, type Diagnostic } from '../../generator/model/diagnostics.js';
import type { ProjectIR } from '../../generator/model/ir.js';
import { loadProject } from '../../generator/model/project.js';
import { DEFAULT_NAMES } from '../../generator/model/project-names.js';
import { writeProject } from './helpers/spec-project.js';

const SPECS = {
  'scale.yaml': `name: Scale
version: 1
inputs:
  - { name: x, dtype: float32 }
outputs:
  - { name: y, dtype: float32, shape: x }
attributes:
  - { name: factor, type: float, default: 2.0 }
kernels: { cpu: kernels/scale.cpp, reference: kernels/scale_ref.py }
backward:
  - { op: ScaleGrad, inputs: { gy: grad(y) }, outputs: { gx: x } }
`,
  'scale_grad.yaml': `name: ScaleGrad
domain: other
version: 1
inputs:
  - { name: gy, dtype: float32 }
outputs:
  - { name: gx, dtype: float32, shape: gy }
attributes:
  - { name: factor, type: float, default: 2.0 }
kernels: { cpu: kernels/scale_grad.cpp }
`,
};

/** The project with `packageJson` (undefined: none) at its root. */
function load(packageJson: string | undefined): ProjectIR {
  const dir = writeProject(SPECS);
  if (packageJson !== undefined) writeFileSync(path.join(dir, 'package.json'), packageJson);
  return loadProject({ opsDir: path.join(dir, 'ops'), root: dir });
}

function errors(packageJson: string): Diagnostic[] {
  try {
    load(packageJson);
  } catch (e) {
    if (e instanceof SpecErrors) return e.diagnostics;
    throw e;
  }
  throw new Error('the project loaded');
}

test('no package.json, or one without the key: opforge_ops, torch.ops.opforge, domain custom', () => {
  for (const pj of [undefined, '{"name": "x"}', '{"opforge": {}}']) {
    const p = load(pj);
    assert.equal(p.names, DEFAULT_NAMES, String(pj));
    assert.is(p.ops.find((o) => o.name === 'Scale')!.domain, 'custom');
  }
});

test('a namespace names every package, the torch namespace, the default domain and the libraries', () => {
  const p = load('{"name": "acme", "opforge": {"namespace": "acme_ops"}}');
  assert.equal(p.names, {
    namespace: 'acme_ops',
    torchPackage: 'acme_ops',
    jaxPackage: 'acme_ops_jax',
    paddlePackage: 'acme_ops_paddle',
    torchNamespace: 'acme_ops',
    defaultDomain: 'acme_ops',
    libraryPrefix: 'acme_ops',
  });
  // Only specs that name no domain take it.
  assert.is(p.ops.find((o) => o.name === 'Scale')!.domain, 'acme_ops');
  assert.is(p.ops.find((o) => o.name === 'ScaleGrad')!.domain, 'other');
});

test('an invalid namespace is an error naming package.json and the key', () => {
  const cases: [string, RegExp][] = [
    ['{"opforge": {"namespace": "Acme-Ops"}}', /must be a lowercase identifier .*got "Acme-Ops"/],
    ['{"opforge": {"namespace": 3}}', /must be a lowercase identifier .*got 3/],
    ['{"opforge": {"namespace": "torch"}}', /is `torch`, which Python reserves or the packages import/],
    ['{"opforge": {"namespace": "import"}}', /is `import`, which Python reserves/],
  ];
  for (const [pj, message] of cases) {
    const e = errors(pj);
    assert.is(e.length, 1, pj);
    assert.match(e[0]!.file, /package\.json$/);
    assert.is(e[0]!.path, 'opforge.namespace');
    assert.match(e[0]!.message, message);
    assert.match(e[0]!.message, '`opforge.namespace` in package.json');
  }
  const notObject = errors('{"opforge": "acme"}');
  assert.is(notObject[0]!.path, 'opforge');
  assert.match(notObject[0]!.message, '`opforge` in package.json must be an object');
  // Located at the key.
  const located = errors('{\n  "name": "x",\n  "opforge": {\n    "namespace": "9lives"\n  }\n}\n')[0]!;
  assert.equal([located.line, located.col], [4, 5]);
});

test("package.json's version numbers the wheel; one pip cannot read is an error at the key", () => {
  assert.is(load(undefined).version, '0.0.0');
  assert.is(load('{"name": "x"}').version, '0.0.0');
  for (const v of ['1.2.3', '1.2.3-rc.1', '0.1.0-beta.2', '2.0.0+local.7', '1!2.0.dev3'])
    assert.is(load(`{"version": ${JSON.stringify(v)}}`).version, v);
  for (const v of ['1.0.0-x.7.z.92', 'latest', '', '1..2']) {
    const e = errors(`{\n  "version": ${JSON.stringify(v)}\n}`);
    assert.is(e.length, 1, v);
    assert.is(e[0]!.path, 'version');
    assert.equal([e[0]!.line, e[0]!.col], [2, 3]);
    assert.match(
      e[0]!.message,
      `(PEP 440: e.g. "1.2.3", "1.2.3-rc.1"), as it numbers the project's wheel; got ${JSON.stringify(v)}`,
    );
  }
  assert.match(errors('{"version": 3}')[0]!.message, /got 3$/);
});

/**
 * What may keep opforge's own names: where a file was generated from, the internal CMake names
 * (targets, functions and files under out/cmake/), and comments of the static C++ and the shared
 * Python module that describe every project's packages alike.
 */
const KEPT = [
  /^# Generated by opforge from generator\/static\/\S+/g,
  /^opforge_ops, opforge_jax and opforge_paddle\): /g, // _attrs.py: the packages it is copied into
  /\bopforge_(paddle|jax)_(headers|add_op|finish|examples)\b/g,
  /\bopforge_ort(_ops|_headers|_add_op|_finish)?\b/g, // its library's file takes OUTPUT_NAME
  /\bcmake\/opforge_(paddle|ort|jax|trt)\.cmake\b/g,
  /^project\(opforge_ops LANGUAGES/g,
  /^add_subdirectory\(.* opforge_ops\)$/g,
  /\(opforge_jax computes them from the same spec;/g, // ffi_bridge.h
  /^\/\/ opforge_jax \(Python\) compares it/g, // build_info.cc
  /libopforge_trt_plugins\w*/g, // TensorRT keeps its plugin library (docs/decisions.md)
];

test('with a namespace, nothing generated names opforge_ops, torch.ops.opforge, opforge_jax/paddle or their libraries', () => {
  const p = load('{"opforge": {"namespace": "acme_ops"}}');
  const files = EMITTERS.flatMap((e) => e.emit(p));
  const paths = files.map((f) => f.path);
  for (const want of [
    'python/acme_ops/__init__.py',
    'python/acme_ops/_library.py',
    'python/acme_ops/ops/scale.py',
    'jax/acme_ops_jax/__init__.py',
    'jax/acme_ops_jax/ops/scale.py',
    'paddle/acme_ops_paddle/__init__.py',
    'paddle/acme_ops_paddle/ops/scale.py',
  ])
    assert.ok(paths.includes(want), want);
  const text = (f: string): string => files.find((x) => x.path === f)!.content;
  assert.match(text('python/acme_ops/_spec.py'), 'TORCH_NAMESPACE = "acme_ops"');
  assert.match(text('python/acme_ops/_library.py'), '"libacme_ops_torch.so"');
  assert.match(text('python/acme_ops/_library.py'), '"acme_ops_torch_py"');
  assert.match(text('python/acme_ops/_library.py'), '"ACME_OPS_TORCH_LIBRARY"');
  assert.match(text('python/acme_ops/ops/scale.py'), "domain='acme_ops'");
  assert.match(text('torch/scale.cpp'), 'TORCH_LIBRARY_FRAGMENT(acme_ops, m)');
  assert.match(text('torch/scale.cpp'), 'callGradient("acme_ops::scale_grad"');
  assert.match(text('torch/CMakeLists.txt'), 'add_library(acme_ops_torch SHARED)');
  assert.match(text('torch/python_entry.cpp'), 'PyMODINIT_FUNC PyInit_acme_ops_torch_py()');
  assert.match(text('jax/acme_ops_jax/_runtime.py'), 'LIBRARY_NAME = "libacme_ops_jax_ops.so"');
  assert.match(text('cmake/opforge_jax.cmake'), 'add_library(acme_ops_jax_ops SHARED');
  assert.match(text('cmake/opforge_paddle.cmake'), 'add_library(acme_ops_paddle_ops SHARED');
  assert.match(
    text('cmake/opforge_ort.cmake'),
    'set_target_properties(opforge_ort PROPERTIES OUTPUT_NAME acme_ops_ort)',
  );

  const OPFORGE_NAMES =
    /\bopforge_ops\b|torch\.ops\.opforge\b|\bopforge_jax\b|\bopforge_paddle\b|libopforge_(torch|jax_ops|ort|paddle_ops)\b|\bopforge_torch(_py)?\b|\bopforge_jax_ops\b|\bopforge_paddle_ops\b|OPFORGE_(TORCH|JAX)_LIBRARY|\(opforge,|"opforge::|'custom'|\bcustom::/;
  const leftovers = files.flatMap((f) =>
    f.content
      .split('\n')
      .map((line, i) => ({ line: line.trim(), at: `${f.path}:${i + 1}` }))
      .filter(({ line }) => OPFORGE_NAMES.test(KEPT.reduce((l, k) => l.replace(k, ''), line)))
      .map(({ line, at }) => `${at}: ${line}`),
  );
  assert.equal(leftovers, []);
});

test('without a namespace the same check finds opforge own names (it can fail)', () => {
  const files = EMITTERS.flatMap((e) => e.emit(load(undefined)));
  const text = files.map((f) => f.content).join('\n');
  for (const own of ['TORCH_NAMESPACE = "opforge"', 'libopforge_torch.so', 'opforge_torch_py', "domain='custom'"])
    assert.ok(text.includes(own), own);
});

test.run();
