// examples/mmdeploy: MMDeploy's TensorRT ops as a user's opforge project. `opforge check` on the
// example as it is committed, then gen and `opforge test` on a copy under build/ (its out/ and build
// dirs stay there between runs, so a rerun rebuilds only what changed), and nvcc on the CUDA kernels.
// Cost: about 45 s of CPU when the build dirs are warm; the first run builds every backend (minutes).

import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { root } from './helpers/paths.js';
import { NVCC } from './helpers/optional-tools.js';
import { firstLegTest, hasModule, hasPaddle, testWith } from './helpers/python.js';
import {
  compileCuda,
  describeFailures,
  prepare,
  runOpforgeTest,
  type BackendReport,
  type Project,
} from './specspace/run.js';

const example = path.join(root, 'examples', 'mmdeploy');
const dir = path.join(root, 'build', 'mmdeploy-example');
let project: Project;

function clean(r: BackendReport): void {
  assert.is(r.failures.length, 0, describeFailures(r));
  assert.ok(r.cases > 0, `${r.backend}: no case ran`);
}

test.before(() => {
  rmSync(path.join(dir, 'ops'), { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  // Timestamps kept: an unchanged kernel is not rebuilt on the next run.
  cpSync(path.join(example, 'ops'), path.join(dir, 'ops'), { recursive: true, preserveTimestamps: true });
  project = prepare(dir);
});

test('opforge check passes in the example as committed', () => {
  const r = spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'check'], {
    cwd: example,
    encoding: 'utf8',
  });
  assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
  assert.match(
    r.stdout,
    '7 op(s) valid (GridPriorsTRT, MMCVModulatedDeformConv2d, MMCVMultiScaleDeformableAttention, MMCVRoiAlign, ScaledDotProductAttentionTRT, TRTBicubicInterpolate, TRTInstanceNormalization)',
  );
});

test('each op keeps MMDeploy’s op type and ONNX domain', () => {
  assert.equal(
    project.ops.map((o) => `${o.domain}::${o.name}`),
    [
      'mmdeploy::GridPriorsTRT',
      'mmdeploy::MMCVModulatedDeformConv2d',
      'mmdeploy::MMCVMultiScaleDeformableAttention',
      'mmcv::MMCVRoiAlign',
      'mmdeploy::ScaledDotProductAttentionTRT',
      'mmdeploy::TRTBicubicInterpolate',
      'mmdeploy::TRTInstanceNormalization',
    ],
  );
});

testWith(['torch'], 'opforge test: every case agrees with the reference on every CPU column', async () => {
  const { reports, report } = await runOpforgeTest(project);
  for (const r of reports) clean(r);
  const paddle = ['paddle', 'paddle-grad', 'paddle-infer'];
  const jax = ['jax', 'jax-grad'];
  assert.equal(
    report.backends.filter((b) => b !== 'ort-dynamo' && !paddle.includes(b) && !jax.includes(b)),
    ['torch', 'grad', 'node', 'ort', 'ort-legacy', 'serialize'],
  );
  assert.equal(
    report.backends.filter((b) => jax.includes(b)),
    hasModule('jax') ? jax : [],
  );
  assert.equal(
    report.backends.filter((b) => paddle.includes(b)),
    hasPaddle ? ['paddle', 'paddle-infer'] : [],
  );
});

test('a call that breaks a check is refused with the op, the check and its values (the Node addon the test built)', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'run', ...args], {
      cwd: dir,
      encoding: 'utf8',
    });
  // 4 input channels in 3 groups; the shapes themselves fit (out 3 x 3 from a 5 x 5 input and a 3 x 3 kernel).
  const inputs = ['input=1,4,5,5', 'offset=1,18,3,3', 'mask=1,9,3,3', 'weight=3,4,3,3'].flatMap((i) => ['--input', i]);
  const r = run('MMCVModulatedDeformConv2d', ...inputs, '--attr', 'groups=3');
  assert.is(r.status, 2, `${r.stdout}${r.stderr}`);
  assert.match(
    r.stderr,
    "MMCVModulatedDeformConv2d: check 'weight[1] * groups == input[1]' failed (weight[1] = 4, groups = 3, input[1] = 4): weight holds C / groups input channels per filter",
  );
  const ok = run('MMCVModulatedDeformConv2d', ...inputs);
  assert.is(ok.status, 0, `${ok.stdout}${ok.stderr}`);
});

firstLegTest('CUDA kernels compile with nvcc', () => clean(compileCuda(project)), [NVCC]);

test.run();
