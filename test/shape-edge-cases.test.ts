// The edge-case fixture (test/fixtures/edges) on the backends the core and TensorRT tests do not
// cover: output shapes that read no input dim (SegmentSum: [num_segments], [2, 2], rank 0 []; an
// attribute-only workspace) and an op with no attributes and a shape-only input (ConstFill: [3]).
// Every generated function that names a parameter it never reads fails these -Werror builds.
// ListScale: list attributes with non-empty defaults, replaced (not extended) by given values.
// The Node addon is built and run against a reference written here; the ONNX Runtime units and
// the Paddle framework-free headers compile with -Werror (the PyTorch extension: torch.test.ts).

import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build, load } from '../runtime/index.js';
import { ortIncludeDir } from '../runtime/ort.js';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { fixtures, root } from './helpers/paths.js';

// Under build/ so that node-addon-api resolves from the project's node_modules.
const project = path.join(root, 'build', 'edges');
const out = path.join(project, 'out');

interface T {
  dtype: string;
  dims: number[];
  data: Float32Array | Int32Array | Uint16Array;
}
type Ops = {
  segmentSum: (x: T, attrs?: { num_segments?: number }) => { y: T; hist: T; total: T };
  constFill: (like: T) => { y: T };
  listScale: (x: T, attrs?: { scales?: number[]; offsets?: number[] }) => { y: T; n: T };
};
let ops: Ops;

test.before(async () => {
  rmSync(project, { recursive: true, force: true });
  mkdirSync(project, { recursive: true });
  cpSync(path.join(fixtures, 'edges', 'ops'), path.join(project, 'ops'), { recursive: true });
  sh(process.execPath, [
    path.join(root, 'dist', 'cli', 'opforge.js'),
    'gen',
    '--quiet',
    '--ops',
    path.join(project, 'ops'),
    '--out',
    out,
  ]);
  const buildDir = path.join(project, 'build');
  await build({ root: project, buildDir });
  const mod = await import(path.join(out, 'node', 'index.js'));
  ops = mod.bind(load(buildDir)) as Ops;
});

test('Node: SegmentSum outputs [num_segments], [2, 2] and [] with the reference values (workspace from the attribute)', () => {
  const values = [-1, -0.25, 0.25, 1, 2, 3, 0.75];
  const x: T = { dtype: 'float32', dims: [7], data: Float32Array.from(values) };
  for (const bins of [1, 2, 3, 5]) {
    const r = ops.segmentSum(x, { num_segments: bins });
    const want = Array.from({ length: bins }, (_, k) =>
      values.filter((_, i) => i % bins === k).reduce((a, b) => a + b, 0),
    );
    assert.equal(r.y.dims, [bins]);
    assert.equal(Array.from(r.y.data), want.map(Math.fround));
    assert.equal(r.hist.dims, [2, 2]);
    assert.equal(Array.from(r.hist.data), [1, 1, 1, 4]);
    assert.equal(r.total.dims, []);
    assert.equal(Array.from(r.total.data), [Math.fround(values.reduce((a, b) => a + b, 0))]);
  }
  assert.equal(ops.segmentSum(x).y.dims, [3], 'default num_segments');
});

test('Node: ConstFill (no attributes, shape-only input) gives [0, 1, 2] + n / 2', () => {
  const r = ops.constFill({ dtype: 'float32', dims: [5], data: new Float32Array(5) });
  assert.equal(r.y.dims, [3]);
  assert.equal(Array.from(r.y.data), [2.5, 3.5, 4.5]);
});

test('Node: list attributes with non-empty defaults are replaced by the given values, not extended', () => {
  const values = [1, -2, 3, -4, 5];
  const x: T = { dtype: 'float32', dims: [5], data: Float32Array.from(values) };
  const want = (s: number[], o: number[]): number[] =>
    values.map((v, i) => Math.fround(v * Math.fround(s[i % s.length]!) + o[i % o.length]!));
  const d = ops.listScale(x);
  assert.equal(Array.from(d.n.data), [1, 2]);
  assert.equal(Array.from(d.y.data), want([1], [0, 10]));
  const r = ops.listScale(x, { scales: [0.5, -3], offsets: [7] });
  assert.equal(Array.from(r.n.data), [2, 1]);
  assert.equal(Array.from(r.y.data), want([0.5, -3], [7]));
});

test('ONNX Runtime units and the Paddle framework-free headers compile with -Wall -Wextra -Werror', () => {
  const inc = ortIncludeDir();
  for (const op of ['segment_sum', 'const_fill', 'list_scale']) {
    const unit = `ort/${op}/${op}_ort.cpp`;
    sh('g++', [
      ...CXXFLAGS,
      '-fsyntax-only',
      '-isystem',
      inc,
      '-I',
      path.join(out, 'include'),
      '-I',
      path.join(out, 'ort', 'include'),
      '-I',
      path.join(out, 'ort'),
      path.join(out, unit),
    ]);
  }
  // The bridge templates instantiated over each op, as PD_BUILD_OP's functions instantiate them.
  const src = path.join(project, 'paddle_edges.cpp');
  writeFileSync(
    src,
    [
      '#include "segment_sum/segment_sum_paddle.h"',
      '#include "const_fill/const_fill_paddle.h"',
      'int main() {',
      '  namespace pb = opforge::paddle_bridge;',
      '  std::vector<int64_t> x = {2, 3};',
      '  const std::vector<int64_t>* in[1] = {&x};',
      '  std::vector<std::vector<int64_t>> o;',
      '  if (!pb::inferShapes<opforge::paddle_ops::segment_sum::PaddleOp>(opforge::paddle_ops::segment_sum::makeAttrs(4), in, &o).ok()) return 1;',
      '  if (o.size() != 3 || o[0] != std::vector<int64_t>{4} || o[1] != std::vector<int64_t>{2, 2} || !o[2].empty()) return 2;',
      '  std::vector<int64_t> unknown = {-1, 3};',
      '  in[0] = &unknown;',
      '  if (!pb::inferShapes<opforge::paddle_ops::segment_sum::PaddleOp>(opforge::paddle_ops::segment_sum::makeAttrs(4), in, &o).ok() || o[0] != std::vector<int64_t>{4}) return 3;',
      '  std::vector<int64_t> like = {-1};',
      '  in[0] = &like;',
      '  if (!pb::inferShapes<opforge::paddle_ops::const_fill::PaddleOp>(opforge::paddle_ops::const_fill::makeAttrs(), in, &o).ok() || o[0] != std::vector<int64_t>{3}) return 4;',
      '  return 0;',
      '}',
      '',
    ].join('\n'),
  );
  const bin = path.join(project, 'paddle_edges');
  sh('g++', [
    ...CXXFLAGS,
    '-I',
    path.join(out, 'include'),
    '-I',
    path.join(out, 'paddle', 'include'),
    '-I',
    path.join(out, 'paddle'),
    src,
    '-o',
    bin,
  ]);
  sh(bin, []);
});

test.run();
