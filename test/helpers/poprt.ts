// PopRT's shape inference as a test drives it: the project's out/popart/custom_shape_inference.py
// run under test/fixtures/poprt-stub (poprt.passes' registry and helpers) on one-node models.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { fixtures } from './paths.js';
import { PYTHON } from './python.js';

const DRIVER = `
import json, runpy, sys
from onnx import helper, TensorProto
sys.path.insert(0, sys.argv[2])
import poprt.passes as passes
runpy.run_path(sys.argv[1])
request = json.loads(sys.stdin.read())
domain = request['domain']
out = []
for op, inputs, outputs, attrs in request['calls']:
    ins = [helper.make_tensor_value_info(n, getattr(TensorProto, t), d) for n, t, d in inputs]
    node = helper.make_node(op, [n for n, _, _ in inputs], outputs, domain=domain, **attrs)
    graph = helper.make_graph([node], 'g', ins, [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13), helper.make_opsetid(domain, 1)])
    model, ok = passes.SHAPE_FUNCS[op]()(model, node)
    out.append([ok, [[passes.get_dtype(model.graph, n), passes.get_shape(model.graph, n)] for n in outputs]])
print(json.dumps(out))
`;

/** One node: its op, inputs as [name, TensorProto dtype name, dims] (a string dim is symbolic), output names and attributes. */
export type PoprtCall = [op: string, inputs: [string, string, (number | string)[]][], outputs: string[], attrs: object];

/** Per call: whether the op's shape function inferred, and each output's [TensorProto dtype, dims] (null where unknown). */
export type PoprtResult = [boolean, [number | null, number[] | null][]][];

/** Runs the shape functions of the project in `dir` (out/ generated) on `calls`, nodes of `domain`. */
export function poprtShapeInference(dir: string, domain: string, calls: readonly PoprtCall[]): PoprtResult {
  const r = spawnSync(
    PYTHON,
    ['-c', DRIVER, path.join(dir, 'out', 'popart', 'custom_shape_inference.py'), path.join(fixtures, 'poprt-stub')],
    { input: JSON.stringify({ domain, calls }), encoding: 'utf8' },
  );
  assert.is(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as PoprtResult;
}
