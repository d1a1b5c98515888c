// A variadic input on the PyTorch side (test/fixtures/variadic): the schema's Tensor[], the C++
// kernel's at::TensorList after the other inputs, the Autograd Function's gradient per member; the
// op module's list parameter, its Input facts and the dynamo translation passing inputs by name;
// and the backward rules (a gradient op reads no variadic input).

import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { torchEmitter } from '../../generator/emit/torch/index.js';
import { pythonEmitter } from '../../generator/emit/torch-python/index.js';
import { loadProject } from '../../generator/model/project.js';
import { fixtures } from '../helpers/paths.js';
import { assertFacts, emitChecked, loose, opText } from './helpers/emitted.js';
import { loadSpecs, specErrors } from './helpers/spec-project.js';

const dir = path.join(fixtures, 'variadic');
const project = loadProject({ opsDir: path.join(dir, 'ops'), root: dir });
const cpp = emitChecked(torchEmitter, project, [/^torch\//]);
// Not emitChecked: the references copied into the package name their own file, not the spec.
const py = pythonEmitter.emit(project);

test('C++: Tensor[] in the schema, the members after the other inputs in the op core call', () => {
  assertFacts(
    opText(cpp, 'WeightedSum'),
    [
      loose('weighted_sum(Tensor bias, Tensor[] xs, *, float[] weights=[]) -> (Tensor, Tensor)'),
      loose('weightedSum(const at::Tensor& bias, at::TensorList xs, at::ArrayRef<double> weights)'),
      loose('opforge::torch_ext::run<op::Core>(attrs, {bias}, xs)'),
      // Only the other inputs decide whether a graph is recorded: the members take no gradient.
      loose('!(bias.requires_grad())'),
    ],
    'torch/weighted_sum.cpp',
  );
});

test('C++: the Autograd Function returns a gradient per member, from the count the forward saved', () => {
  assertFacts(
    opText(cpp, 'ScaleSum'),
    [
      loose('ctx->saved_data["opforge:members"] = static_cast<int64_t>(xs.size());'),
      loose('torch::autograd::variable_list d(1 + ctx->saved_data["opforge:members"].toInt());'),
      loose('callGradient("opforge::scale_sum_grad", {grads[0], saved[0]})'),
      loose('d[0] = r[0];'),
    ],
    'torch/scale_sum.cpp',
  );
});

test('Python: the list parameter, the Input facts, test members, and the translation by name', () => {
  const op = opText(py, 'WeightedSum');
  assertFacts(
    op,
    [
      loose('def weighted_sum(bias: torch.Tensor, xs: Sequence[torch.Tensor], *, weights: Sequence[float] = ())'),
      loose('xs: float32 | float64, 2 to 32 tensors of one dtype.'),
      loose(
        "_rt.Input('xs', ('float32', 'float64'), 'T', None, False, False, shape=0, shape_source=None, variadic=True, min_count=2)",
      ),
      loose("torch_schema='(Tensor bias, Tensor[] xs, *, float[] weights=[]) -> (Tensor, Tensor)'"),
      // count(xs) is the number of tensors from xs's place on.
      loose('[(len(shapes) - 1)],  # counts: [count(xs)]'),
      // Case 2 lists its three members in order: explicit values, explicit values, random.
      loose('((2,), (10.0, 20.0), (-1.0, 1.0)), ((2,), (100.0, 200.0), (-1.0, 1.0)), ((2,), None, (-1.0, 1.0))'),
      loose('.WeightedSum(bias=bias, xs=xs, weights=_rt.onnx_list_attr('),
    ],
    'python/opforge_ops/ops/weighted_sum.py',
  );
  // An op without a variadic input keeps its positional node call.
  assertFacts(opText(py, 'ScaleSumGrad'), [loose('.ScaleSumGrad(grad_y, s)')], 'scale_sum_grad.py');
});

const FORWARD = `name: Fwd
version: 1
types: { T: [float32] }
inputs:
  - { name: a, dtype: T }
  - { name: xs, dtype: T, variadic: true, shape: a }
outputs:
  - { name: y, dtype: T, shape: a }
backward:
  - op: FwdGrad
    inputs: { grad_y: grad(y), x: BOUND }
    outputs: { grad_a: a }
kernels: { cpu: kernels/fwd.cpp }
`;
const GRAD = `name: FwdGrad
version: 1
types: { T: [float32] }
inputs:
  - { name: grad_y, dtype: T }
  - { name: x, dtype: T, shape: grad_y }
outputs:
  - { name: grad_a, dtype: T, shape: grad_y }
kernels: { cpu: kernels/fwd_grad.cpp }
`;

test('backward: a gradient op may read the other inputs and outputs of a variadic op; members only into a variadic input', () => {
  // Reading `a` is fine (the spec loads); reading `xs` is refused where the spec says it.
  const ok = loadSpecs({ 'fwd.yaml': FORWARD.replace('BOUND', 'a'), 'fwd_grad.yaml': GRAD });
  assert.ok(ok.ops.find((o) => o.name === 'Fwd')!.backward);
  const errors = specErrors({ 'fwd.yaml': FORWARD.replace('BOUND', 'xs'), 'fwd_grad.yaml': GRAD });
  assert.ok(
    errors.some((d) => /`xs` is variadic: bind it to a variadic input of `FwdGrad`/.test(d.message)),
    errors.map((d) => d.message).join('\n'),
  );
});

test.run();
