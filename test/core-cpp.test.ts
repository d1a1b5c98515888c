// The op core of every seed op, compiled with g++ -Wall -Wextra -Werror and unit-tested:
// serialization round trip; truncated, oversized, corrupted and foreign buffers rejected;
// attribute validation; dtype and shape inference against the TS evaluator of the IR.

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { coreEmitter } from '../generator/emit/core/index.js';
import { cppAttrValue } from '../generator/emit/lang/literals.js';
import { evalExpr } from '../generator/model/expr.js';
import type { AttrValue, OpIR, ProjectIR, TestCaseIR } from '../generator/model/ir.js';
import {
  cppNamespace,
  coreHeaderPath,
  dtypeUnder,
  evalOutputShape,
  exprAttrValues,
} from '../generator/model/ir-helpers.js';
import { loadProject } from '../generator/model/project.js';
import { DTYPE_INFO } from '../generator/model/type-table.js';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { fixtures, opsDir, outDir, root } from './helpers/paths.js';
import { loadSpecs } from './unit/helpers/spec-project.js';

const project = loadProject({ opsDir });

/** The op cores of `p` written under build/<name>; that folder. */
function writeCore(p: ProjectIR, name: string): string {
  const dir = path.join(root, 'build', name);
  for (const f of coreEmitter.emit(p)) {
    mkdirSync(path.dirname(path.join(dir, f.path)), { recursive: true });
    writeFileSync(path.join(dir, f.path), f.content);
  }
  return dir;
}

/** `src` compiled against the op cores in `dir` with the test flags: the program's path. */
function buildValues(dir: string, src: string): string {
  const bin = path.join(dir, 'values');
  sh('g++', [...CXXFLAGS, `-I${path.join(dir, 'include')}`, src, '-o', bin]);
  return bin;
}

function attrsInit(op: OpIR, values: Record<string, AttrValue>): string[] {
  return op.attributes.map((a) => `attrs.${a.name} = ${cppAttrValue(a, values[a.name]!)};`);
}

function caseBlock(op: OpIR, t: TestCaseIR): string {
  const ns = cppNamespace(op);
  const shapes = op.inputs.map((i) => t.inputs.find((x) => x.name === i.name)?.shape);
  const dims = shapes.map((s) => s ?? []);
  const expected = op.outputs.map((o) => evalOutputShape(o.shape, dims, exprAttrValues(op, t.attributes)));
  const binding = op.bindings.findIndex((b) => b.suffix === t.binding.suffix);
  const inDt = op.inputs.map((i) => `opforge::DType::${DTYPE_INFO[dtypeUnder(i.type, t.binding)].cppEnum}`);
  const outDt = op.outputs.map((o) => `opforge::DType::${DTYPE_INFO[dtypeUnder(o.type, t.binding)].cppEnum}`);
  const label = `${op.name} case ${t.index}`;
  return `
  {  // ${label}
    namespace op = ${ns};
    const char* label = "${label}";
    op::Attrs attrs;
    ${attrsInit(op, t.attributes).join('\n    ')}
    op::State state;
    CHECK(op::validate(attrs).ok());
    roundTrip<op::Attrs, op::State>(label, attrs, state,
      [](const op::Attrs& a, const op::State& s) { return op::serializedSize(a, s); },
      [](const op::Attrs& a, const op::State& s, void* b) { op::serialize(a, s, b); },
      [](const void* d, size_t n, op::Attrs* a, op::State* s) { return op::deserialize(d, n, a, s); });
    opforge::Shape in[op::kNumInputs];
    bool present[op::kNumInputs];
    ${op.inputs.map((_i, k) => `present[${k}] = ${shapes[k] ? 'true' : 'false'}; in[${k}].rank = ${dims[k]!.length};${dims[k]!.map((d, j) => ` in[${k}].dims[${j}] = ${d};`).join('')}`).join('\n    ')}
    CHECK(op::checkShapes(attrs, in, present, op::kNumInputs).ok());
    opforge::Shape out[op::kNumOutputs];
    CHECK(op::inferShapes(attrs, in, op::kNumInputs, out).ok());
    ${expected.map((e, k) => `CHECK(out[${k}].rank == ${e.length});${e.map((d, j) => ` CHECK(out[${k}].dims[${j}] == ${d});`).join('')}`).join('\n    ')}
    opforge::DType inDt[op::kNumInputs] = {${inDt.join(', ')}};
    opforge::DType outDt[op::kNumOutputs];
    int binding = -1;
    CHECK(op::inferTypes(attrs, inDt, present, op::kNumInputs, outDt, &binding).ok());
    CHECK(binding == ${binding});
    ${outDt.map((d, k) => `CHECK(outDt[${k}] == ${d});`).join(' ')}
    // Wrong rank and wrong dtype are reported, not accepted.
    ${op.inputs
      .filter((i) => i.rank !== null)
      .slice(0, 1)
      .map(
        (i) =>
          `{ opforge::Shape bad[op::kNumInputs]; for (int k = 0; k < op::kNumInputs; ++k) bad[k] = in[k]; bad[${i.index}].rank = ${i.rank! + 1}; CHECK(!op::checkShapes(attrs, bad, present, op::kNumInputs).ok()); }`,
      )
      .join('')}
    { opforge::DType bad[op::kNumInputs]; for (int k = 0; k < op::kNumInputs; ++k) bad[k] = inDt[k]; bad[0] = opforge::DType::kBool; CHECK(!op::inferTypes(attrs, bad, present, op::kNumInputs, outDt, &binding).ok()); }
  }`;
}

