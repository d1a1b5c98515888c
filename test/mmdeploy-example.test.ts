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
    '15 op(s) valid (GatherTopk, GridPriorsTRT, MMCVDeformConv2d, MMCVModulatedDeformConv2d, MMCVMultiLevelRoiAlign, MMCVMultiLevelRotatedRoiAlign, MMCVMultiScaleDeformableAttention, MMCVRoiAlign, ScaledDotProductAttentionTRT, ScatterND, TRTBatchedNMS, TRTBatchedRotatedNMS, TRTBicubicInterpolate, TRTInstanceNormalization, grid_sampler)',
  );
});

test('each op keeps MMDeploy’s op type and ONNX domain', () => {
  assert.equal(
    project.ops.map((o) => `${o.domain}::${o.name}`),
    [
      'mmdeploy::GatherTopk',
      'mmdeploy::GridPriorsTRT',
      'mmdeploy::MMCVDeformConv2d',
      'mmdeploy::MMCVModulatedDeformConv2d',
      'mmdeploy::MMCVMultiLevelRoiAlign',
      'mmdeploy::MMCVMultiLevelRotatedRoiAlign',
      'mmdeploy::MMCVMultiScaleDeformableAttention',
      'mmcv::MMCVRoiAlign',
      'mmdeploy::ScaledDotProductAttentionTRT',
      '::ScatterND',
      'mmdeploy::TRTBatchedNMS',
      'mmdeploy::TRTBatchedRotatedNMS',
      'mmdeploy::TRTBicubicInterpolate',
      'mmdeploy::TRTInstanceNormalization',
      'mmdeploy::grid_sampler',
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

/** `opforge run` in the copy (the Node addon the test built). */
const run = (...args: string[]) =>
  spawnSync(process.execPath, [path.join(root, 'dist', 'cli', 'opforge.js'), 'run', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });

test('a call that breaks a check is refused with the op, the check and its values (the Node addon the test built)', () => {
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

test('rank-generic shapes: GatherTopk and grid_sampler splice dims; they and ScatterND refuse calls their checks rule out', () => {
  const picked = run(
    'GatherTopk',
    '--input',
    'data=2,3,7,2,5',
    '--input',
    'indices=2,3,4:0,1,2,3,4,5,6,0,1,2,3,4,5,6,0,1,2,3,4,5,6,0,1,2',
  );
  assert.is(picked.status, 0, `${picked.stdout}${picked.stderr}`);
  assert.match(picked.stdout, 'output: [2, 3, 4, 2, 5]', 'indices dims, then data dims after rank(indices)');
  const sampled = run('grid_sampler', '--input', 'input=1,2,4,5,6', '--input', 'grid=1,3,2,7,3');
  assert.is(sampled.status, 0, `${sampled.stdout}${sampled.stderr}`);
  assert.match(sampled.stdout, 'output: [1, 2, 3, 2, 7]', 'N, C, then grid[1:-1]');
  const batch = run('GatherTopk', '--input', 'data=2,7,3', '--input', 'indices=3,4');
  assert.is(batch.status, 2, `${batch.stdout}${batch.stderr}`);
  assert.match(
    batch.stderr,
    "GatherTopk: check 'indices[:-1] == data[:rank(indices) - 1]' failed (indices[:-1] = [3], data[:rank(indices) - 1] = [2], rank(indices) = 2): indices and data share their batch dims",
  );
  const ranks = run('grid_sampler', '--input', 'input=1,2,4,4', '--input', 'grid=1,3,3,3,3');
  assert.is(ranks.status, 2, `${ranks.stdout}${ranks.stderr}`);
  assert.match(
    ranks.stderr,
    "grid_sampler: check 'rank(grid) == rank(input)' failed (rank(grid) = 5, rank(input) = 4): grid has one spatial dim per spatial dim of input",
  );
  // A list attribute of two lengths: MMDeploy's 4 padding values and MMCV's 2 run, 3 are refused.
  const dcn = (padding: string) =>
    run(
      'MMCVDeformConv2d',
      '--input',
      'input=1,2,5,5',
      '--input',
      'offset=1,18,5,5',
      '--input',
      'weight=2,2,3,3',
      '--attr',
      `padding=${padding}`,
    );
  for (const p of ['1,1', '1,1,1,1']) assert.is(dcn(p).status, 0, `padding ${p}: ${dcn(p).stderr}`);
  assert.match(dcn('1,1,1').stderr, 'MMCVDeformConv2d: attribute padding must have 2 or 4 elements, got 3');
  // A slice whose bound reads a dim (checks may: they run on the call's dims).
  const scatter = run('ScatterND', '--input', 'data=5,3,2', '--input', 'indices=3,1:4,0,2', '--input', 'updates=3,3,3');
  assert.is(scatter.status, 2, `${scatter.stdout}${scatter.stderr}`);
  assert.match(
    scatter.stderr,
    "ScatterND: check 'updates[rank(indices) - 1:] == data[indices[-1]:]' failed (updates[rank(indices) - 1:] = [3, 3], rank(indices) = 2, data[indices[-1]:] = [3, 2], indices[-1] = 1): each update is a slice of data after the indexed dims",
  );
});

test('TRTBatchedRotatedNMS keeps a square and itself turned 45 degrees (IoU sqrt(2)/2) only above that threshold; its class rule is a check', () => {
  // One class: A, B (A moved by 0.1: IoU 0.9, dropped) and C (A turned pi/4: the octagon, IoU 0.7071).
  const nms = (iou: string) =>
    run(
      'TRTBatchedRotatedNMS',
      '--input',
      'boxes=1,3,1,5:0,0,2,2,0,0.1,0,2,2,0,0,0,2,2,0.7853981633974483',
      '--input',
      'scores=1,3,1:0.9,0.8,0.7',
      ...['num_classes=1', 'keep_topk=3', 'background_label_id=-1', `iou_threshold=${iou}`].flatMap((a) => [
        '--attr',
        a,
      ]),
    );
  for (const [iou, labels] of [
    ['0.72', 'labels: [1, 3] 0 0 -1'],
    ['0.70', 'labels: [1, 3] 0 -1 -1'],
  ] as const) {
    const r = nms(iou);
    assert.is(r.status, 0, `${r.stdout}${r.stderr}`);
    assert.match(r.stdout, labels, `iou_threshold ${iou}`);
  }
  const classes = run(
    'TRTBatchedRotatedNMS',
    '--input',
    'boxes=1,3,2,5',
    '--input',
    'scores=1,3,3',
    '--attr',
    'num_classes=3',
    '--attr',
    'keep_topk=3',
  );
  assert.is(classes.status, 2, `${classes.stdout}${classes.stderr}`);
  assert.match(
    classes.stderr,
    "TRTBatchedRotatedNMS: check 'boxes[2] == 1 or boxes[2] == num_classes' failed (boxes[2] = 2, num_classes = 3): one box per class or one shared by every class",
  );
});

test('TRTBatchedNMS has the index output only with return_index, numbering per-class boxes class-major', () => {
  // Two boxes, each with its own box per class (B = 2, C = 2); class 1's box 1 scores best.
  const nms = (...attrs: string[]) =>
    run(
      'TRTBatchedNMS',
      '--input',
      'boxes=1,2,2,4:0,0,1,1,0,0,1,1,5,5,6,6,5,5,6,6',
      '--input',
      'scores=1,2,2:0.1,0.2,0.3,0.9',
      ...['num_classes=2', 'keep_topk=3', 'background_label_id=-1', ...attrs].flatMap((a) => ['--attr', a]),
    );
  const without = nms();
  assert.is(without.status, 0, `${without.stdout}${without.stderr}`);
  assert.not.match(without.stdout, 'index:');
  const withIndex = nms('return_index=1');
  assert.is(withIndex.status, 0, `${withIndex.stdout}${withIndex.stderr}`);
  // Best first: class 1 box 1 (index 1 * 2 + 1), class 0 box 1 (1), class 1 box 0 (2).
  assert.match(withIndex.stdout, 'labels: [1, 3] 1 0 1');
  assert.match(withIndex.stdout, 'index: [1, 3] 3 1 2');
});

firstLegTest('CUDA kernels compile with nvcc', () => clean(compileCuda(project)), [NVCC]);

test.run();
