// PopART / PopRT backend. Always: out/popart matches the emitter (golden); the op identity,
// OpDefinition and attribute reading follow the spec (ONNX attribute types); README carries the
// PopRT command line; and custom_shape_inference.py is RUN with Debian's python3 + onnx on every
// spec test case (seed ops and the adapter fixture): the output dtypes and dims it writes must equal
// the IR's (evalExpr), and unknown input dims must leave the node uninferred. PopRT itself is
// closed source: test/fixtures/poprt-stub mirrors the four names PopRT's example imports.
// With POPART_INCLUDE_DIR and POPRITHMS_INCLUDE_DIR: scripts/check-popart.sh compiles every
// <op>_op.cpp (popart::Op + OpCreator) against them; the opx units need the Poplar SDK.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { popartEmitter, popartPaths } from '../generator/emit/popart/index.js';
import type { OpIR, ProjectIR, TestCaseIR } from '../generator/model/ir.js';
import { dtypeUnder, evalOutputShape, exprAttrValues } from '../generator/model/ir-helpers.js';
import { loadProject } from '../generator/model/project.js';
import { DTYPE_INFO } from '../generator/model/type-table.js';
import { emitFixture } from './helpers/adapters.js';
import { sh } from './helpers/cxx.js';
import { fixtures, opsDir, outDir, root } from './helpers/paths.js';
import { PYTHON, testWith } from './helpers/python.js';

const project = loadProject({ opsDir });
const files = popartEmitter.emit(project);
const buildDir = path.join(root, 'build', 'popart-test');
const fixtureOut = path.join(buildDir, 'fixture-out');
const fixture = emitFixture(fixtureOut, popartEmitter);
const fixtureFiles = popartEmitter.emit(fixture);

test('out/popart is exactly what the emitter generates (golden)', () => {
  for (const f of files) {
    const p = path.join(outDir, f.path);
    assert.ok(existsSync(p), `missing ${f.path}: run opforge gen`);
    assert.is(readFileSync(p, 'utf8'), f.content, `${f.path} is stale: run opforge gen`);
  }
});

test('op identity, input counts, dtypes and attribute reads follow the spec', () => {
  const ONNX_READ: Record<string, string> = {
    bool: 'Int',
    int: 'Int',
    float: 'Float',
    string: 'String',
    ints: 'Ints',
    floats: 'Floats',
  };
  for (const [p, fs] of [
    [project, files],
    [fixture, fixtureFiles],
  ] as [ProjectIR, typeof files][]) {
    for (const op of p.ops) {
      const h = fs.find((f) => f.path === popartPaths(op).header)!.content;
      const nReq = op.inputs.filter((i) => !i.optional).length;
      assert.ok(
        h.includes(
          `::popart::OperatorIdentifier("${op.domain}", "${op.name}", ${op.version}, ::popart::NumInputs(${nReq}, ${op.inputs.length}), ${op.outputs.length})`,
        ),
        op.name,
      );
      for (const a of op.attributes) {
        assert.ok(
          h.includes(`readAttr<::popart::Attributes::${ONNX_READ[a.type]}>(a, "${a.name}", &attrs->${a.name})`),
          `${op.name}.${a.name}`,
        );
        assert.is(h.includes(`attribute ${a.name} is required`), a.required, `${op.name}.${a.name} required`);
      }
      for (const i of op.inputs) {
        const types = (i.type.kind === 'fixed' ? [i.type.dtype] : i.type.dtypes).map(
          (d) => `::popart::DataType::${DTYPE_INFO[d].onnx.name}`,
        );
        assert.ok(h.includes(`{"${i.name}", {${types.join(', ')}}}`), `${op.name}.${i.name}`);
      }
      assert.ok(
        fs
          .find((f) => f.path === popartPaths(op).op)!
          .content.includes(`makeCreator<::opforge::popart_ops::${op.ident.snake}::Desc>()`),
      );
      assert.ok(
        fs
          .find((f) => f.path === popartPaths(op).opx)!
          .content.includes('OpxCreator<::opforge::popart_ext::HostOpx<Desc>>'),
      );
    }
  }
  assert.ok(
    fixtureFiles.some((f) => f.content.includes('::popart::NumInputs(1, 2)')),
    'optional input widens NumInputs',
  );
});

