// A synthetic ops/ tree of N varied ops (inputs, attributes, type variables, shape expressions)
// for generator benchmarks. Deterministic for a given N.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The kernel files every synthetic spec names (gen only checks that they exist). */
function writeKernels(dir: string, ...names: string[]): void {
  mkdirSync(path.join(dir, 'kernels'), { recursive: true });
  for (const k of names) writeFileSync(path.join(dir, 'kernels', k), '// benchmark kernel placeholder\n');
}

export function writeSyntheticOps(dir: string, n: number): void {
  writeKernels(dir, 'k.cpp', 'k.cu');
  for (let i = 0; i < n; i++) writeFileSync(path.join(dir, `op_${String(i).padStart(4, '0')}.yaml`), spec(i));
}

function spec(i: number): string {
  const nIn = 1 + (i % 4);
  const nAttr = i % 6;
  const rank = 2 + (i % 3);
  const types =
    i % 3 === 0 && nIn > 1 ? '  T: [float32, float16]\n  U: [int32, int64]\n' : '  T: [float32, float16, float64]\n';
  const inputs = Array.from({ length: nIn }, (_, k) => {
    const dtype = i % 3 === 0 && k === nIn - 1 && k > 0 ? 'U' : 'T'; // U only when there is a second input
    const shape =
      k === 0
        ? `    rank: ${rank}`
        : k === 1
          ? '    shape: in0'
          : `    shape: [${Array.from({ length: rank }, (_, d) => (d === 0 ? 'in0[0]' : "'?'")).join(', ')}]`;
    return `  - name: in${k}\n    dtype: ${dtype}\n${shape}`;
  }).join('\n');
  const attrs = Array.from({ length: nAttr }, (_, k) => {
    const kinds = [
      `  - { name: a${k}, type: int, default: ${k + 1}, min: 1, max: 64 }`,
      `  - { name: a${k}, type: float, default: 0.5 }`,
      `  - { name: a${k}, type: string, default: linear, enum: [linear, nearest, cubic] }`,
      `  - { name: a${k}, type: ints, default: [1, 2, 3] }`,
      `  - { name: a${k}, type: bool, default: true }`,
      `  - { name: a${k}, type: floats, default: [0.1, 0.2] }`,
    ];
    return kinds[(i + k) % kinds.length]!;
  }).join('\n');
  const hasInt = Array.from({ length: nAttr }, (_, k) => (i + k) % 6 === 0).indexOf(true);
  const k0 = hasInt >= 0 ? `a${hasInt}` : '2';
  const dims = Array.from({ length: rank }, (_, d) =>
    d === 0
      ? 'in0[0]'
      : d === rank - 1
        ? `'ceil_div(in0[${d}] + 2 * ${k0} - 3, 2) + 1'`
        : `'max(in0[${d}], ${k0}) * 2 // 3'`,
  );
  const outputs = [
    `  - name: out0\n    dtype: T\n    shape: [${dims.join(', ')}]`,
    ...(i % 2 ? ['  - name: out1\n    dtype: T\n    shape: in0'] : []),
  ].join('\n');
  return `# yaml-language-server: $schema=../schema/op.schema.json
name: SynthOp${i}
version: ${1 + (i % 3)}
description: Synthetic benchmark op number ${i}.
types:
${types}inputs:
${inputs}
outputs:
${outputs}
${nAttr ? `attributes:\n${attrs}\n` : ''}kernels:
  cpu: kernels/k.cpp
${i % 2 ? '  cuda: kernels/k.cu\n' : ''}`;
}

/**
 * `pairs` forward ops, each declaring a backward through its own gradient op (2 × pairs specs): the
 * shape of a training project, where loading resolves every backward against its gradient op.
 */
export function writeGradientPairs(dir: string, pairs: number): void {
  writeKernels(dir, 'k.cpp');
  // What the forward and gradient specs share: all but their tensors (and the forward's backward).
  const spec = (name: string, description: string, i: number, body: string): string => `name: ${name}
version: 1
description: ${description}
types:
  T: [float32, float16, float64]
${body}attributes:
  - { name: alpha, type: float, default: 0.5 }
  - { name: k, type: int, default: ${1 + (i % 4)}, min: 1 }
`;
  const kernels = 'kernels:\n  cpu: kernels/k.cpp\n';
  for (let i = 0; i < pairs; i++) {
    const n = String(i).padStart(4, '0');
    const two = i % 2 === 1; // a second input (and its gradient) for every other pair
    writeFileSync(
      path.join(dir, `fwd_${n}.yaml`),
      `${spec(
        `Fwd${i}`,
        `Forward benchmark op number ${i}.`,
        i,
        `inputs:
  - { name: x, dtype: T }
${two ? '  - { name: y, dtype: T, shape: x }\n' : ''}outputs:
  - { name: out, dtype: T, shape: x }
`,
      )}backward:
  - op: Fwd${i}Grad
    inputs: { grad_out: grad(out), x: x${two ? ', y: y' : ''} }
    outputs: { grad_x: x${two ? ', grad_y: y' : ''} }
${kernels}`,
    );
    writeFileSync(
      path.join(dir, `fwd_${n}_grad.yaml`),
      `${spec(
        `Fwd${i}Grad`,
        `The gradient of Fwd${i}.`,
        i,
        `inputs:
  - { name: grad_out, dtype: T }
  - { name: x, dtype: T, shape: grad_out }
${two ? '  - { name: y, dtype: T, shape: grad_out }\n' : ''}outputs:
  - { name: grad_x, dtype: T, shape: x }
${two ? '  - { name: grad_y, dtype: T, shape: x }\n' : ''}`,
      )}${kernels}`,
    );
  }
}
