// `opforge package ort` and `opforge package trt`: each tarball, unpacked somewhere else, holds the
// library, a README naming it and its versions, and build-info.json. The ONNX Runtime library is
// registered from there by onnxruntime in Python and runs a seed op's model, checked against the
// formula; the TensorRT library (where TensorRT's headers are) exports its entry points and needs
// no libnvinfer.

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { NVCC, testNeeding, testUnless } from './helpers/optional-tools.js';
import { root } from './helpers/paths.js';
import { PYTHON, testWith } from './helpers/python.js';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'opforge-package-libraries-'));
test.after(() => rmSync(tmp, { recursive: true, force: true }));

const cli = path.join(root, 'dist', 'cli', 'opforge.js');
/** The seed ops as a project of their own, with a namespace and a version. */
const project = path.join(tmp, 'project');
cpSync(path.join(root, 'ops'), path.join(project, 'ops'), { recursive: true });
writeFileSync(
  path.join(project, 'package.json'),
  JSON.stringify({ name: 'seeds', version: '2.1.0', opforge: { namespace: 'acme_ops' } }),
);

function packaged(target: string, env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(process.execPath, [cli, 'package', target, '--quiet'], {
    cwd: project,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
  const tarball = path.join(project, 'packages', `acme_ops-${target}-2.1.0-${process.platform}-${process.arch}.tar.gz`);
  const into = path.join(tmp, `unpacked-${target}`);
  mkdirSync(into);
  const x = spawnSync('tar', ['-xzf', tarball, '-C', into], { encoding: 'utf8' });
  assert.is(x.status, 0, x.stderr);
  return path.join(into, path.basename(tarball, '.tar.gz'));
}

testWith(
  ['onnxruntime', 'onnx', 'numpy'],
  'the ONNX Runtime library, unpacked elsewhere, runs a seed op in onnxruntime',
  () => {
    const dir = packaged('ort');
    const lib = path.join(dir, 'libacme_ops_ort.so');
    const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
    const info = JSON.parse(readFileSync(path.join(dir, 'build-info.json'), 'utf8')) as {
      version: string;
      library: string;
      ortApiVersion: number;
      ops: { op: string; domain: string; version: number }[];
    };
    assert.is(info.version, '2.1.0');
    assert.is(info.library, 'libacme_ops_ort.so');
    assert.ok(info.ortApiVersion > 0, String(info.ortApiVersion));
    assert.match(readme, `against the ONNX Runtime C API version ${info.ortApiVersion}:`);
    assert.match(readme, 'so.register_custom_ops_library("libacme_ops_ort.so")');
    assert.match(readme, '| LeakyRelu | `custom` | 1 |');
    assert.equal(
      info.ops.find((o) => o.op === 'LeakyRelu'),
      { op: 'LeakyRelu', domain: 'custom', version: 1 },
    );
    const script = `
import sys, numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto
node = helper.make_node("LeakyRelu", ["x"], ["y"], domain="custom", alpha=0.25)
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom", 1)])
model.ir_version = 8
so = ort.SessionOptions()
so.register_custom_ops_library(sys.argv[1])
s = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
x = np.array([[1.0, -2.0, 0.5], [-4.0, 0.0, 3.0]], dtype=np.float32)
y = s.run(None, {"x": x})[0]
assert np.array_equal(y, np.where(x >= 0, x, 0.25 * x)), y
print("ok")
`;
    const r = spawnSync(PYTHON, ['-c', script, lib], { cwd: tmp, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
    assert.is(r.stdout.trim(), 'ok');
  },
);

const trtInclude = process.env.TENSORRT_INCLUDE_DIR;
const NO_TRT = "no TensorRT headers: set TENSORRT_INCLUDE_DIR to TensorRT's include/ (docs/tensorrt.md)";
const trtTest = (name: string, fn: Parameters<typeof test>[1]): void =>
  trtInclude ? testNeeding([NVCC], name, fn) : testUnless(NO_TRT, name, fn);

trtTest('the TensorRT plugin library, unpacked elsewhere, exports its entry points and needs no libnvinfer', () => {
  const dir = packaged('trt', { CUDAARCHS: '90' });
  const lib = path.join(dir, 'libopforge_trt_plugins.so');
  const symbols = spawnSync('nm', ['-D', '--defined-only', lib], { encoding: 'utf8' }).stdout;
  assert.match(symbols, / T getCreators$/m);
  assert.match(symbols, / T setLoggerFinder$/m);
  const needed = spawnSync('readelf', ['-d', lib], { encoding: 'utf8' }).stdout;
  assert.not.match(needed, /libnvinfer/);
  const info = JSON.parse(readFileSync(path.join(dir, 'build-info.json'), 'utf8')) as {
    tensorrt: string;
    cudaArchitectures: string[];
    plugins: { name: string; version: string }[];
  };
  const header = readFileSync(path.join(trtInclude!, 'NvInferVersion.h'), 'utf8');
  const major = /^#define (?:NV_TENSORRT_MAJOR|TRT_MAJOR_ENTERPRISE) (\d+)/m.exec(header)![1];
  assert.ok(info.tensorrt.startsWith(`${major}.`), info.tensorrt);
  assert.equal(info.cudaArchitectures, ['90']);
  assert.equal(
    info.plugins.find((p) => p.name === 'DynamicTRTResize'),
    { name: 'DynamicTRTResize', version: '1', namespace: '' },
  );
  const readme = readFileSync(path.join(dir, 'README.md'), 'utf8');
  assert.match(readme, `against the headers of TensorRT ${info.tensorrt}`);
  assert.match(readme, '--dynamicPlugins=libopforge_trt_plugins.so');
  assert.match(readme, '| DynamicTRTResize | 1 | (none) |');
});

test.run();