function attrRangeChecks(op: OpIR): string {
  const lines: string[] = [];
  for (const a of op.attributes) {
    const ns = cppNamespace(op);
    if (a.min !== undefined)
      lines.push(
        `  { ${ns}::Attrs attrs; attrs.${a.name} = ${a.type === 'float' ? `${a.min - 1}.0f` : `${a.min - 1}`}; CHECK(!${ns}::validate(attrs).ok()); }`,
      );
    if (a.max !== undefined)
      lines.push(
        `  { ${ns}::Attrs attrs; attrs.${a.name} = ${a.type === 'float' ? `${a.max + 1}.0f` : `${a.max + 1}`}; CHECK(!${ns}::validate(attrs).ok()); }`,
      );
    // The bound itself: refused when exclusive, taken when inclusive (a check written with the
    // wrong comparison fails one of the two).
    for (const [bound, exclusive] of [
      [a.min, a.minExclusive],
      [a.max, a.maxExclusive],
    ] as const)
      if (bound !== undefined && (a.type === 'int' || a.type === 'float'))
        lines.push(
          `  { ${ns}::Attrs attrs; attrs.${a.name} = ${a.type === 'float' ? `static_cast<float>(${bound})` : bound}; CHECK(${exclusive ? '!' : ''}${ns}::validate(attrs).ok()); }`,
        );
    if (a.type === 'float')
      lines.push(`  { ${ns}::Attrs attrs; attrs.${a.name} = std::nanf(""); CHECK(!${ns}::validate(attrs).ok()); }`);
  }
  return lines.join('\n');
}

function program(project: ProjectIR): string {
  const includes = project.ops.map((op) => `#include "${coreHeaderPath(op).include}"`).join('\n');
  const [first, second] = project.ops;
  return `${includes}
#include <cmath>
#include <cstdio>
#include <functional>
#include <vector>

static int failures = 0;
static int checks = 0;
#define CHECK(c) do { ++checks; if (!(c)) { ++failures; std::fprintf(stderr, "%s:%d: CHECK failed: %s\\n", __FILE__, __LINE__, #c); } } while (0)

template <typename A, typename S>
void roundTrip(const char* label, const A& attrs, const S& state,
               std::function<size_t(const A&, const S&)> size, std::function<void(const A&, const S&, void*)> write,
               std::function<opforge::Status(const void*, size_t, A*, S*)> read) {
  std::vector<uint8_t> buf(size(attrs, state));
  write(attrs, state, buf.data());
  A a; S s;
  const opforge::Status st = read(buf.data(), buf.size(), &a, &s);
  if (!st.ok()) std::fprintf(stderr, "%s: %s\\n", label, st.message().c_str());
  CHECK(st.ok());
  std::vector<uint8_t> again(size(a, s));
  write(a, s, again.data());
  CHECK(again == buf);
  for (size_t n = 0; n < buf.size(); ++n) CHECK(!read(buf.data(), n, &a, &s).ok());  // every truncation
  std::vector<uint8_t> longer = buf;
  longer.push_back(0);
  CHECK(!read(longer.data(), longer.size(), &a, &s).ok());  // oversized
  for (size_t i = 0; i < buf.size(); ++i) {  // every single-byte corruption
    for (uint8_t flip : {uint8_t{0x01}, uint8_t{0x80}}) {
      std::vector<uint8_t> bad = buf;
      bad[i] ^= flip;
      CHECK(!read(bad.data(), bad.size(), &a, &s).ok());
    }
  }
  CHECK(!read(nullptr, 0, &a, &s).ok());
}

int main() {
${project.ops.flatMap((op) => op.tests.map((t) => caseBlock(op, t))).join('\n')}
${project.ops.map(attrRangeChecks).join('\n')}
  {  // data serialized by one op is refused by another
    ${cppNamespace(first!)}::Attrs a1; ${cppNamespace(first!)}::State s1;
    std::vector<uint8_t> buf(${cppNamespace(first!)}::serializedSize(a1, s1));
    ${cppNamespace(first!)}::serialize(a1, s1, buf.data());
    ${cppNamespace(second!)}::Attrs a2; ${cppNamespace(second!)}::State s2;
    const opforge::Status st = ${cppNamespace(second!)}::deserialize(buf.data(), buf.size(), &a2, &s2);
    CHECK(!st.ok());
    CHECK(st.message().find("different op") != std::string::npos);
  }
  std::printf("%d checks, %d failures\\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
`;
}

