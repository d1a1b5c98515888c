// `opforge from-onnx model.onnx`: finds the nodes a model uses that no standard ONNX domain
// defines and writes one spec skeleton per op type (plus kernel stubs): inputs and outputs
// counted, attributes with their types and observed values, dtypes and ranks from the graph's
// value_info where present. What TensorRT's plugin generator does for TensorRT, for every backend.

import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import onnxProto from 'onnx-proto';
import { stringify } from 'yaml';
import { identProblem, toSnake } from '../model/names.js';
import { STANDARD_DOMAINS, STANDARD_ONNX_OPS } from '../model/onnx-std-ops.js';
import { writeKernelStubs } from './scaffold.js';
import { DTYPES, DTYPE_INFO, type AttrType, type DType } from '../model/type-table.js';

const { onnx } = onnxProto;

interface Observed {
  domain: string;
  opType: string;
  version: number;
  nodes: number;
  inputs: { dtypes: Set<DType>; ranks: Set<number>; optional: boolean }[];
  outputs: { dtypes: Set<DType>; ranks: Set<number>; shapes: string[] }[];
  attributes: Map<string, { type: AttrType; values: unknown[] }>;
}

const BY_ONNX = new Map<number, DType>(DTYPES.map((d) => [DTYPE_INFO[d].onnx.value, d]));

function attrOf(a: onnxProto.onnx.IAttributeProto): { type: AttrType; value: unknown } | undefined {
  const T = onnx.AttributeProto.AttributeType;
  switch (a.type) {
    case T.INT:
      return { type: 'int', value: Number(a.i) };
    case T.FLOAT:
      return { type: 'float', value: a.f ?? 0 };
    case T.STRING:
      return { type: 'string', value: new TextDecoder().decode(a.s ?? new Uint8Array()) };
    case T.INTS:
      return { type: 'ints', value: (a.ints ?? []).map(Number) };
    case T.FLOATS:
      return { type: 'floats', value: [...(a.floats ?? [])] };
    default:
      return undefined;
  }
}

export function customOpsOf(modelBytes: Uint8Array): Observed[] {
  const model = onnx.ModelProto.decode(modelBytes);
  const graph = model.graph;
  if (!graph) throw new Error('the model has no graph');
  const types = new Map<string, { dtype?: DType; dims?: string[] }>();
  for (const vi of [...(graph.input ?? []), ...(graph.output ?? []), ...(graph.valueInfo ?? [])]) {
    const tt = vi.type?.tensorType;
    if (!vi.name || !tt) continue;
    const dims = tt.shape
      ? (tt.shape.dim ?? []).map((d: onnxProto.onnx.TensorShapeProto.IDimension) =>
          d.dimParam ? d.dimParam : d.dimValue !== undefined && d.dimValue !== null ? String(d.dimValue) : '?',
        )
      : undefined;
    types.set(vi.name, { dtype: BY_ONNX.get(tt.elemType ?? -1), ...(dims ? { dims } : {}) });
  }
  const opset = new Map((model.opsetImport ?? []).map((o) => [o.domain ?? '', Number(o.version)]));
  const found = new Map<string, Observed>();
  for (const node of graph.node ?? []) {
    const domain = node.domain ?? '';
    const opType = node.opType ?? '';
    if (STANDARD_DOMAINS.has(domain) && STANDARD_ONNX_OPS.has(opType)) continue;
    const key = `${domain}::${opType}`;
    let o = found.get(key);
    if (!o) {
      o = {
        domain: domain || 'custom',
        opType,
        version: opset.get(domain) ?? 1,
        nodes: 0,
        inputs: [],
        outputs: [],
        attributes: new Map(),
      };
      found.set(key, o);
    }
    o.nodes++;
    (node.input ?? []).forEach((name, k) => {
      const slot = (o!.inputs[k] ??= { dtypes: new Set(), ranks: new Set(), optional: false });
      if (name === '') {
        slot.optional = true;
        return;
      }
      const t = types.get(name);
      if (t?.dtype) slot.dtypes.add(t.dtype);
      if (t?.dims) slot.ranks.add(t.dims.length);
    });
    (node.output ?? []).forEach((name, k) => {
      const slot = (o!.outputs[k] ??= { dtypes: new Set(), ranks: new Set(), shapes: [] });
      const t = types.get(name);
      if (t?.dtype) slot.dtypes.add(t.dtype);
      if (t?.dims) {
        slot.ranks.add(t.dims.length);
        slot.shapes.push(`[${t.dims.join(', ')}]`);
      }
    });
    for (const a of node.attribute ?? []) {
      const v = attrOf(a);
      if (!v || !a.name) continue;
      const entry = o.attributes.get(a.name) ?? { type: v.type, values: [] };
      entry.values.push(v.value);
      o.attributes.set(a.name, entry);
    }
  }
  return [...found.values()].sort((a, b) => (a.opType < b.opType ? -1 : 1));
}

