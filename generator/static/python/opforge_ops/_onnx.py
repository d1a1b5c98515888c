"""ONNX: the OpSchema of each op with its type-and-shape inference, the onnxscript helpers the
dynamo exporter's translations call, and shape inference for models holding opforge nodes."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._dims import chosen_dtype
from ._library import _lock
from ._spec import OpInfo, unknown_data_dims
from ._types import ATTR_ONNX, ONNX_ELEM, ONNX_TYPE_STR


def onnx_infer_types(op: OpInfo, elem_types: Sequence[Optional[int]], shapes: Sequence[Optional[Sequence[Any]]],
                     attrs: Dict[str, Any]) -> List[Tuple[Optional[int], Optional[List[Any]]]]:
    """(elem_type, dims) per output from input elem types and dims (int, dim_param str or None)."""
    out_shapes = unknown_data_dims(op, op.output_shapes(shapes, attrs))
    result = []
    for o, shape in zip(op.outputs, out_shapes):
        if o.dtype_choice is not None:
            elem: Optional[int] = ONNX_ELEM[chosen_dtype(o.dtype_choice, attrs)]
        else:
            src = o.dtype_member if o.dtype_member is not None else o.dtype_from
            elem = ONNX_ELEM[o.dtypes[0]] if src is None or src >= len(elem_types) else elem_types[src]
        result.append((elem, shape))
    return result


def _onnx_attr_values(op: OpInfo, get: Callable[[str], Any]) -> Dict[str, Any]:
    import onnx.helper

    attrs = {}
    for a in op.attributes:
        p = get(a.name)
        if p is None:
            attrs[a.name] = a.default
            continue
        v = onnx.helper.get_attribute_value(p)
        if a.type == "bool":
            v = bool(v)
        elif a.type == "string":
            v = v.decode("utf-8") if isinstance(v, bytes) else v
        elif a.type in ("ints", "floats"):
            v = list(v)
        attrs[a.name] = v
    return attrs


def _type_dims(tp: Any) -> Tuple[Optional[int], Optional[List[Any]]]:
    if tp is None or not tp.HasField("tensor_type"):
        return None, None
    tt = tp.tensor_type
    elem = tt.elem_type or None
    if not tt.HasField("shape"):
        return elem, None
    dims: List[Any] = []
    for d in tt.shape.dim:
        dims.append(d.dim_value if d.HasField("dim_value") else (d.dim_param if d.HasField("dim_param") else None))
    return elem, dims


def _make_type(elem: Optional[int], dims: Optional[Sequence[Any]]) -> Any:
    import onnx

    tp = onnx.TypeProto()
    if elem is not None:
        tp.tensor_type.elem_type = elem
    if dims is not None:
        shape = tp.tensor_type.shape
        shape.SetInParent()
        for d in dims:
            nd = shape.dim.add()
            if isinstance(d, int):
                nd.dim_value = d
            elif isinstance(d, str):
                nd.dim_param = d
    return tp


def _node_arity(op: OpInfo, given: int) -> int:
    """How many of a node's inputs the spec reads: each input, or every member of a variadic one."""
    return given if op.variadic else len(op.inputs)


def _infer_in_context(op: OpInfo, ctx: Any) -> None:
    elems, shapes = [], []
    for i in range(_node_arity(op, ctx.get_num_inputs())):
        tp = ctx.get_input_type(i) if i < ctx.get_num_inputs() else None
        e, s = _type_dims(tp)
        elems.append(e)
        shapes.append(s)
    attrs = _onnx_attr_values(op, ctx.get_attribute)
    for i, (elem, dims) in enumerate(onnx_infer_types(op, elems, shapes, attrs)):
        if i < ctx.get_num_outputs():  # a node lists the present outputs (`present:`)
            ctx.set_output_type(i, _make_type(elem, dims))