/** Compiles the unit checks of a project's op cores (headers in includeDir) with -Werror and runs them. */
function runCoreChecks(p: ProjectIR, includeDir: string): number {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-core-'));
  const src = path.join(dir, 'core_test.cpp');
  writeFileSync(src, program(p));
  const bin = path.join(dir, 'core_test');
  sh('g++', [...CXXFLAGS, `-I${includeDir}`, src, '-o', bin]);
  const out = sh(bin, []);
  const m = /(\d+) checks, 0 failures/.exec(out);
  assert.ok(m, out);
  return Number(m![1]);
}

test('op cores compile with -Wall -Wextra -Werror and pass their unit checks', () => {
  const checks = runCoreChecks(project, path.join(outDir, 'include'));
  assert.ok(checks > 1000, `${checks} checks`);
});

test('output shapes of attributes only, of constants, of rank 0, attribute-only workspace (fixture edges): -Werror, inferred values', () => {
  // SegmentSum: y [num_segments], hist [2, 2], total []; workspace num_segments * 8.
  // ConstFill: no attributes, a shape-only input, y [3]. No generated function may name a
  // parameter it does not read (inferShapes' inputs was always named: every -Werror build failed).
  const edges = loadProject({ opsDir: path.join(fixtures, 'edges', 'ops') });
  const dir = writeCore(edges, 'edges-core');
  const header = (op: OpIR): string => coreEmitter.emit(edges).find((f) => f.path === coreHeaderPath(op).path)!.content;
  const segmentSum = edges.ops.find((o) => o.name === 'SegmentSum')!;
  assert.ok(
    header(segmentSum).includes(
      'inline Status inferShapes(const Attrs& attrs, const Shape* /*inputs*/, int /*numIn*/, Shape* outputs)',
    ),
  );
  assert.ok(
    header(segmentSum).includes(
      'inline Status workspaceSize(const Attrs& attrs, const Shape* /*inputs*/, const DType* /*types*/, int /*numIn*/, size_t* bytes)',
    ),
  );
  runCoreChecks(edges, path.join(dir, 'include'));
  // The values: inferShapes and workspaceSize for num_segments = 5 and any input.
  const src = path.join(dir, 'values.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/segment_sum.h"
#include "opforge/ops/const_fill.h"
#include <cstdio>
int main() {
  namespace ss = opforge::ops::segment_sum;
  ss::Attrs a;
  a.num_segments = 5;
  opforge::Shape in[1];
  in[0].rank = 3; in[0].dims[0] = 2; in[0].dims[1] = 3; in[0].dims[2] = 4;
  opforge::Shape out[3];
  size_t ws = 0;
  if (!ss::inferShapes(a, in, ss::kNumInputs, out).ok() || !ss::workspaceSize(a, in, nullptr, ss::kNumInputs, &ws).ok()) return 1;
  namespace cf = opforge::ops::const_fill;
  opforge::Shape like[1];
  like[0].rank = 1; like[0].dims[0] = 9;
  opforge::Shape y[1];
  if (!cf::inferShapes(cf::Attrs{}, like, cf::kNumInputs, y).ok()) return 1;
  std::printf("%s %s %s %zu %s\\n", out[0].str().c_str(), out[1].str().c_str(), out[2].str().c_str(), ws, y[0].str().c_str());
  return 0;
}
`,
  );
  const bin = buildValues(dir, src);
  assert.is(sh(bin, []).trim(), '[5] [2, 2] [] 40 [3]');
});

test('exclusive bounds: validate() refuses the bound itself and takes the values inside, of ints, floats and their lists (-Werror)', () => {
  const op = loadSpecs({
    'bounded.yaml': `name: Bounded
version: 1
inputs: [{ name: x, dtype: float32 }]
outputs: [{ name: y, dtype: float32, shape: x }]
attributes:
  - { name: eps, type: float, default: 1.0e-5, exclusive_min: 0 }
  - { name: momentum, type: float, default: 0.1, exclusive_min: 0, exclusive_max: 1 }
  - { name: groups, type: int, default: 1, exclusive_min: 0, max: 8 }
  - { name: ratios, type: floats, default: [0.5], exclusive_max: 1 }
kernels: { cpu: kernels/k.cpp }
`,
  });
  const dir = writeCore(op, 'bounds-core');
  const src = path.join(dir, 'bounds.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/bounded.h"
#include <cstdio>
#include <functional>
namespace b = opforge::ops::bounded;
static void show(const std::function<void(b::Attrs&)>& set) {
  b::Attrs a;
  set(a);
  const opforge::Status s = b::validate(a);
  std::printf("%s|", s.ok() ? "ok" : s.message().c_str());
}
int main() {
  show([](b::Attrs& a) { a.eps = 0.0f; });
  show([](b::Attrs& a) { a.eps = 1e-30f; });
  show([](b::Attrs& a) { a.momentum = 1.0f; });
  show([](b::Attrs& a) { a.momentum = 0.999f; });
  show([](b::Attrs& a) { a.groups = 0; });
  show([](b::Attrs& a) { a.groups = 8; });
  show([](b::Attrs& a) { a.ratios = {0.25f, 1.0f}; });
  return 0;
}
`,
  );
  const bin = path.join(dir, 'bounds');
  sh('g++', [...CXXFLAGS, `-I${path.join(dir, 'include')}`, src, '-o', bin]);
  assert.equal(sh(bin, []).split('|').slice(0, -1), [
    'Bounded: attribute eps must be finite and > 0, got 0',
    'ok',
    'Bounded: attribute momentum must be finite and > 0 and < 1, got 1',
    'ok',
    'Bounded: attribute groups must be > 0 and <= 8, got 0',
    'ok',
    'Bounded: attribute ratios must be finite and < 1, got 1',
  ]);
});

