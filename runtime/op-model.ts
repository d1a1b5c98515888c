// A one-node ONNX model for an op, built from the IR with onnx-proto (no Python): the graph
// inputs and outputs are the op's, the node is in the op's domain, and the opset imports are
// ai.onnx 17 and the op's domain at its spec version (IR version 8). Used to run the ops through
// ONNX Runtime from Node and on the GPU machine. A variadic input is one graph input per member
// (`xs.0`, `xs.1`, ...), listed after the other inputs as the node takes them.

import onnxProto from 'onnx-proto';
import { dtypeUnder, presentOutputs, variadicInput } from '../generator/model/ir-helpers.js';
import type { AttrValue, OpIR, TypeBinding } from '../generator/model/ir.js';
import { type ATTR_INFO, DTYPE_INFO, type DType } from '../generator/model/type-table.js';

const { onnx } = onnxProto;

export interface OpModelOptions {
  /** Dtype per type variable (op.bindings[0] when absent). */
  binding?: TypeBinding;
  /** Attribute values written on the node (omitted ones are left to the op's defaults). */
  attributes?: Record<string, AttrValue>;
  /** Declared input shapes by graph input name (number: fixed dim; string: symbolic); absent: rank only unknown. */
  inputShapes?: Record<string, readonly (number | string)[]>;
  /** Inputs left out of the node (optional inputs only: written as ''). */
  omitInputs?: readonly string[];
  /** How many members the node gives the variadic input, if the op has one (default: its min_count). */
  members?: number;
  /** A heterogeneous variadic input's: each member's dtype (default: the first its type variable allows). */
  memberDtypes?: readonly DType[];
  /** Extra attributes written as given (e.g. with another ONNX type, for error tests). */
  rawAttributes?: onnxProto.onnx.IAttributeProto[];
  /** Version the model imports the op's domain at (default: the op's spec version). */
  opsetVersion?: number;
}

/** The ONNX attribute of an opforge attribute value. */
export function onnxAttribute(
  name: string,
  type: keyof typeof ATTR_INFO,
  v: AttrValue,
): onnxProto.onnx.IAttributeProto {
  const T = onnx.AttributeProto.AttributeType;
  switch (type) {
    case 'bool':
      return { name, type: T.INT, i: v ? 1 : 0 };
    case 'int':
      return { name, type: T.INT, i: v as number };
    case 'float':
      return { name, type: T.FLOAT, f: v as number };
    case 'string':
      return { name, type: T.STRING, s: new TextEncoder().encode(v as string) };
    case 'ints':
      return { name, type: T.INTS, ints: v as number[] };
    case 'floats':
      return { name, type: T.FLOATS, floats: v as number[] };
  }
}

function valueInfo(
  name: string,
  elemType: number,
  dims: readonly (number | string)[] | undefined,
): onnxProto.onnx.IValueInfoProto {
  const shape = dims
    ? { dim: dims.map((d) => (typeof d === 'number' ? { dimValue: d } : { dimParam: d })) }
    : undefined;
  return { name, type: { tensorType: { elemType, ...(shape ? { shape } : {}) } } };
}

/**
 * The graph input of member `m` of variadic input `name`: `xs.0`, as the PyTorch side's exported
 * models name the members too. Spec names are identifiers, so no other input has such a name.
 */
export function memberInputName(name: string, m: number): string {
  return `${name}.${m}`;
}

/** One graph input of an op's model: the input it feeds, and which member of a variadic one. */
interface GraphInput {
  name: string;
  input: OpIR['inputs'][number];
  member?: number;
}

/** The graph inputs of an op's one-node model, in the node's order: each input given, a variadic input's `members` in its place. */
function graphInputs(op: OpIR, members: number, omitInputs: readonly string[] = []): GraphInput[] {
  const v = variadicInput(op);
  // Fewer members than min_count is allowed: tests write such models for ONNX Runtime to refuse.
  if (v && !(Number.isInteger(members) && members >= 0))
    throw new Error(`${op.name}: input ${v.name} cannot have ${members} members`);
  return op.inputs
    .filter((i) => !omitInputs.includes(i.name))
    .flatMap((input): GraphInput[] =>
      input === v
        ? Array.from({ length: members }, (_, m) => ({ name: memberInputName(input.name, m), input, member: m }))
        : [{ name: input.name, input }],
    );
}

/** A graph input's dtype: a heterogeneous member's own (`memberDtypes`, else its first allowed), else the binding's. */
function graphInputDtype(g: GraphInput, b: TypeBinding, memberDtypes: readonly DType[] | undefined): DType {
  const t = g.input.type;
  return t.kind === 'each' ? (memberDtypes?.[g.member!] ?? t.dtypes[0]!) : dtypeUnder(t, b);
}

/** An output's dtype: a member following a heterogeneous input's member has that member's, else the binding's. */
function graphOutputDtype(
  o: OpIR['outputs'][number],
  b: TypeBinding,
  memberDtypes: readonly DType[] | undefined,
): DType {
  return o.type.kind === 'each' ? (memberDtypes?.[o.member!.index] ?? o.type.dtypes[0]!) : dtypeUnder(o.type, b);
}

/** Serialized ModelProto with one node of `op`. */
export function opModel(op: OpIR, opts: OpModelOptions = {}): Uint8Array {
  const b = opts.binding ?? op.bindings[0]!;
  const omit = new Set(opts.omitInputs ?? []);
  const outputs = presentOutputs(op, opts.attributes ?? {});
  const attrs = [
    ...op.attributes
      .filter((a) => opts.attributes?.[a.name] !== undefined)
      .map((a) => onnxAttribute(a.name, a.type, opts.attributes![a.name]!)),
    ...(opts.rawAttributes ?? []),
  ];
  const given = graphInputs(op, opts.members ?? variadicInput(op)?.variadic?.min ?? 0, [...omit]);
  const node: onnxProto.onnx.INodeProto = {
    name: `${op.name}_0`,
    opType: op.name,
    domain: op.domain,
    // An omitted optional input keeps its place as ''; a variadic input's members fill the end.
    input: op.inputs.flatMap((i) => (omit.has(i.name) ? [''] : given.filter((g) => g.input === i).map((g) => g.name))),
    // The outputs these attributes ask for (`present:`).
    output: outputs.map((o) => o.name),
    attribute: attrs,
  };
  const graph: onnxProto.onnx.IGraphProto = {
    name: `${op.name}_graph`,
    node: [node],
    input: given.map((g) =>
      valueInfo(g.name, DTYPE_INFO[graphInputDtype(g, b, opts.memberDtypes)].onnx.value, opts.inputShapes?.[g.name]),
    ),
    output: outputs.map((o) =>
      valueInfo(o.name, DTYPE_INFO[graphOutputDtype(o, b, opts.memberDtypes)].onnx.value, undefined),
    ),
  };
  const opsets = [
    { domain: '', version: 17 },
    ...(op.domain === '' ? [] : [{ domain: op.domain, version: opts.opsetVersion ?? op.version }]),
  ];
  const model: onnxProto.onnx.IModelProto = { irVersion: 8, producerName: 'opforge', opsetImport: opsets, graph };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}
