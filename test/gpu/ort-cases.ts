// For the GPU machine's ONNX Runtime check (scripts/gpu/ort-check.sh): writes, for every op
// and every `tests:` case of its spec, two one-node ONNX models (input dims declared as in the
// case, and all dims symbolic) and cases.json describing inputs, attributes and tolerances, which
// scripts/gpu/ort_check.py turns into numpy inputs and references.
// Usage: node dist/test/gpu/ort-cases.js <dir> [--ops DIR] [--out DIR]   (default: the seed ops)

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dtypeUnder } from '../../generator/spec/ir-helpers.js';
import { opModel } from '../../runtime/op-model.js';
import { opsArgs } from './ops-args.js';

const { project, rest } = opsArgs(process.argv.slice(2), path.resolve('build/ort-cases/out'));
const dir = path.resolve(rest[0] ?? 'build/ort-cases');
mkdirSync(dir, { recursive: true });
const cases: unknown[] = [];
for (const op of project.ops) {
  for (const t of op.tests) {
    const models: Record<string, string> = {};
    for (const kind of ['declared', 'symbolic'] as const) {
      const inputShapes = Object.fromEntries(t.inputs.map((i) => [i.name, kind === 'declared' ? i.shape : i.shape.map((_, d) => `${i.name}_${d}`)]));
      const file = `${op.ident.snake}_case${t.index}_${kind}.onnx`;
      const omitInputs = op.inputs.filter((i) => !t.inputs.some((x) => x.name === i.name)).map((i) => i.name);  // optional, left out
      writeFileSync(path.join(dir, file), opModel(op, { binding: t.binding, attributes: t.attributes, inputShapes, omitInputs }));
      models[kind] = file;
    }
    cases.push({
      op: op.name, domain: op.domain, version: op.version, case: t.index, binding: t.binding.suffix, models,
      inputs: op.inputs.map((inp) => {
        const ti = t.inputs.find((x) => x.name === inp.name);
        return ti ? { name: inp.name, dtype: dtypeUnder(inp.type, t.binding), shape: ti.shape, values: ti.values ?? null, range: ti.range } : { name: inp.name, absent: true };
      }),
      outputs: op.outputs.map((o) => o.name), attributes: t.attributes, rtol: t.rtol, atol: t.atol, seed: t.seed,
    });
  }
}
writeFileSync(path.join(dir, 'cases.json'), JSON.stringify(cases, null, 1));
console.log(`${cases.length} cases, ${cases.length * 2} models in ${dir}`);