test('list attributes: validate() refuses a length other than the declared one; shapes read elements and len() (-Werror)', () => {
  const pool = loadSpecs({
    'pool.yaml': `name: Pool
version: 1
inputs: [{ name: x, dtype: float32, rank: 2 }]
outputs:
  - { name: y, dtype: float32, shape: ['(x[1] - kernel[0]) // stride[-1] + 1', len(pads)] }
attributes:
  - { name: stride, type: ints, length: 2, default: [1, 2] }
  - { name: kernel, type: ints, length: 1, default: [3] }
  - { name: pads, type: ints, default: [] }
workspace: 'kernel[0] * len(pads) * 4'
kernels: { cpu: kernels/k.cpp }
`,
  });
  const dir = writeCore(pool, 'list-attrs-core');
  const src = path.join(dir, 'values.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/pool.h"
#include <cstdio>
int main() {
  namespace p = opforge::ops::pool;
  p::Attrs a;
  a.stride = {2, 3};
  a.kernel = {4};
  a.pads = {0, 1, 0, 1, 5};
  opforge::Shape in[1];
  in[0].rank = 2; in[0].dims[0] = 2; in[0].dims[1] = 13;
  opforge::Shape out[1];
  size_t ws = 0;
  if (!p::validate(a).ok() || !p::inferShapes(a, in, p::kNumInputs, out).ok() || !p::workspaceSize(a, in, nullptr, p::kNumInputs, &ws).ok()) return 1;
  p::Attrs shortStride = a;
  shortStride.stride = {2};
  p::Attrs longKernel = a;
  longKernel.kernel = {1, 1};
  std::printf("%s %zu|%s|%s\\n", out[0].str().c_str(), ws, p::validate(shortStride).message().c_str(),
              p::validate(longKernel).message().c_str());
  return 0;
}
`,
  );
  const bin = buildValues(dir, src);
  assert.equal(sh(bin, []).trim().split('|'), [
    '[4, 5] 80',
    'Pool: attribute stride must have exactly 2 elements, got 1',
    'Pool: attribute kernel must have exactly 1 elements, got 2',
  ]);
});

test('conditions, modulo, floor/ceil of float32 attributes, checks and sizeof: the op core computes what the spec model does (-Werror)', () => {
  const op = loadSpecs({
    'cond.yaml': `name: Cond
version: 1
types: { T: [float32, float16, float64] }
inputs:
  - { name: x, dtype: T, rank: 3 }
  - { name: w, dtype: float32, rank: 2 }
outputs:
  - name: y
    dtype: T
    shape:
      - floor(x[2] * scale)
      - ceil(x[1] * x[0] * scales[1])
      - x[0] if flag else w[1] % 3
      - "x[1] // groups if mode == 'max' and groups > 0 else 1"
      - "1 if not flag or x[0] >= w[0] else (x[2] - 9) % 4"
attributes:
  - { name: scale, type: float, default: 1.5 }
  - { name: scales, type: floats, length: 2, default: [0.5, 0.3] }
  - { name: flag, type: bool, default: true }
  - { name: mode, type: string, enum: [avg, max], default: avg }
  - { name: groups, type: int, default: 1, min: 1 }
checks:
  - x[1] % groups == 0
  - { check: 'w[0] == 1 or w[0] == x[0]', message: "w's rows broadcast over x's first dim" }
let:
  row: sizeof(T) * x[2] + sizeof(int64)
workspace: "8 * x[0] if mode == 'max' else row * w[1]"
kernels: { cpu: kernels/k.cpp }
`,
  }).ops[0]!;
  const dir = writeCore({ ...project, ops: [op] }, 'conditions-core');
  // Floats where a double product would round wrongly, tiny and huge ones, negative scales.
  const scales = [1.5, 0.3, 0.1, 1e-30, 3e38, 0.7, 2.5e-8, 1 / 3];
  const grid: {
    dims: number[][];
    scale: number;
    s1: number;
    flag: boolean;
    mode: string;
    groups: number;
    t: [string, number];
  }[] = [];
  const types: [string, number][] = [
    ['kFloat32', 4],
    ['kFloat16', 2],
    ['kFloat64', 8],
  ];
  let seed = 7;
  const rand = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let i = 0; i < 400; i++)
    grid.push({
      dims: [
        [rand(6), rand(13), rand(40) * (i % 7 === 0 ? 123456789 : 1)],
        [rand(2) ? 1 : rand(6), rand(9)],
      ],
      scale: scales[i % scales.length]!,
      s1: scales[(i >> 3) % scales.length]!,
      flag: rand(2) === 1,
      mode: rand(2) ? 'max' : 'avg',
      groups: 1 + rand(4),
      t: types[i % 3]!,
    });
  const cases = grid.map(
    (g) =>
      `  run(${g.dims.flat().join(', ')}, ${g.scale}f, ${g.s1}f, ${g.flag}, "${g.mode}", ${g.groups}, opforge::DType::${g.t[0]});`,
  );
  const src = path.join(dir, 'values.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/cond.h"
#include <cstdio>
namespace c = opforge::ops::cond;
static void run(int64_t x0, int64_t x1, int64_t x2, int64_t w0, int64_t w1, float scale, float s1, bool flag, const char* mode, int64_t groups, opforge::DType t) {
  c::Attrs a;
  a.scale = scale; a.scales = {0.5f, s1}; a.flag = flag; a.mode = mode; a.groups = groups;
  opforge::Shape in[2];
  in[0].rank = 3; in[0].dims[0] = x0; in[0].dims[1] = x1; in[0].dims[2] = x2;
  in[1].rank = 2; in[1].dims[0] = w0; in[1].dims[1] = w1;
  const bool present[2] = {true, true};
  opforge::Status s = c::checkShapes(a, in, present, c::kNumInputs);
  if (!s.ok()) { std::printf("%s\\n", s.message().c_str()); return; }
  opforge::Shape out[1];
  size_t ws = 0;
  s = c::inferShapes(a, in, c::kNumInputs, out);
  if (!s.ok()) { std::printf("%s\\n", s.message().c_str()); return; }
  const opforge::DType types[2] = {t, opforge::DType::kFloat32};
  if (!c::workspaceSize(a, in, types, c::kNumInputs, &ws).ok()) { std::printf("workspace\\n"); return; }
  std::printf("%s %zu\\n", out[0].str().c_str(), ws);
}
int main() {
${cases.join('\n')}
  return 0;
}
`,
  );
  const bin = buildValues(dir, src);
  const got = sh(bin, []).trim().split('\n');
  const y = op.outputs[0]!.shape;
  assert.ok(y.kind === 'dims');
  let failed = 0;
  let negative = 0;
  grid.forEach((g, i) => {
    const attrs = { scale: g.scale, scales: [0.5, g.s1], flag: g.flag, mode: g.mode, groups: g.groups };
    const [x, w] = g.dims as [number[], number[]];
    let want: string;
    if (x[1]! % g.groups !== 0) want = `Cond: check 'x[1] % groups == 0' failed (x[1] = ${x[1]}, groups = ${g.groups})`;
    else if (!(w[0] === 1 || w[0] === x[0]))
      want = `Cond: check 'w[0] == 1 or w[0] == x[0]' failed (w[0] = ${w[0]}, x[0] = ${x[0]}): w's rows broadcast over x's first dim`;
    else {
      const dims = y.dims.map((e) => evalExpr(e, g.dims, attrs));
      const bad = dims.find((d) => d < 0 || d > 2 ** 62);
      if (bad !== undefined) {
        negative++;
        assert.match(got[i]!, /^Cond: /, `case ${i}: ${JSON.stringify(g)}`);
        return;
      }
      want = `[${dims.join(', ')}] ${evalExpr(op.workspace, g.dims, attrs, { T: g.t[1] })}`;
    }
    if (want.includes('failed')) failed++;
    assert.is(got[i], want, `case ${i}: ${JSON.stringify(g)}`);
  });
  assert.ok(failed > 20 && negative > 0, `${failed} failed checks, ${negative} refused outputs`);
});

