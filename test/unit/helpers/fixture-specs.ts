// Fixture specs the emitter tests share. `ScaleShift` holds every attribute type (int, float,
// bool, string, ints, floats), enum-like ones (string and int), defaults and required ones, an
// optional input, two type variables (six dtype bindings), a fixed-dtype output and output
// dims computed from expressions over input dims and an int attribute. `PlainCopy` is the
// smallest op: one fixed dtype, no attributes, its output shaped like its input.

import type { OpIR, ProjectIR } from '../../../generator/model/ir.js';
import { loadSpecs } from './spec-project.js';

/**
 * A string made to break whatever literal or comment it lands in: quotes of every language,
 * a backslash, comment terminators, a trigraph, template and shell interpolation, a newline,
 * a tab and non-ASCII characters.
 */
export const HOSTILE = 'say "hi" it\'s \\ */ /* ??= ${x} `y` $z\nnext\tline é 😀';

/** YAML's double-quoted form of a string (JSON is a subset). */
const yamlString = (s: string): string => JSON.stringify(s);

export const SCALE_SHIFT_YAML = `name: ScaleShift
domain: unit.test
version: 3
description: ${yamlString(`Scales x. ${HOSTILE}`)}
types:
  T: [float32, float16, float64]
  I: [int32, int64]
inputs:
  - name: x
    dtype: T
    rank: 2
    description: The data.
  - name: idx
    dtype: I
    shape: [x[0]]
  - name: bias
    dtype: T
    optional: true
outputs:
  - name: y
    dtype: T
    shape: [x[0], x[1] * repeats + 1]
  - name: count
    dtype: int64
    shape: [ceil_div(x[1], 2)]
attributes:
  - name: alpha
    type: float
    default: 2.5
  - name: repeats
    type: int
    default: 3
    min: 1
  - name: enabled
    type: bool
    default: true
  - name: mode
    type: string
    default: nearest
    enum: [linear, nearest]
  - name: level
    type: int
    default: 2
    enum: [0, 1, 2]
  - name: sizes
    type: ints
    default: [4, -5, 6]
  - name: weights
    type: floats
    default: [0.5, -1.25]
  - name: label
    type: string
    default: ${yamlString(HOSTILE)}
  - name: gain
    type: float
    required: true
kernels:
  cpu: kernels/scale_shift.cpp
  cuda: kernels/scale_shift.cu
`;

export const PLAIN_COPY_YAML = `name: PlainCopy
version: 1
inputs:
  - name: src
    dtype: float32
outputs:
  - name: dst
    dtype: float32
    shape: src
kernels:
  cpu: kernels/plain_copy.cpp
`;

export interface Fixture {
  project: ProjectIR;
  scale: OpIR;
  plain: OpIR;
}

/** The two fixture ops loaded into one project (a fresh one per call: emitters must not mutate it). */
export function fixtureProject(): Fixture {
  const project = loadSpecs({ 'scale_shift.yaml': SCALE_SHIFT_YAML, 'plain_copy.yaml': PLAIN_COPY_YAML });
  const op = (name: string): OpIR => {
    const found = project.ops.find((o) => o.name === name);
    if (!found) throw new Error(`fixture op ${name} missing`);
    return found;
  };
  return { project, scale: op('ScaleShift'), plain: op('PlainCopy') };
}

/** An op with a `backward`: Blend's gradients come from BlendGrad, fed the output's gradient and both inputs. */
export const BLEND_YAML = `name: Blend
version: 1
types:
  T: [float32, float64]
inputs:
  - name: a
    dtype: T
  - name: b
    dtype: T
    shape: a
outputs:
  - name: y
    dtype: T
    shape: a
attributes:
  - name: w
    type: float
    default: 0.25
backward:
  - op: BlendGrad
    inputs: { grad_y: grad(y), a: a, b: b }
    attributes: { w: w }
    outputs: { grad_a: a, grad_b: b }
kernels:
  cpu: kernels/blend.cpp
`;

export const BLEND_GRAD_YAML = `name: BlendGrad
version: 1
types:
  T: [float32, float64]
inputs:
  - name: grad_y
    dtype: T
  - name: a
    dtype: T
    shape: grad_y
  - name: b
    dtype: T
    shape: grad_y
outputs:
  - name: grad_a
    dtype: T
    shape: grad_y
  - name: grad_b
    dtype: T
    shape: grad_y
attributes:
  - name: w
    type: float
    default: 0.25
kernels:
  cpu: kernels/blend_grad.cpp
`;

/** Blend and its gradient op in one project. */
export function gradientProject(): { project: ProjectIR; blend: OpIR; grad: OpIR } {
  const project = loadSpecs({ 'blend.yaml': BLEND_YAML, 'blend_grad.yaml': BLEND_GRAD_YAML });
  const [blend, grad] = ['Blend', 'BlendGrad'].map((n) => project.ops.find((o) => o.name === n));
  if (!blend || !grad) throw new Error('fixture ops missing');
  return { project, blend, grad };
}
