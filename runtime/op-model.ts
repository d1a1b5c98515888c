// A one-node ONNX model for an op, built from the IR with onnx-proto (no Python): the graph
// inputs and outputs are the op's, the node is in the op's domain, and the opset imports are
// ai.onnx 17 and the op's domain at its spec version (IR version 8). Used to run the ops through
// ONNX Runtime from Node and on the GPU machine.

import onnxProto from 'onnx-proto';
import { dtypeUnder, presentOutputs } from '../generator/model/ir-helpers.js';
import type { AttrValue, OpIR, TypeBinding } from '../generator/model/ir.js';
import { type ATTR_INFO, DTYPE_INFO } from '../generator/model/type-table.js';

const { onnx } = onnxProto;

export interface OpModelOptions {
  /** Dtype per type variable (op.bindings[0] when absent). */
  binding?: TypeBinding;
  /** Attribute values written on the node (omitted ones are left to the op's defaults). */
  attributes?: Record<string, AttrValue>;
  /** Declared input shapes by input name (number: fixed dim; string: symbolic); absent: rank only unknown. */
  inputShapes?: Record<string, readonly (number | string)[]>;
  /** Inputs left out of the node (optional inputs only: written as ''). */
  omitInputs?: readonly string[];
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
  const node: onnxProto.onnx.INodeProto = {
    name: `${op.name}_0`,
    opType: op.name,
    domain: op.domain,
    input: op.inputs.map((i) => (omit.has(i.name) ? '' : i.name)),
    // The outputs these attributes ask for (`present:`).
    output: outputs.map((o) => o.name),
    attribute: attrs,
  };
  const graph: onnxProto.onnx.IGraphProto = {
    name: `${op.name}_graph`,
    node: [node],
    input: op.inputs
      .filter((i) => !omit.has(i.name))
      .map((i) => valueInfo(i.name, DTYPE_INFO[dtypeUnder(i.type, b)].onnx.value, opts.inputShapes?.[i.name])),
    output: outputs.map((o) => valueInfo(o.name, DTYPE_INFO[dtypeUnder(o.type, b)].onnx.value, undefined)),
  };
  const opsets = [
    { domain: '', version: 17 },
    ...(op.domain === '' ? [] : [{ domain: op.domain, version: opts.opsetVersion ?? op.version }]),
  ];
  const model: onnxProto.onnx.IModelProto = { irVersion: 8, producerName: 'opforge', opsetImport: opsets, graph };
  return onnx.ModelProto.encode(onnx.ModelProto.create(model)).finish();
}
