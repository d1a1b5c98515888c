// `opforge from-onnx`: custom nodes of a real ONNX model (built with the onnx package) become
// spec skeletons that validate, generate and whose kernel stubs compile.

import { mkdirSync, mkdtempSync, readFileSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { CXXFLAGS, sh } from './helpers/cxx.js';
import { customOpsOf } from '../generator/cli/from-onnx.js';
import { outDir, root } from './helpers/paths.js';
import { python, testWith } from './helpers/python.js';

const MODEL = `
import sys, onnx
from onnx import helper, TensorProto as T
nodes = [
  helper.make_node('Relu', ['x'], ['r']),
  helper.make_node('DynamicTRTResize', ['r', 's'], ['y'], domain='mmdeploy', align_corners=1, mode='bicubic'),
  helper.make_node('KNNQuery', ['p', 'o', 'q', 'qo'], ['idx', 'd2'], domain='custom', nsample=8, scales=[0.5, 2.0]),
  helper.make_node('DynamicTRTResize', ['y', 's'], ['z'], domain='mmdeploy', align_corners=0, mode='bicubic'),
]
g = helper.make_graph(nodes, 'g',
  [helper.make_tensor_value_info('x', T.FLOAT, ['N', 3, 8, 8]), helper.make_tensor_value_info('s', T.FLOAT, [1, 1, 16, 16]),
   helper.make_tensor_value_info('p', T.FLOAT, ['n', 3]), helper.make_tensor_value_info('o', T.INT32, ['b']),
   helper.make_tensor_value_info('q', T.FLOAT, ['m', 3]), helper.make_tensor_value_info('qo', T.INT32, ['b'])],
  [helper.make_tensor_value_info('z', T.FLOAT, ['N', 3, 16, 16]), helper.make_tensor_value_info('idx', T.INT32, ['m', 8]),
   helper.make_tensor_value_info('d2', T.FLOAT, ['m', 8])],
  value_info=[helper.make_tensor_value_info('y', T.FLOAT, ['N', 3, 16, 16]), helper.make_tensor_value_info('r', T.FLOAT, ['N', 3, 8, 8])])
m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13), helper.make_opsetid('mmdeploy', 2), helper.make_opsetid('custom', 1)])
onnx.save(m, sys.argv[1])
`;

testWith(['onnx'], 'custom ops of a model become specs that generate and compile', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-onnx-'));
  mkdirSync(path.join(dir, 'schema'));
  cpSync(path.join(root, 'schema', 'op.schema.json'), path.join(dir, 'schema', 'op.schema.json'));
  const model = path.join(dir, 'model.onnx');
  python(MODEL, [model]);
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  const r = cli(['from-onnx', model, '--json']);
  assert.is(r.status, 0, r.stderr);
  const { written } = JSON.parse(r.stdout) as { written: string[] };
  assert.is(written.filter((f) => f.endsWith('.yaml')).length, 2, 'Relu is standard; two custom op types');
  const resize = parse(readFileSync(path.join(dir, 'ops', 'dynamic_trt_resize.yaml'), 'utf8'));
  assert.is(resize.domain, 'mmdeploy');
  assert.is(resize.version, 2);
  assert.equal(
    resize.inputs.map((i: { name: string; dtype: string; rank: number }) => [i.dtype, i.rank]),
    [
      ['float32', 4],
      ['float32', 4],
    ],
  );
  assert.equal(
    resize.attributes.map((a: { name: string; type: string }) => [a.name, a.type]),
    [
      ['align_corners', 'int'],
      ['mode', 'string'],
    ],
  );
  assert.match(resize.attributes[0].description, /observed values: 1, 0/);
  const knn = parse(readFileSync(path.join(dir, 'ops', 'knn_query.yaml'), 'utf8'));
  assert.equal(
    knn.inputs.map((i: { dtype: string }) => i.dtype),
    ['float32', 'int32', 'float32', 'int32'],
  );
  assert.equal(
    knn.outputs.map((o: { dtype: string }) => o.dtype),
    ['int32', 'float32'],
  );
  assert.equal(knn.attributes.find((a: { name: string }) => a.name === 'scales').default, [0.5, 2]);
  const g = cli(['gen']);
  assert.is(g.status, 0, g.stderr);
  for (const k of ['dynamic_trt_resize', 'knn_query']) {
    sh('g++', [
      ...CXXFLAGS,
      `-I${path.join(dir, 'out', 'include')}`,
      '-c',
      path.join(dir, 'ops', 'kernels', `${k}.cpp`),
      '-o',
      path.join(dir, `${k}.o`),
    ]);
  }
  assert.match(cli(['from-onnx', model]).stdout, /skipped .*dynamic_trt_resize\.yaml \(exists\)/);
});

testWith(['torch', 'onnx'], 'models exported from PyTorch with opforge_ops read back to the ops they came from', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-onnx-torch-'));
  const model = path.join(dir, 'exported.onnx');
  // One model with both ops, exported by the legacy exporter (torch 1.13 in CI) and shape-inferred.
  python(
    `
import sys, torch, onnx, opforge_ops as oo
class M(torch.nn.Module):
    def forward(self, x, size, p, o, q, qo):
        idx, d2 = oo.knn_query(p, o, q, qo, nsample=4)
        return oo.dynamic_trt_resize(x, size, align_corners=True), idx, d2
args = (torch.randn(2, 3, 8, 8), torch.zeros(1, 1, 16, 16), torch.rand(20, 3), torch.tensor([8, 20], dtype=torch.int32),
        torch.rand(6, 3), torch.tensor([2, 6], dtype=torch.int32))
torch.onnx.export(M(), args, sys.argv[1], input_names=['x', 'size', 'p', 'o', 'q', 'qo'], output_names=['y', 'idx', 'd2'],
                  dynamic_axes={'x': {0: 'N'}, 'q': {0: 'm'}}, opset_version=17, **oo.export_options(dynamo=False))
onnx.save(oo.infer_shapes(onnx.load(sys.argv[1])), sys.argv[1])
`,
    [model],
    { PYTHONPATH: path.join(outDir, 'python'), OPFORGE_TORCH_NO_EXTENSION: '1' },
  );
  const found = customOpsOf(readFileSync(model));
  assert.equal(
    found.map((o) => `${o.domain}::${o.opType}@${o.version}`),
    ['custom::DynamicTRTResize@1', 'custom::KNNQuery@1'],
  );
  const [resize, knn] = found as [(typeof found)[0], (typeof found)[0]];
  assert.equal(
    resize.inputs.map((i) => [...i.dtypes]),
    [['float32'], ['float32']],
  );
  assert.equal(
    resize.inputs.map((i) => [...i.ranks]),
    [[4], [4]],
  );
  assert.equal(
    [...resize.attributes.entries()].map(([k, a]) => [k, a.type, a.values]),
    [['align_corners', 'int', [1]]],
  );
  assert.equal(resize.outputs[0]!.shapes, ['[N, 3, 16, 16]']);
  assert.equal(
    knn.inputs.map((i) => [...i.dtypes][0]),
    ['float32', 'int32', 'float32', 'int32'],
  );
  assert.equal(
    [...knn.attributes.entries()].map(([k, a]) => [k, a.type, a.values]),
    [['nsample', 'int', [4]]],
  );
  assert.equal(
    knn.outputs.map((o) => [[...o.dtypes][0], o.shapes[0]]),
    [
      ['int32', '[m, 4]'],
      ['float32', '[m, 4]'],
    ],
  );
});

test.run();