test('checks over an optional input apply when it is present; an output dtype the attributes choose (-Werror)', () => {
  const op = loadSpecs({
    'sdpa.yaml': `name: Sdpa
version: 1
types: { TOut: 'float16 if half else float64 if wide else float32' }
inputs:
  - { name: q, dtype: float32, rank: 3 }
  - { name: k, dtype: float32, rank: 3 }
  - { name: mask, dtype: float32, rank: [2, 3], optional: true }
outputs:
  - { name: y, dtype: TOut, shape: q }
attributes:
  - { name: half, type: bool, default: false }
  - { name: wide, type: bool, default: false }
checks:
  - { check: 'mask[-1] == 1 or mask[-1] == k[1]', message: last dim 1 or Ns }
  - 'rank(mask) == 2 or mask[0] == 1 or mask[0] == q[0]'
kernels: { cpu: kernels/k.cpp }
`,
  }).ops[0]!;
  assert.equal(
    op.checks.map((c) => c.optional),
    [[2], [2]],
  );
  const dir = writeCore({ ...project, ops: [op] }, 'optional-checks-core');
  const src = path.join(dir, 'values.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/sdpa.h"
#include <cstdio>
namespace s = opforge::ops::sdpa;
static void shapes(const char* what, bool present, int rank, int64_t m0, int64_t m1, int64_t m2) {
  s::Attrs a;
  opforge::Shape in[3];
  in[0].rank = 3; in[0].dims[0] = 2; in[0].dims[1] = 4; in[0].dims[2] = 8;
  in[1].rank = 3; in[1].dims[0] = 2; in[1].dims[1] = 5; in[1].dims[2] = 8;
  in[2].rank = rank; in[2].dims[0] = m0; in[2].dims[1] = m1; in[2].dims[2] = m2;
  const bool given[3] = {true, true, present};
  const opforge::Status st = s::checkShapes(a, in, given, s::kNumInputs);
  std::printf("%s: %s\\n", what, st.ok() ? "ok" : st.message().c_str());
}
static void types(bool half, bool wide) {
  s::Attrs a;
  a.half = half; a.wide = wide;
  const opforge::DType in[3] = {opforge::DType::kFloat32, opforge::DType::kFloat32, opforge::DType::kFloat32};
  const bool given[3] = {true, true, false};
  opforge::DType out[1];
  int binding = -1;
  const opforge::Status st = s::inferTypes(a, in, given, s::kNumInputs, out, &binding);
  std::printf("%d%d: %s %d\\n", half, wide, st.ok() ? opforge::dtypeName(out[0]) : st.message().c_str(), binding);
}
int main() {
  shapes("absent", false, 0, 99, 99, 99);
  shapes("2-D", true, 2, 4, 5, 0);
  shapes("2-D broadcast", true, 2, 1, 1, 0);
  shapes("2-D bad", true, 2, 4, 3, 0);
  shapes("3-D", true, 3, 2, 4, 5);
  shapes("3-D bad batch", true, 3, 3, 4, 5);
  types(false, false); types(true, false); types(false, true); types(true, true);
  return 0;
}
`,
  );
  const bin = buildValues(dir, src);
  assert.equal(sh(bin, []).trim().split('\n'), [
    'absent: ok',
    '2-D: ok',
    '2-D broadcast: ok',
    "2-D bad: Sdpa: check 'mask[-1] == 1 or mask[-1] == k[1]' failed (mask[-1] = 3, k[1] = 5): last dim 1 or Ns",
    '3-D: ok',
    "3-D bad batch: Sdpa: check 'rank(mask) == 2 or mask[0] == 1 or mask[0] == q[0]' failed (rank(mask) = 3, mask[0] = 3, q[0] = 2)",
    // The binding's index follows the variable's dtypes in the order the choice names them.
    '00: float32 2',
    '10: float16 0',
    '01: float64 1',
    '11: float16 0',
  ]);
});

test('variadic inputs: members checked one by one, count() in shapes and checks, the kernel sees every member in order (-Werror)', () => {
  const op = loadSpecs({
    'weighted_sum.yaml': `name: WeightedSum
version: 1
types: { T: [float32, float64] }
inputs:
  - { name: bias, dtype: T, rank: 1 }
  - { name: xs, dtype: T, variadic: true, min_count: 2, shape: bias }
outputs:
  - { name: y, dtype: T, shape: bias }
  - { name: counts, dtype: int64, shape: [count(xs) * 2] }
attributes:
  - { name: weights, type: floats, default: [] }
checks:
  - len(weights) == 0 or len(weights) == count(xs)
kernels: { cpu: kernels/k.cpp }
`,
  });
  const dir = writeCore(op, 'variadic-core');
  const src = path.join(dir, 'variadic.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/weighted_sum.h"
#include <cstdio>
namespace ws = opforge::ops::weighted_sum;
namespace opforge { namespace ops { namespace weighted_sum {
// y = bias + sum_m weight_m * member_m: a dropped, repeated or reordered member changes y.
template <typename T> Status sum(const Attrs& a, const Io<T>& io) {
  for (int64_t i = 0; i < io.y.numel(); ++i) {
    T acc = io.bias.data[i];
    for (int m = 0; m < io.xs.size(); ++m) acc += static_cast<T>(a.weights.empty() ? 1.f : a.weights[m]) * io.xs[m].data[i];
    io.y.data[i] = acc;
  }
  for (int64_t m = 0; m < io.counts.numel(); ++m) io.counts.data[m] = io.xs.size();
  return Status::Ok();
}
Status cpu(const Attrs& a, const State&, const Io<float>& io, const CpuContext&) { return sum(a, io); }
Status cpu(const Attrs& a, const State&, const Io<double>& io, const CpuContext&) { return sum(a, io); }
}}}
static const char* shown(const opforge::Status& s) {
  static std::string keep;
  keep = s.ok() ? "ok" : s.message();
  return keep.c_str();
}
int main() {
  float bias[2] = {1, 2}, x0[2] = {3, 4}, x1[2] = {5, 6}, x2[2] = {7, 8};
  float* data[4] = {bias, x0, x1, x2};
  opforge::RawTensor in[4];
  opforge::Shape shapes[4];
  bool present[4] = {true, true, true, true};
  opforge::DType dtypes[4] = {};
  for (int i = 0; i < 4; ++i) {
    in[i].dtype = dtypes[i] = opforge::DType::kFloat32;
    in[i].data = data[i];
    in[i].shape.rank = shapes[i].rank = 1;
    in[i].shape.dims[0] = shapes[i].dims[0] = 2;
  }
  ws::Attrs a;
  a.weights = {1.f, 10.f, 100.f};
  std::printf("%s|", shown(ws::Core::checkShapes(a, shapes, present, 4)));
  opforge::Shape outShapes[2];
  std::printf("%s|", shown(ws::inferShapes(a, shapes, 4, outShapes)));
  std::printf("%s|", outShapes[1].str().c_str());
  float y[2] = {};
  int64_t counts[6] = {};
  opforge::RawTensor out[2];
  out[0].dtype = opforge::DType::kFloat32;
  out[0].data = y;
  out[0].shape = outShapes[0];
  out[1].dtype = opforge::DType::kInt64;
  out[1].data = counts;
  out[1].shape = outShapes[1];
  opforge::CpuContext ctx;
  std::printf("%s|", shown(ws::runCpu(a, ws::State{}, in, 4, out, ctx)));
  std::printf("%g %g|%lld|", y[0], y[1], static_cast<long long>(counts[5]));
  // Too few members, too many, a weight per member missing, a member of another shape or dtype.
  std::printf("%s|", shown(ws::Core::checkShapes(a, shapes, present, 2)));
  std::printf("%s|", shown(ws::Core::checkCount(1 + 33)));
  ws::Attrs two;
  two.weights = {1.f, 2.f};
  std::printf("%s|", shown(ws::Core::checkShapes(two, shapes, present, 4)));
  shapes[3].dims[0] = 3;
  std::printf("%s|", shown(ws::Core::checkShapes(a, shapes, present, 4)));
  shapes[3].dims[0] = 2;
  dtypes[2] = opforge::DType::kFloat64;
  opforge::DType outDt[2] = {};
  int binding = -1;
  std::printf("%s|", shown(ws::inferTypes(a, dtypes, present, 4, outDt, &binding)));
  return 0;
}
`,
  );
  const bin = path.join(dir, 'variadic');
  sh('g++', [...CXXFLAGS, `-I${path.join(dir, 'include')}`, src, '-o', bin]);
  assert.equal(sh(bin, []).split('|').slice(0, -1), [
    'ok',
    'ok',
    '[6]',
    'ok',
    // 1 + 3 + 10*5 + 100*7 and 2 + 4 + 10*6 + 100*8: every member, each with its own weight.
    '754 866',
    '3',
    'WeightedSum: input xs has 1 members; it takes 2 to 32',
    'WeightedSum: input xs has 33 members; it takes 2 to 32',
    "WeightedSum: check 'len(weights) == 0 or len(weights) == count(xs)' failed (weights = [1, 2], count(xs) = 3)",
    'WeightedSum: input xs (member 2) must have the shape of bias [2], got [3]',
    'WeightedSum: input xs (member 1) has dtype float64, expected float32',
  ]);
});