test('README has the exact PopRT command line; CMake builds custom_ops.so with WITH_POPART off by default', () => {
  const cli = [
    'python -m poprt.cli \\',
    '    --input_model model.onnx \\',
    '    --custom_library_so_paths build/popart/custom_ops.so \\',
    '    --custom_shape_inference out/popart/custom_shape_inference.py \\',
    '    --run',
  ].join('\n');
  for (const op of project.ops)
    assert.ok(files.find((f) => f.path === popartPaths(op).readme)!.content.includes(cli), op.name);
  // The backends' options live in the module out/CMakeLists.txt includes after its list of ops.
  assert.match(readFileSync(path.join(outDir, 'CMakeLists.txt'), 'utf8'), 'cmake/opforge_backends.cmake")');
  assert.match(
    readFileSync(path.join(outDir, 'cmake', 'opforge_backends.cmake'), 'utf8'),
    /option\(WITH_POPART "[^"]*" OFF\)\nif\(WITH_POPART AND EXISTS "\$\{CMAKE_CURRENT_SOURCE_DIR\}\/popart\/CMakeLists.txt"\)\n {2}add_subdirectory\(popart\)/,
  );
  // The list of ops over the module that builds the library.
  const cmake = files.find((f) => f.path === 'popart/CMakeLists.txt')!.content;
  for (const op of project.ops) assert.ok(cmake.includes(`opforge_popart_add_op(${op.ident.snake})`), op.name);
  assert.match(cmake, /opforge_popart_finish\(\)/);
  assert.match(
    readFileSync(path.join(root, 'generator', 'static', 'cmake', 'opforge_popart.cmake'), 'utf8'),
    /add_library\(custom_ops SHARED \$\{OPFORGE_POPART_SOURCES\}\)/,
  );
  assert.ok(
    files.some((f) => f.path === 'cmake/opforge_popart.cmake'),
    'the module is copied to out/cmake/',
  );
});

// ---- custom_shape_inference.py, run ----

const DRIVER = `
import json, runpy, sys
import onnx
from onnx import helper, TensorProto
sys.path.insert(0, sys.argv[2])
import poprt.passes as passes
runpy.run_path(sys.argv[1])
results = []
for c in json.load(sys.stdin):
    inputs = [helper.make_tensor_value_info(n, t, [d if d >= 0 else 'n' for d in dims]) for n, t, dims in c['inputs']]
    outputs = [helper.make_tensor_value_info(n, TensorProto.UNDEFINED, None) for n in c['outputs']]
    names = [n for n, _, _ in c['inputs']]
    # Empty lists carry their type explicitly: onnx >= 1.16 cannot infer one from an empty iterator.
    empty = {k: v for k, v in c['attrs'].items() if v == []}
    node = helper.make_node(c['op'], names, c['outputs'], domain=c['domain'], **{k: v for k, v in c['attrs'].items() if k not in empty})
    for k in empty:
        node.attribute.append(onnx.AttributeProto(name=k, type=onnx.AttributeProto.INTS if c['attrTypes'][k] == 'ints' else onnx.AttributeProto.FLOATS))
    model = helper.make_model(helper.make_graph([node], 'g', inputs, []), opset_imports=[helper.make_opsetid('', 13), helper.make_opsetid(c['domain'], c['version'])])
    model, ok = passes.SHAPE_FUNCS[c['op']]()(model, node)
    got = {}
    for n in c['outputs']:
        got[n] = [passes.get_dtype(model.graph, n), passes.get_shape(model.graph, n)]
    results.append({'key': c['key'], 'ok': ok, 'outputs': got})
print(json.dumps(results))
`;

function onnxAttr(op: OpIR, t: TestCaseIR): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const a of op.attributes) {
    const v = t.attributes[a.name];
    if (v === undefined) continue; // the shape function must fall back to the spec's default
    out[a.name] = a.type === 'bool' ? (v ? 1 : 0) : v;
  }
  return out;
}

