// `opforge run <Op> --input name=d0,d1,... [--attr name=value] [--device cpu]`: runs one op of the
// built Node addon on seeded random inputs and prints output shapes, a few values and the time.

import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadProject } from '../generator/project.js';
import { DTYPE_INFO, type DType } from '../generator/type-table.js';
import { load } from './index.js';

interface RunArgs { op: string; inputs: string[]; attrs: string[]; device: string; opsDir: string; seed: number }

function parseAttr(raw: string, type: string): unknown {
  switch (type) {
    case 'bool': return raw === 'true' || raw === '1';
    case 'int': case 'float': return Number(raw);
    case 'ints': case 'floats': return raw === '' ? [] : raw.split(',').map(Number);
    default: return raw;
  }
}

export async function runOp(a: RunArgs): Promise<string> {
  if (a.device !== 'cpu') throw new Error(`--device ${a.device}: this build of the Node runtime runs on the CPU only (docs/runtime.md)`);
  const project = loadProject({ opsDir: a.opsDir });
  const op = project.ops.find((o) => o.name === a.op || o.ident.camel === a.op || o.ident.snake === a.op);
  if (!op) throw new Error(`no op ${a.op} (ops: ${project.ops.map((o) => o.name).join(', ')})`);
  // name=d0,d1,...[:v0,v1,...] — dims, then optional explicit values (e.g. KNNQuery offsets).
  const parsed = a.inputs.map((s) => {
    const [k, rest = ''] = s.split('=');
    const [d = '', v] = rest.split(':');
    return { name: k!, dims: d === '' ? [] : d.split(',').map(Number), values: v === undefined ? undefined : v.split(',').map(Number) };
  });
  const dims = new Map(parsed.map((p) => [p.name, p.dims]));
  const given = new Map(parsed.map((p) => [p.name, p.values]));
  for (const k of dims.keys()) if (!op.inputs.some((i) => i.name === k)) throw new Error(`${op.name} has no input ${k} (inputs: ${op.inputs.map((i) => i.name).join(', ')})`);
  let s = a.seed >>> 0;
  const rnd = (): number => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 4294967296; };
  const chosen = new Map<string, DType>();
  const tensors = op.inputs.map((i) => {
    const d = dims.get(i.name);
    if (!d) return undefined;
    const dtype = i.type.kind === 'fixed' ? i.type.dtype : (chosen.get(i.type.name) ?? i.type.dtypes[0]!);
    if (i.type.kind === 'var') chosen.set(i.type.name, dtype);
    const n = d.reduce((x, y) => x * y, 1);
    const Arr = globalThis[DTYPE_INFO[dtype].tsArray as 'Float32Array'] as unknown as new (n: number) => { [k: number]: number | bigint; length: number };
    const data = new Arr(n);
    const explicit = given.get(i.name);
    if (explicit && explicit.length !== n) throw new Error(`--input ${i.name}: ${explicit.length} values for ${n} elements`);
    for (let k = 0; k < n; k++) data[k] = explicit ? (DTYPE_INFO[dtype].tsElem === 'bigint' ? BigInt(explicit[k]!) : explicit[k]!) : DTYPE_INFO[dtype].tsElem === 'bigint' ? BigInt(Math.floor(rnd() * 100)) : DTYPE_INFO[dtype].isFloat ? rnd() * 2 - 1 : Math.floor(rnd() * 100);
    return { dtype, dims: d, data };
  });
  const attrs = Object.fromEntries(a.attrs.map((kv) => {
    const [k, v = ''] = kv.split('=');
    const spec = op.attributes.find((x) => x.name === k);
    return [k!, spec ? parseAttr(v, spec.type) : v];
  }));
  const mod = (await import(pathToFileURL(path.resolve('out', 'node', 'index.js')).href)) as { bind: (x: unknown) => Record<string, (...args: unknown[]) => Record<string, { dims: number[]; data: ArrayLike<number | bigint> }>> };
  const fn = mod.bind(load())[op.ident.camel]!;
  const t0 = performance.now();
  const out = fn(...tensors, attrs);
  const ms = performance.now() - t0;
  return [
    `${op.name} on cpu: ${ms.toFixed(3)} ms`,
    ...Object.entries(out).map(([k, t]) => `  ${k}: [${t.dims.join(', ')}] ${Array.from({ length: Math.min(6, t.data.length) }, (_, i) => String(t.data[i])).join(' ')}${t.data.length > 6 ? ' ...' : ''}`),
  ].join('\n');
}