test('present: outputs the attributes ask for, the order rule, and bindingOf refusing an output given or missing (-Werror)', () => {
  const op = loadSpecs({
    'maybe.yaml': `name: Maybe
version: 1
inputs: [{ name: x, dtype: float32, rank: 1 }]
outputs:
  - { name: y, dtype: float32, shape: x }
  - { name: idx, dtype: int32, shape: [x[0] - 100], present: with_idx }
  - { name: cnt, dtype: int32, shape: [1], present: with_cnt }
attributes:
  - { name: with_idx, type: bool, default: false }
  - { name: with_cnt, type: bool, default: false }
kernels: { cpu: kernels/k.cpp }
`,
  });
  const dir = writeCore(op, 'present-core');
  const src = path.join(dir, 'present.cpp');
  writeFileSync(
    src,
    `#include "opforge/ops/maybe.h"
#include <cstdio>
namespace m = opforge::ops::maybe;
static void outputs(bool idx, bool cnt) {
  m::Attrs a;
  a.with_idx = idx;
  a.with_cnt = cnt;
  bool present[3] = {};
  int n = -1;
  const opforge::Status s = m::Core::outputsPresent(a, present, &n);
  std::printf("%s|", s.ok() ? std::to_string(n).c_str() : s.message().c_str());
}
static void binding(bool idx, bool givenIdx) {
  m::Attrs a;
  a.with_idx = idx;
  opforge::RawTensor in[1], out[3];
  in[0].dtype = opforge::DType::kFloat32;
  out[0].dtype = opforge::DType::kFloat32;
  out[1].dtype = opforge::DType::kInt32;
  out[1].present = givenIdx;
  out[2].present = false;
  int b = -1;
  const opforge::Status s = opforge::bindingOf<m::Core>(a, in, m::kNumInputs, out, &b);
  std::printf("%s|", s.ok() ? "ok" : s.message().c_str());
}
int main() {
  outputs(false, false);
  outputs(true, false);
  outputs(true, true);
  outputs(false, true);
  binding(true, true);
  binding(false, false);
  binding(true, false);
  binding(false, true);
  // An absent output's shape is not computed: x[0] - 100 would be negative here.
  m::Attrs a;
  opforge::Shape in[1], out[3];
  in[0].rank = 1;
  in[0].dims[0] = 4;
  const opforge::Status s = m::inferShapes(a, in, m::kNumInputs, out);
  std::printf("%s|", s.ok() ? "ok" : s.message().c_str());
  a.with_idx = true;
  const opforge::Status t = m::inferShapes(a, in, m::kNumInputs, out);
  std::printf("%s|", t.ok() ? "ok" : t.message().c_str());
  return 0;
}
`,
  );
  const bin = path.join(dir, 'present');
  sh('g++', [...CXXFLAGS, `-I${path.join(dir, 'include')}`, src, '-o', bin]);
  assert.equal(sh(bin, []).split('|').slice(0, -1), [
    '1',
    '2',
    '3',
    'Maybe: output cnt is present but output idx before it is absent; a node lists its outputs by position',
    'ok',
    'ok',
    'Maybe: output idx is missing; the attributes ask for it',
    'Maybe: output idx is given; the attributes leave it out',
    'ok',
    'Maybe: output idx would have negative dim 0 (-96)',
  ]);
});

