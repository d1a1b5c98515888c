// `opforge new`: the spec validates, gen works, and the kernel stubs compile against the
// generated contract (g++ -Werror; nvcc, an optional tool, when installed).

import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { NVCC, cudaIncludeDir, testNeeding } from './helpers/optional-tools.js';
import { PYTHON, hasModule } from './helpers/python.js';
import { root } from './helpers/paths.js';
import { toSnake } from '../generator/model/names.js';

const cli = path.join(root, 'dist', 'cli', 'opforge.js');

/** The project the first test scaffolds (its CUDA stub is compiled by the next). */
let scaffolded = '';

test('opforge new writes a valid spec and stubs that compile', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-new-'));
  scaffolded = dir;
  mkdirSync(path.join(dir, 'schema'));
  cpSync(path.join(root, 'schema', 'op.schema.json'), path.join(dir, 'schema', 'op.schema.json'));
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  const r = run(['new', 'MyScaleOp']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /ops\/my_scale_op\.yaml/);
  assert.is(run(['new', 'MyScaleOp']).status, 2, 'refuses to overwrite');
  assert.is(run(['new', 'class']).status, 2, 'rejects keywords');
  const spec = readFileSync(path.join(dir, 'ops', 'my_scale_op.yaml'), 'utf8');
  assert.ok(spec.startsWith('# yaml-language-server: $schema=../schema/op.schema.json'));
  const g = run(['gen']);
  assert.is(g.status, 0, g.stderr);
  const inc = `-I${path.join(dir, 'out', 'include')}`;
  sh('g++', [...CXXFLAGS, inc, '-c', path.join(dir, 'ops', 'kernels', 'my_scale_op.cpp'), '-o', path.join(dir, 'k.o')]);
});

testNeeding([NVCC], "opforge new's CUDA kernel stub compiles with nvcc (-Werror)", () => {
  assert.ok(scaffolded, 'the scaffold test ran first');
  sh('nvcc', [
    '-std=c++17',
    `-I${path.join(scaffolded, 'out', 'include')}`,
    '-Xcompiler=-Wall,-Wextra,-Werror',
    '-c',
    path.join(scaffolded, 'ops', 'kernels', 'my_scale_op.cu'),
    '-o',
    path.join(scaffolded, 'k_cu.o'),
  ]);
});

testNeeding(
  [NVCC],
  'opforge new --triton: a spec whose CUDA kernel is a Triton stub, compiled ahead of time, its launcher with -Werror',
  () => {
    assert.ok(hasModule('triton'), `the test Python (${PYTHON}) has Triton`);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-new-triton-'));
    const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
    const r = run(['new', 'MyTri', '--triton']);
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /ops\/kernels\/my_tri\.py/);
    assert.not.ok(existsSync(path.join(dir, 'ops', 'kernels', 'my_tri.cu')), 'no .cu with --triton');
    assert.is(run(['gen']).status, 0);
    const out = path.join(dir, 'out');
    sh(PYTHON, [
      path.join(out, 'triton', 'opforge_triton_aot.py'),
      path.join(out, 'triton', 'my_tri', 'my_tri_triton.json'),
      path.join(dir, 'ops', 'kernels', 'my_tri.py'),
      '90',
      path.join(out, 'triton', 'my_tri', 'my_tri_triton_images.inc'),
    ]);
    sh('g++', [
      ...CXXFLAGS,
      `-I${path.join(out, 'include')}`,
      '-isystem',
      cudaIncludeDir(),
      '-c',
      path.join(out, 'triton', 'my_tri', 'my_tri_triton.cpp'),
      '-o',
      path.join(dir, 'k_triton.o'),
    ]);
  },
);

