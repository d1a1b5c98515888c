// Shared by the Paddle and PopART tests: the adapter fixture project (an optional input and every
// attribute type) emitted into build/, and seeded test-case inputs as the references see them.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { coreEmitter } from '../../generator/emit/core/index.js';
import type { Emitter } from '../../generator/emit/emitter.js';
import type { OpIR, ProjectIR, TestCaseIR } from '../../generator/model/ir.js';
import { caseInputDtype } from '../../generator/model/ir-helpers.js';
import { loadProject } from '../../generator/model/project.js';
import type { DType } from '../../generator/model/type-table.js';
import { halfToNumber, numberToHalf } from './half.js';
import { fixtures } from './paths.js';
import { rng } from './references.js';

export const adapterOpsDir = path.join(fixtures, 'adapters', 'ops');

/** Loads the fixture project and writes the op core plus the given backend into outDir. */
export function emitFixture(outDir: string, backend: Emitter): ProjectIR {
  const project = loadProject({ opsDir: adapterOpsDir });
  for (const f of [...coreEmitter.emit(project), ...backend.emit(project)]) {
    const p = path.join(outDir, f.path);
    mkdirSync(path.dirname(p), { recursive: true });
    writeFileSync(p, f.content);
  }
  return project;
}

export interface CaseInput {
  name: string;
  index: number;
  dtype: DType;
  dims: number[];
  values: number[];
}

/** The present inputs of a test case: seeded values as the kernel sees them (16-bit floats rounded). */
export function caseInputs(op: OpIR, t: TestCaseIR): CaseInput[] {
  const out: CaseInput[] = [];
  op.inputs.forEach((inp, k) => {
    const ti = t.inputs.find((x) => x.name === inp.name);
    if (!ti) return;
    const dtype = caseInputDtype(op, t, ti);
    const n = ti.shape.reduce((a, b) => a * b, 1);
    const r = rng(t.seed + k);
    let values = ti.values ?? Array.from({ length: n }, () => ti.range[0] + (ti.range[1] - ti.range[0]) * r());
    if (dtype.startsWith('int') || dtype === 'uint8') values = values.map(Math.floor);
    else if (dtype === 'float32') values = values.map(Math.fround);
    else if (dtype === 'float16') values = values.map((v) => halfToNumber(numberToHalf(v)));
    out.push({ name: inp.name, index: inp.index, dtype, dims: ti.shape, values });
  });
  return out;
}

/** Whether a value matches a reference within a test case's tolerances. */
export function close(got: number, want: number, t: TestCaseIR): boolean {
  return (
    got === want ||
    (Number.isNaN(got) && Number.isNaN(want)) ||
    Math.abs(got - want) <= t.atol + t.rtol * Math.abs(want)
  );
}