test('KNNQuery: the heap (CUDA merges, any push order) keeps the same rows as the sorted list (CPU)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-knn-'));
  const bin = path.join(dir, 'knn_topk');
  sh('g++', [
    ...CXXFLAGS,
    `-I${path.join(outDir, 'include')}`,
    `-I${path.join(root, 'ops', 'kernels')}`,
    path.join(root, 'test', 'cpp', 'knn_topk.cpp'),
    '-o',
    bin,
  ]);
  assert.match(sh(bin, []), /3000 trials, 0 bad/);
});

test('float16 and bfloat16 conversions round to nearest even like numpy', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-half-'));
  const src = path.join(dir, 'half.cpp');
  // Reference bit patterns from numpy.float16 / the bfloat16 definition (upper 16 bits, RNE).
  writeFileSync(
    src,
    `#include "opforge/core.h"
#include <cstdio>
int main() {
  struct { float f; unsigned h; unsigned bf; } cases[] = {
    {0.0f, 0x0000, 0x0000}, {-0.0f, 0x8000, 0x8000}, {1.0f, 0x3c00, 0x3f80}, {-2.0f, 0xc000, 0xc000},
    {65504.0f, 0x7bff, 0x4780}, {65520.0f, 0x7c00, 0x4780}, {1e-8f, 0x0000, 0x322c}, {5.960464477539063e-08f, 0x0001, 0x3380},
    {0.1f, 0x2e66, 0x3dcd}, {3.14159265f, 0x4248, 0x4049}, {6.103515625e-05f, 0x0400, 0x3880}, {1.00048828125f, 0x3c00, 0x3f80},
    {1.00146484375f, 0x3c02, 0x3f80}, {-1e10f, 0xfc00, 0xd015},
  };
  int bad = 0;
  for (auto& c : cases) {
    const unsigned h = opforge::toFloat16(c.f).bits, b = opforge::toBFloat16(c.f).bits;
    if (h != c.h || b != c.bf) { std::printf("%g: half %04x want %04x, bf16 %04x want %04x\\n", c.f, h, c.h, b, c.bf); ++bad; }
  }
  for (unsigned bits = 0; bits < 0x10000; ++bits) {  // half -> float -> half is the identity (except NaN payloads)
    const opforge::float16 h{static_cast<uint16_t>(bits)};
    const float f = opforge::toFloat(h);
    if (f != f) continue;
    if (opforge::toFloat16(f).bits != bits) { std::printf("roundtrip %04x\\n", bits); ++bad; break; }
  }
  std::printf("%d bad\\n", bad);
  return bad;
}
`,
  );
  sh('g++', [...CXXFLAGS, `-I${path.join(outDir, 'include')}`, src, '-o', path.join(dir, 'half')]);
  assert.match(sh(path.join(dir, 'half'), []), /^0 bad/m);
});

test.run();