function safeIdent(s: string, fallback: string): string {
  const cleaned = s.replace(/[^A-Za-z0-9_]/g, '_').replace(/^([0-9])/, '_$1');
  return cleaned && !identProblem(cleaned) ? cleaned : fallback;
}

export function specFor(o: Observed): string {
  const name = safeIdent(o.opType, 'CustomOp');
  const snake = toSnake(name);
  const tv = new Set<DType>();
  const dtypeOf = (ds: Set<DType>): string => {
    if (ds.size === 1) return [...ds][0]!;
    [...(ds.size ? ds : new Set<DType>(['float32']))].forEach((d) => tv.add(d));
    return 'T';
  };
  const inputs = o.inputs.map((s, k) => ({
    name: `input${k}`,
    dtype: dtypeOf(s.dtypes),
    ...(s.ranks.size === 1 ? { rank: [...s.ranks][0] } : {}),
    ...(s.optional ? { optional: true } : {}),
  }));
  // Output shapes cannot be read off a graph: same shape as the first input is the guess to edit.
  const outputs = o.outputs.map((s, k) => ({
    name: `output${k}`,
    dtype: dtypeOf(s.dtypes),
    shape: 'input0',
    description: s.shapes.length
      ? `observed shapes: ${[...new Set(s.shapes)].slice(0, 3).join(', ')}`
      : 'shape not recorded in the model',
  }));
  const attributes = [...o.attributes.entries()].sort().map(([an, a]) => ({
    name: safeIdent(an, 'attr'),
    type: a.type,
    default: a.values[0],
    description: `observed values: ${[...new Set(a.values.map((v) => JSON.stringify(v)))].slice(0, 5).join(', ')}`,
  }));
  const spec = {
    name,
    domain: o.domain,
    version: o.version,
    description: `Found ${o.nodes} node(s) of ${o.domain}::${o.opType} in the model. Check every TODO.`,
    ...(tv.size ? { types: { T: [...tv] } } : {}),
    inputs,
    outputs,
    ...(attributes.length ? { attributes } : {}),
    kernels: { cpu: `kernels/${snake}.cpp`, cuda: `kernels/${snake}.cu` },
  };
  return `# yaml-language-server: $schema=../schema/op.schema.json\n# Skeleton written by \`opforge from-onnx\`. TODO: names, output shapes (expressions), tests.\n${stringify(spec)}`;
}

/** Writes a spec and kernel stubs per custom op type; returns the files written. Skips existing specs. */
export function fromOnnx(modelPath: string, opsDir: string): { written: string[]; skipped: string[] } {
  const written: string[] = [];
  const skipped: string[] = [];
  mkdirSync(path.join(opsDir, 'kernels'), { recursive: true });
  for (const o of customOpsOf(readFileSync(modelPath))) {
    const text = specFor(o);
    const snake = toSnake(safeIdent(o.opType, 'CustomOp'));
    const spec = path.join(opsDir, `${snake}.yaml`);
    if (existsSync(spec)) {
      skipped.push(spec);
      continue;
    }
    const cpu = path.join(opsDir, 'kernels', `${snake}.cpp`);
    const cu = path.join(opsDir, 'kernels', `${snake}.cu`);
    writeFileSync(spec, text);
    writeKernelStubs(spec, cpu, cu, opsDir);
    written.push(spec, cpu, cu);
  }
  return { written, skipped };
}