def onnx_schema(op: OpInfo) -> Any:
    """The onnx.defs.OpSchema of the op (onnx >= 1.16), with a type-and-shape inference function."""
    import onnx
    from onnx.defs import OpSchema

    def param(name: str, type_str: str, optional: bool = False, min_arity: int = 0, homogeneous: bool = True) -> Any:
        if min_arity:
            # One type for every member (homogeneous), as the op core binds them; or each its own.
            return OpSchema.FormalParameter(name, type_str, "", param_option=OpSchema.FormalParameterOption.Variadic,
                                            is_homogeneous=homogeneous, min_arity=min_arity)
        opt = OpSchema.FormalParameterOption.Optional if optional else OpSchema.FormalParameterOption.Single
        return OpSchema.FormalParameter(name, type_str, "", param_option=opt)

    def type_str(dtypes: Tuple[str, ...], var: Optional[str]) -> str:
        return var if var is not None else ONNX_TYPE_STR[dtypes[0]]

    attributes = []
    for a in op.attributes:
        if a.required:
            attributes.append(OpSchema.Attribute(a.name, getattr(OpSchema.AttrType, ATTR_ONNX[a.type][0]), a.description, required=True))
        else:
            default = int(a.default) if a.type == "bool" else a.default
            # The type is given, not inferred: an empty list default has no element to infer it from.
            proto = onnx.helper.make_attribute(a.name, default, attr_type=ATTR_ONNX[a.type][1])
            attributes.append(OpSchema.Attribute(a.name, proto, a.description))
    # A heterogeneous variadic input's members take any of its dtypes each: a constraint of its own,
    # named apart from the spec's type variables (which are identifiers: no '.').
    each = [i for i in op.inputs if i.variadic and not i.homogeneous]
    member_types = {i.name: f"{i.name}.member" for i in each}
    schema = OpSchema(
        op.name, op.domain, op.version, op.doc,
        inputs=[param(i.name, member_types.get(i.name) or type_str(i.dtypes, i.type_var), i.optional,
                      i.min_count if i.variadic else 0, i.homogeneous) for i in op.inputs],
        outputs=[param(o.name, type_str(o.dtypes, o.type_var), o.present is not None) for o in op.outputs],
        type_constraints=[(name, [ONNX_TYPE_STR[d] for d in dts], "") for name, dts in op.type_vars]
        + [(member_types[i.name], [ONNX_TYPE_STR[d] for d in i.dtypes], "") for i in each],
        attributes=attributes,
    )
    if hasattr(schema, "set_type_and_shape_inference_function"):
        schema.set_type_and_shape_inference_function(lambda ctx: _infer_in_context(op, ctx))
    return schema


def register_onnx_schema(op: OpInfo) -> bool:
    """Registers the OpSchema once; False when this onnx has no Python schema registration (< 1.15)."""
    import onnx.defs

    if not hasattr(onnx.defs, "register_schema"):
        return False
    if not op.domain:
        return True  # an op of the default domain replaces a standard op, whose schema stands
    try:
        # onnx.reference (imported by onnxscript) indexes every registered schema by op type once,
        # and refuses an op type present in two domains (LeakyRelu in "" and in "custom"): let it
        # index the standard ops before ours exist.
        import onnx.reference  # noqa: F401
    except Exception:  # noqa: BLE001 - an onnx without the reference evaluator is fine
        pass
    with _lock:
        try:
            existing = onnx.defs.get_schema(op.name, op.version, op.domain)
        except Exception:  # SchemaError: not registered yet
            existing = None
        if existing is None or existing.since_version != op.version:
            onnx.defs.register_schema(onnx_schema(op))
    return True


_opsets: Dict[Tuple[str, int], Any] = {}


def onnxscript_opset(op: OpInfo) -> Any:
    """The onnxscript Opset of the op's domain (its schema must be registered first)."""
    from onnxscript import values

    key = (op.domain, op.version)
    if key not in _opsets:
        _opsets[key] = values.Opset(op.domain, op.version)
    return _opsets[key]


def onnx_list_attr(kind: str, name: str, value: Any) -> Any:
    """A list attribute for an onnxscript call. onnxscript infers a Python list's attribute type
    from its elements, so an empty list would become INTS; it is passed as a typed ir.Attr."""
    if len(value) > 0:
        return list(value)
    from onnxscript import ir

    return ir.Attr(name, ir.AttributeType.FLOATS if kind == "floats" else ir.AttributeType.INTS, [])


def infer_model_shapes(ops: Dict[Tuple[str, str], OpInfo], model: Any) -> Any:
    """ONNX shape inference for a model with opforge nodes, on any onnx version: standard nodes by
    onnx.shape_inference, opforge nodes by the spec's expressions. Returns a new ModelProto."""
    import onnx
    import onnx.shape_inference

    for _round in range(2):
        model = onnx.shape_inference.infer_shapes(model)
        g = model.graph
        types: Dict[str, Any] = {}
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            types[vi.name] = vi.type
        for init in g.initializer:
            types.setdefault(init.name, _make_type(init.data_type, list(init.dims)))
        value_info = {vi.name: vi for vi in g.value_info}
        outputs = {vi.name: vi for vi in g.output}
        for node in g.node:
            op = ops.get((node.domain, node.op_type))
            if op is None:
                continue
            elems, shapes = [], []
            for i in range(_node_arity(op, len(node.input))):
                name = node.input[i] if i < len(node.input) else ""
                e, s = _type_dims(types.get(name)) if name else (None, None)
                elems.append(e)
                shapes.append(s)
            by_name = {a.name: a for a in node.attribute}
            attrs = _onnx_attr_values(op, by_name.get)
            for name, (elem, dims) in zip(node.output, onnx_infer_types(op, elems, shapes, attrs)):
                if not name:
                    continue
                old_elem, old_dims = _type_dims(types.get(name))
                if dims is not None and old_dims is not None and len(old_dims) == len(dims):
                    # Keep what is already known where the spec's expression cannot say more.
                    dims = [d if d is not None else od for d, od in zip(dims, old_dims)]
                tp = _make_type(elem if elem is not None else old_elem, dims if dims is not None else old_dims)
                types[name] = tp
                target = outputs.get(name) or value_info.get(name)
                if target is None:
                    target = g.value_info.add()
                    target.name = name
                    value_info[name] = target
                target.type.CopyFrom(tp)
    return model
