"""torch.onnx.export on any torch: the keyword arguments that write each op as one node, and
the legacy (TorchScript) exporter's autograd.Function with its symbolic."""

from __future__ import annotations

import importlib.util
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from ._dims import chosen_dtype
from ._library import TORCH_VERSION, eager_impl
from ._shapes import empty_outputs, present_flags, with_absent
from ._spec import OpInfo, unknown_data_dims
from ._types import DTYPE_OF_JIT, LEGACY_SUFFIX, TORCH_DTYPES


def export_options(opsets: Dict[str, int], table: Callable[[], Dict[Any, Callable[..., Any]]],
                   dynamo: Optional[bool] = None) -> Dict[str, Any]:
    """torch.onnx.export keyword arguments that write each op as one node: the dynamo exporter
    (custom_translation_table) where it is torch's default (>= 2.9) and onnxscript is installed,
    else the TorchScript one (custom_opsets, and dynamo=False where torch has the flag)."""
    import inspect
    has_flag = "dynamo" in inspect.signature(torch.onnx.export).parameters
    if dynamo is None:
        dynamo = has_flag and TORCH_VERSION >= (2, 9) and importlib.util.find_spec("onnxscript") is not None
    if dynamo:
        if not has_flag:
            raise RuntimeError(f"torch {torch.__version__} has no dynamo exporter (torch >= 2.5); use dynamo=False")
        # verbose=False: the dynamo exporter otherwise prints its progress to stdout.
        return {"dynamo": True, "custom_translation_table": table(), "verbose": False}
    return {"custom_opsets": opsets, **({"dynamo": False} if has_flag else {})}


_functions: Dict[str, type] = {}


def legacy_function(op: OpInfo) -> type:
    fn = _functions.get(op.qualname)
    if fn is None:
        fn = _functions[op.qualname] = make_function(op)
    return fn


def make_function(op: OpInfo) -> type:
    """The torch.autograd.Function the legacy exporter turns into one `domain::Name` node. It takes
    the call's tensors (OpInfo.tensors: a variadic input's members one by one, each an input of the
    node as ONNX lists them), then the attributes."""
    names = [a.name for a in op.attributes]

    def forward(ctx: Any, *args: Any) -> Any:
        impl = eager_impl(op)
        split = len(args) - len(names)
        attrs = dict(zip(names, args[split:]))
        if impl is not None and not torch.onnx.is_in_onnx_export():
            return impl(*op.grouped(args[:split]), **attrs)
        # Exporting needs only shapes and dtypes: no kernel runs (or needs to exist) to export a model.
        return empty_outputs(op, list(args[:split]), attrs, zeros=True)

    def symbolic(g: Any, *args: Any) -> Any:
        return legacy_symbolic(op, g, args)

    return type(op.name, (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "symbolic": staticmethod(symbolic),
        "__doc__": f"{op.onnx_op} for torch.onnx.export(dynamo=False).",
    })


def _value_dims(v: Any) -> Optional[List[Any]]:
    try:
        t = v.type()
        sizes = t.varyingSizes() if hasattr(t, "varyingSizes") else None
    except RuntimeError:
        return None
    return None if sizes is None else list(sizes)


def _value_dtype(v: Any) -> Optional[torch.dtype]:
    try:
        st = v.type().scalarType()
    except RuntimeError:
        return None
    return None if st is None else DTYPE_OF_JIT.get(st)


def legacy_symbolic(op: OpInfo, g: Any, args: Sequence[Any]) -> Any:
    """The node from the Function's arguments: the call's tensors (members included), then the attributes."""
    n = len(args) - len(op.attributes)
    values = list(args[:n])
    attrs = dict(zip((a.name for a in op.attributes), args[n:]))
    # Trailing absent optional inputs are dropped; an absent one before a present one becomes "".
    while values and values[-1] is None:
        values.pop()
    onnx_inputs = []
    for v in values:
        if v is None:
            none = g.op("prim::Constant")
            none.setType(torch._C.NoneType.get())
            onnx_inputs.append(none)
        else:
            onnx_inputs.append(v)
    kwargs = {}
    for a in op.attributes:
        v = attrs[a.name]
        kwargs[f"{a.name}_{LEGACY_SUFFIX[a.type]}"] = int(v) if a.type == "bool" else v
    # The node has the present outputs (`present:`); an absent one is None to the exporter (the
    # function the model calls never returns it, so nothing uses it).
    flags = present_flags(op, attrs)
    outs = g.op(op.onnx_op, *onnx_inputs, outputs=sum(flags), **kwargs)
    outs_t = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    shapes = unknown_data_dims(op, op.output_shapes([None if v is None else _value_dims(v) for v in args[:n]], attrs))
    for o, value, shape in zip([o for o, p in zip(op.outputs, flags) if p], outs_t, [s for s, p in zip(shapes, flags) if p]):
        if o.dtype_choice is not None:
            dt: Optional[torch.dtype] = TORCH_DTYPES[chosen_dtype(o.dtype_choice, attrs)]
        elif o.dtype_from is None and o.dtype_member is None:
            dt = TORCH_DTYPES[o.dtypes[0]]
        else:
            # The type variable's first input, or the heterogeneous input's member it follows.
            k = o.dtype_member if o.dtype_member is not None else o.dtype_from
            src = args[k] if k < n else None
            dt = _value_dtype(src) if src is not None else None
        if dt is None:
            continue
        t = torch._C.TensorType.create_from_tensor(torch.empty(0, dtype=dt))
        if shape is not None:
            t = t.with_sizes([d if isinstance(d, int) else None for d in shape])
        value.setType(t)
    return outs if all(flags) else with_absent(outs_t, flags)