test('names with digits: Conv3DTranspose is conv3d_transpose in every generated name, and its stub compiles', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-digits-'));
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  const r = run(['new', 'Conv3DTranspose']);
  assert.is(r.status, 0, r.stderr);
  assert.match(r.stdout, /ops\/conv3d_transpose\.yaml/);
  assert.match(
    readFileSync(path.join(dir, 'ops', 'kernels', 'conv3d_transpose.cpp'), 'utf8'),
    '#include "opforge/ops/conv3d_transpose.h"',
  );
  const g = run(['gen']);
  assert.is(g.status, 0, g.stderr);
  for (const f of [
    'include/opforge/ops/conv3d_transpose.h',
    'python/opforge_ops/ops/conv3d_transpose.py',
    'torch/conv3d_transpose.cpp',
    'trt/conv3d_transpose/README.md',
  ]) {
    assert.ok(existsSync(path.join(dir, 'out', f)), `out/${f}`);
  }
  assert.match(
    readFileSync(path.join(dir, 'out', 'include', 'opforge', 'ops', 'conv3d_transpose.h'), 'utf8'),
    'namespace conv3d_transpose {',
  );
  assert.match(
    readFileSync(path.join(dir, 'out', 'python', 'opforge_ops', '__init__.py'), 'utf8'),
    'from .ops.conv3d_transpose import conv3d_transpose',
  );
  sh('g++', [
    ...CXXFLAGS,
    `-I${path.join(dir, 'out', 'include')}`,
    '-c',
    path.join(dir, 'ops', 'kernels', 'conv3d_transpose.cpp'),
    '-o',
    path.join(dir, 'k.o'),
  ]);
  // Pad2D and Pad2d share a snake_case form: rejected, naming both.
  const spec = readFileSync(path.join(dir, 'ops', 'conv3d_transpose.yaml'), 'utf8').replace(
    /^name: .*$/m,
    'name: Conv3dTranspose',
  );
  writeFileSync(path.join(dir, 'ops', 'conv3d_transpose_2.yaml'), spec);
  const c = run(['check']);
  assert.is(c.status, 1, c.stdout);
  assert.match(`${c.stdout}${c.stderr}`, /Conv3dTranspose[\s\S]*Conv3DTranspose|Conv3DTranspose[\s\S]*Conv3dTranspose/);
});