function cases(p: ProjectIR, unknown: boolean): { key: string; op: OpIR; t: TestCaseIR; spec: unknown }[] {
  const out: { key: string; op: OpIR; t: TestCaseIR; spec: unknown }[] = [];
  for (const op of p.ops)
    for (const t of op.tests) {
      const present = op.inputs.filter((i) => t.inputs.some((x) => x.name === i.name));
      // optional inputs trail (spec rule): an absent one is left off the node
      const last = Math.max(...present.map((i) => i.index));
      out.push({
        key: `${op.name}#${t.index}${unknown ? '?' : ''}`,
        op,
        t,
        spec: {
          key: `${op.name}#${t.index}${unknown ? '?' : ''}`,
          op: op.name,
          domain: op.domain,
          version: op.version,
          inputs: op.inputs
            .filter((i) => i.index <= last)
            .map((i) => {
              const ti = t.inputs.find((x) => x.name === i.name);
              return [
                ti ? i.name : '',
                DTYPE_INFO[dtypeUnder(i.type, t.binding)].onnx.value,
                (ti?.shape ?? []).map((d, k) => (unknown && k === 0 ? -1 : d)),
              ];
            })
            .filter((x) => x[0] !== ''),
          outputs: op.outputs.map((o) => o.name),
          attrs: onnxAttr(op, t),
          attrTypes: Object.fromEntries(op.attributes.map((a) => [a.name, a.type])),
        },
      });
    }
  return out;
}

function runShapeInference(
  script: string,
  specs: unknown[],
): { key: string; ok: boolean; outputs: Record<string, [number | null, number[] | null]> }[] {
  mkdirSync(buildDir, { recursive: true });
  const r = spawnSync(PYTHON, ['-c', DRIVER, script, path.join(fixtures, 'poprt-stub')], {
    input: JSON.stringify(specs),
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`python failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return JSON.parse(r.stdout);
}

testWith(
  ['onnx'],
  "custom_shape_inference.py: every spec test case gets the IR's output dtypes and dims; unknown dims stay uninferred",
  () => {
    const scripts: [ProjectIR, string][] = [
      [project, path.join(outDir, 'popart', 'custom_shape_inference.py')],
      [fixture, path.join(fixtureOut, 'popart', 'custom_shape_inference.py')],
    ];
    let checked = 0;
    for (const [p, script] of scripts) {
      const known = cases(p, false);
      const unknown = cases(p, true);
      const results = runShapeInference(
        script,
        [...known, ...unknown].map((c) => c.spec),
      );
      for (const c of known) {
        const r = results.find((x) => x.key === c.key)!;
        assert.ok(r.ok, `${c.key}: not inferred`);
        const dims: number[][] = c.op.inputs.map((i) => c.t.inputs.find((x) => x.name === i.name)?.shape ?? []);
        const attrs = exprAttrValues(c.op, c.t.attributes);
        for (const o of c.op.outputs) {
          const want = evalOutputShape(o.shape, dims, attrs);
          assert.equal(r.outputs[o.name]![1], want, `${c.key} ${o.name} dims`);
          assert.is(
            r.outputs[o.name]![0],
            DTYPE_INFO[dtypeUnder(o.type, c.t.binding)].onnx.value,
            `${c.key} ${o.name} dtype`,
          );
          checked++;
        }
      }
      for (const c of unknown) {
        const r = results.find((x) => x.key === c.key)!;
        assert.not.ok(r.ok, `${c.key}: inferred although an input dim is unknown`);
      }
    }
    assert.ok(checked >= 15, `${checked} outputs checked`);
  },
);

const popartInclude = process.env.POPART_INCLUDE_DIR;
const poprithmsInclude = process.env.POPRITHMS_INCLUDE_DIR;
test('PopART op units compile against POPART_INCLUDE_DIR + POPRITHMS_INCLUDE_DIR with -Wall -Wextra -Werror (seed ops and fixture)', () => {
  if (!popartInclude || !poprithmsInclude) {
    console.log('  (POPART_INCLUDE_DIR / POPRITHMS_INCLUDE_DIR not set: skipped)');
    return;
  }
  assert.match(
    sh('bash', [path.join(root, 'scripts', 'check-popart.sh'), popartInclude, poprithmsInclude]),
    /all clean/,
  );
  assert.match(
    sh(
      'bash',
      [
        path.join(root, 'scripts', 'check-popart.sh'),
        popartInclude,
        poprithmsInclude,
        path.join(buildDir, 'check-fixture'),
      ],
      { env: { ...process.env, OPFORGE_OUT: fixtureOut } },
    ),
    /all clean/,
  );
});

test.run();
