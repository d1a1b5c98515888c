// Kernels written in Triton (kernels.triton, test/fixtures/triton): with no GPU, the build compiles
// each Triton kernel ahead of time for sm_90 (Triton's compiler, no device needed), the generated
// launchers compile under -Werror and link into the ONNX Runtime library's CUDA EP; the CPU kernels
// agree with the references. Running them on the GPU is scripts/gpu's (docs/gpu.md).

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as assert from 'uvu/assert';
import { test } from 'uvu';
import { generate } from '../generator/output/gen.js';
import { buildKernels } from '../runtime/kernels.js';
import { buildOrtLibrary } from '../runtime/ort.js';
import { packageNpm } from '../runtime/package.js';
import { fixtureProject } from './helpers/fixture-project.js';
import { NVCC, cudaIncludeDir, testNeeding } from './helpers/optional-tools.js';
import { PYTHON, hasModule } from './helpers/python.js';
import { CXXFLAGS, sh } from './helpers/cxx.js';

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
      python: PYTHON,
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
      assert.match(inc, /\{90, opforge::triton::kCubin, (true|false), kCubin0_0_0_sm90,/);
      // One Kernel per variant and configuration: TritonRelu has 2 configurations, TritonSoftmax 3 for each value of its `log` attribute (a constexpr).
      const configs = { triton_relu: 2, triton_softmax: 6, triton_row_normalize: 1 }[op]!;
      const kernels = /const opforge::triton::Kernel kTriton0\[\] = \{([^;]*)\};/.exec(inc)?.[1] ?? '';
      assert.is(kernels.match(/\{kImages0_\d+_\d+,/g)?.length, configs, `${op}: its configurations`);
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

// What a user ships: `opforge package npm --cuda` builds the addon with the Triton kernels
// compiled in (the default architectures), and the tarball's prebuilt binary carries them.
testNeeding([NVCC], 'the npm package built with --cuda carries the compiled Triton kernels', async () => {
  const root = project();
  const tgz = await packageNpm({ root, cuda: true, dest: path.join(root, 'packages') });
  const unpacked = path.join(root, 'build', 'npm-unpacked');
  mkdirSync(unpacked, { recursive: true });
  sh('tar', ['-xzf', tgz, '-C', unpacked]);
  const addon = sh('find', [unpacked, '-name', '*.node']).trim().split('\n')[0]!;
  const bytes = readFileSync(addon);
  for (const kernel of ['relu_kernel', 'softmax_kernel', 'row_normalize_kernel'])
    assert.ok(bytes.includes(Buffer.from(`.entry ${kernel}(`)), `${kernel}'s PTX in ${path.basename(addon)}`);
  // A cubin per default architecture (75 80 90) and binding: ELF images embedded in the addon.
  assert.ok(bytes.includes(Buffer.from('.target sm_75')) && bytes.includes(Buffer.from('.target sm_90a')));
});

// The image a GPU gets (opforge/triton_launch.h's pick): a cubin of its major architecture at or
// below it, else a portable PTX at or below it, else none (the launch's error names both).
testNeeding(
  [NVCC],
  "the launcher picks the cubin of the GPU's major architecture, else a portable PTX, else none",
  () => {
    const dir = path.join(project(), 'build', 'pick');
    mkdirSync(dir, { recursive: true });
    const src = path.join(dir, 'pick.cpp');
    writeFileSync(
      src,
      `#include <cstdio>
#include "opforge/triton_launch.h"
using namespace opforge::triton;
static const unsigned char b[1] = {0};
int main() {
  const Image im[] = {{80, kCubin, true, b, 1, "k", 0}, {80, kPtx, true, b, 1, "k", 0},
                      {90, kCubin, false, b, 1, "k", 0}, {90, kPtx, false, b, 1, "k", 0}};
  const Kernel k{im, 4, 4, "3.6.0", "80;90"};
  const int ccs[] = {75, 80, 86, 89, 90, 100, 120};
  for (int cc : ccs) {
    const Image* p = detail::pick(k, cc);
    std::printf("%d:%s%d ", cc, p == nullptr ? "none" : p->kind == kCubin ? "cubin" : "ptx", p == nullptr ? 0 : p->arch);
  }
  const int defaults[][2] = {{90, 1}, {100, 2}};
  for (int cc : ccs) std::printf("%d->%d ", cc, configFor(cc, 3, defaults, 2));
  opforge::CudaContext tactic2;
  tactic2.tactic = 2;
  std::printf("tactic2->%d", configOf(tactic2, 3, defaults, 2));
  return 0;
}
`,
    );
    const exe = path.join(dir, 'pick');
    sh('g++', [
      ...CXXFLAGS,
      `-I${path.join(project(), 'out', 'include')}`,
      '-isystem',
      cudaIncludeDir(),
      src,
      // The CUDA runtime the launcher calls (never reached here: no GPU is asked for).
      path.join(cudaIncludeDir(), '..', 'lib', 'libcudart_static.a'),
      '-ldl',
      '-lpthread',
      '-lrt',
      '-o',
      exe,
    ]);
    // sm_86/89 run the sm_80 cubin; sm_90 its own; newer GPUs JIT the sm_80 PTX (sm_90a's is not portable); sm_75 nothing.
    // The configuration: a GPU's declared default (`archs:`), else the first; a tactic wins.
    assert.is(
      sh(exe, []).trim(),
      '75:none0 80:cubin80 86:cubin80 89:cubin80 90:cubin90 100:ptx80 120:ptx80 75->0 80->0 86->0 89->0 90->1 100->2 120->0 tactic2->1',
    );
  },
);

test.run();