test('snake: overrides the derived form everywhere (RoIAlign as roi_align); a bad or clashing override is an error at the key', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-snake-'));
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8' });
  const r = run(['new', 'RoIAlign']);
  assert.is(r.status, 0, r.stderr);
  // opforge new shows the derived form, commented out, before any kernel is written.
  const file = path.join(dir, 'ops', 'ro_i_align.yaml');
  const spec = readFileSync(file, 'utf8');
  assert.match(spec, /^# snake: ro_i_align +# files, C\+\+ namespace, opforge_ops\.<snake>/m);
  // The user sets it and renames the kernel files to match.
  writeFileSync(
    path.join(dir, 'ops', 'roi_align.yaml'),
    spec.replace(/^# snake: ro_i_align/m, 'snake: roi_align').replace(/kernels\/ro_i_align\./g, 'kernels/roi_align.'),
  );
  rmSync(file);
  for (const ext of ['cpp', 'cu']) {
    const k = readFileSync(path.join(dir, 'ops', 'kernels', `ro_i_align.${ext}`), 'utf8').replace(
      /ro_i_align/g,
      'roi_align',
    );
    writeFileSync(path.join(dir, 'ops', 'kernels', `roi_align.${ext}`), k);
    rmSync(path.join(dir, 'ops', 'kernels', `ro_i_align.${ext}`));
  }
  const g = run(['gen']);
  assert.is(g.status, 0, g.stderr);
  for (const f of [
    'include/opforge/ops/roi_align.h',
    'python/opforge_ops/ops/roi_align.py',
    'torch/roi_align.cpp',
    'paddle/roi_align/roi_align_op.cc',
    'ort/roi_align',
    'node/ops/roi_align.cpp',
    'trt/roi_align/README.md',
  ]) {
    assert.ok(existsSync(path.join(dir, 'out', f)), `out/${f}`);
  }
  assert.not.ok(existsSync(path.join(dir, 'out', 'include', 'opforge', 'ops', 'ro_i_align.h')));
  const out = (f: string) => readFileSync(path.join(dir, 'out', f), 'utf8');
  assert.match(out('include/opforge/ops/roi_align.h'), 'namespace roi_align {');
  assert.match(out('python/opforge_ops/__init__.py'), 'from .ops.roi_align import roi_align');
  assert.match(out('torch/roi_align.cpp'), 'torch.ops.opforge.roi_align');
  assert.match(out('paddle/roi_align/roi_align_op.cc'), 'PD_BUILD_OP(roi_align)');
  assert.match(out('node/index.d.ts'), /\broiAlign\b/);
  // ONNX and TensorRT keep the spec's name.
  assert.match(out('python/opforge_ops/ops/roi_align.py'), "name='RoIAlign'");
  assert.match(out('python/opforge_ops/ops/roi_align.py'), 'custom::RoIAlign');
  assert.match(out('trt/roi_align/roi_align_trt.h'), '"RoIAlign"');
  sh('g++', [
    ...CXXFLAGS,
    `-I${path.join(dir, 'out', 'include')}`,
    '-c',
    path.join(dir, 'ops', 'kernels', 'roi_align.cpp'),
    '-o',
    path.join(dir, 'k.o'),
  ]);
  // Bad values: located at the key, quoting what was found.
  const roi = readFileSync(path.join(dir, 'ops', 'roi_align.yaml'), 'utf8');
  const line = roi.split('\n').findIndex((l) => l.startsWith('snake: ')) + 1;
  for (const [value, why] of [
    ['RoiAlign', /does not match/],
    ['class', /keyword or reserved/],
    ['roi__align', /does not match/],
  ] as const) {
    writeFileSync(path.join(dir, 'ops', 'roi_align.yaml'), roi.replace(/^snake: roi_align\b.*$/m, `snake: ${value}`));
    const c = run(['check']);
    assert.is(c.status, 1, `${value}: ${c.stdout}`);
    assert.match(c.stderr, new RegExp(`roi_align\\.yaml:${line}:\\d+`), `${value}: ${c.stderr}`);
    assert.match(c.stderr, why, `${value}: ${c.stderr}`);
    assert.match(c.stderr, value, `${value}: the error quotes the value`);
  }
  writeFileSync(path.join(dir, 'ops', 'roi_align.yaml'), roi);
  // An override equal to another op's form, and the same name under another override: errors.
  writeFileSync(path.join(dir, 'ops', 'roi_pool.yaml'), roi.replace(/^name: RoIAlign\b/m, 'name: RoIPool'));
  let c = run(['check']);
  assert.is(c.status, 1, c.stdout);
  assert.match(
    c.stderr,
    /roi_pool\.yaml:\d+:\d+.*op `RoIPool` clashes with op `RoIAlign` .*same snake_case form `roi_align`/,
  );
  assert.match(c.stderr, /roi_pool\.yaml:\d+:\d+/);
  writeFileSync(path.join(dir, 'ops', 'roi_pool.yaml'), roi.replace(/^snake: roi_align\b.*$/m, 'snake: roi_align2'));
  c = run(['check']);
  assert.is(c.status, 1, c.stdout);
  assert.match(
    c.stderr,
    /op `RoIAlign` clashes with op `RoIAlign` .*same name: the ONNX, TensorRT and Paddle types would coincide/,
  );
});

test('the snake_case table in docs/spec.md is what the generator derives', () => {
  const doc = readFileSync(path.join(root, 'docs', 'spec.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `([A-Za-z0-9_]+)` \| `([a-z0-9_]+)` \| `opforge\/ops\/([a-z0-9_]+)\.h` \|$/gm)];
  assert.ok(rows.length >= 10, `${rows.length} rows`);
  for (const [, name, snake, header] of rows) {
    assert.is(toSnake(name!), snake, name);
    assert.is(header, snake);
  }
});

test.run();
