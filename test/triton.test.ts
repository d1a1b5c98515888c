// Kernels written in Triton (kernels.triton, test/fixtures/triton): with no GPU, the build compiles
// each Triton kernel ahead of time for sm_90 (Triton's compiler, no device needed), the generated
// launchers compile under -Werror and link into the ONNX Runtime library's CUDA EP; the CPU kernels
// agree with the references. Running them on the GPU is scripts/gpu's (docs/gpu.md).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { generate } from '../generator/output/gen.js';
import { buildKernels } from '../runtime/kernels.js';
import { buildOrtLibrary } from '../runtime/ort.js';
import { fixtureProject } from './helpers/fixture-project.js';
import { NVCC, testNeeding } from './helpers/optional-tools.js';
import { PYTHON, hasModule } from './helpers/python.js';
import { sh } from './helpers/cxx.js';

const project = fixtureProject('triton');
const TRITON_OPS = ['triton_relu', 'triton_softmax', 'triton_row_normalize'];

testNeeding(
  [NVCC],
  'each Triton kernel compiles ahead of time for sm_90 and its launcher links into every op library',
  async () => {
    assert.ok(hasModule('triton'), `the test Python (${PYTHON}) has Triton (requirements-test.txt)`);
    const root = project();
    const outDir = path.join(root, 'out');
    generate({ opsDir: path.join(root, 'ops'), outDir, root });
    const k = await buildKernels({
      root,
      outDir,
      buildDir: path.join(root, 'build', 'kernels-sm90'),
      cuda: true,
      cudaArchs: '90',
      tritonPython: PYTHON,
      jobs: 2,
    });
    for (const op of TRITON_OPS) {
      assert.ok(
        k.objects.get(op)?.some((o) => o.endsWith(`${op}_triton.cpp.o`)),
        `${op}: its launcher object`,
      );
      const inc = readFileSync(
        path.join(root, 'build', 'kernels-sm90', 'triton', op, `${op}_triton_images.inc`),
        'utf8',
      );
      assert.match(inc, /with Triton 3\.6\.0 for sm 90:/);
      assert.match(inc, /\{90, opforge::triton::kCubin, (true|false), kCubin0_sm90,/);
    }
    // The ORT library built WITH_CUDA links the launchers (their cuda() overloads) with no undefined symbol.
    const lib = await buildOrtLibrary({
      root,
      outDir,
      buildDir: path.join(root, 'build', 'ort-sm90'),
      cuda: { architectures: '90' },
      kernels: k.defs,
    });
    const syms = sh('nm', ['-C', lib]);
    for (const op of TRITON_OPS) assert.match(syms, new RegExp(`opforge::ops::${op}::cuda\\(`));
  },
);

test.run();
