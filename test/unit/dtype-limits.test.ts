// Spec dtypes a backend cannot carry (generator/model/dtype-limits.ts), in-process: the limits of an
// op, and the audit of every backend's column in the type table. The warnings `check` and `gen`
// print: test/dtype-limits-warnings.test.ts. The run-time refusals are checked per
// backend: TensorRT by the lifecycle driver (test/trt.test.ts with TENSORRT_INCLUDE_DIR),
// PopART by its header compile (test/popart.test.ts with POPART_INCLUDE_DIR).

import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { dtypeLimits, LIMITED_BACKENDS, opDtypeLimits } from '../../generator/model/dtype-limits.js';
import { loadProject } from '../../generator/model/project.js';
import { DTYPES, DTYPE_INFO } from '../../generator/model/type-table.js';
import { fixtures } from '../helpers/paths.js';

test('a limit only optional inputs reach: the bindings run while they are left out', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'opforge-limits-'));
  mkdirSync(path.join(dir, 'ops', 'kernels'), { recursive: true });
  writeFileSync(path.join(dir, 'ops', 'kernels', 'k.cpp'), '');
  writeFileSync(
    path.join(dir, 'ops', 'opt.yaml'),
    [
      'name: OptLimit',
      'version: 1',
      'types: { T: [float32, float16] }',
      'inputs:',
      '  - { name: x, dtype: T }',
      '  - { name: w, dtype: int64, optional: true }',
      'outputs:',
      '  - { name: y, dtype: T, shape: x }',
      'kernels: { cpu: kernels/k.cpp }',
      '',
    ].join('\n'),
  );
  const [op] = loadProject({ opsDir: path.join(dir, 'ops') }).ops;
  assert.equal(
    opDtypeLimits(op!).map((l) => l.message),
    [
      'OptLimit: TensorRT < 10 has no int64 (w): bindings f32, f16 are refused there when it is given',
      'OptLimit: PopART has no int64 (w): bindings f32, f16 are refused there when it is given',
    ],
  );
});

test('audit: every backend column of the type table; only TensorRT and PopART lack dtypes', () => {
  for (const d of DTYPES) {
    const i = DTYPE_INFO[d];
    // ONNX, ONNX Runtime, PyTorch, Paddle and the Node runtime carry every spec dtype.
    assert.ok(
      i.onnx.name &&
        i.ort.startsWith('ONNX_TENSOR_ELEMENT_DATA_TYPE_') &&
        i.torch.aten &&
        i.paddle.startsWith('paddle::DataType::') &&
        i.tsArray,
      d,
    );
  }
  assert.equal(
    LIMITED_BACKENDS.map((b) => b.backend),
    ['TensorRT', 'PopART'],
  );
  const trt = LIMITED_BACKENDS[0]!;
  const popart = LIMITED_BACKENDS[1]!;
  // TensorRT: no float64 ever, kBF16 from 9, kINT64 from 10 (NvInferRuntimeBase.h of 8.6.1 / 10.x).
  assert.equal(Object.fromEntries(DTYPES.map((d) => [d, trt.since(d)])), {
    float32: 8,
    float16: 8,
    bfloat16: 9,
    float64: null,
    int8: 8,
    uint8: 8,
    int32: 8,
    int64: 10,
    bool: 8,
  });
  // PopART 3.4 popx::popType: no INT64, BFLOAT16 or DOUBLE.
  assert.equal(
    DTYPES.filter((d) => popart.since(d) === null),
    ['bfloat16', 'float64', 'int64'],
  );
  // The eight warnings test/dtype-limits-warnings.test.ts expects from the command.
  assert.is(dtypeLimits(loadProject({ opsDir: path.join(fixtures, 'dtypes', 'ops') })).length, 8);
});

test.run();
