"""The wrapper's argument checks - attribute types, enums and ranges, input dtypes and ranks, the
device - and their messages, which the compiled extension's match (opforge/torch/op_base.h)."""

from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Tuple

import torch

from ._library import _extension_has
from ._spec import Attr, OpInfo
from ._types import TORCH_DTYPES


_DTYPE_OF_TORCH = {v: k for k, v in TORCH_DTYPES.items()}


def check_attrs(op: OpInfo, given: Dict[str, Any]) -> Dict[str, Any]:
    """Fills defaults and checks types, enums and ranges; returns the attributes in spec order."""
    known = {a.name for a in op.attributes}
    unknown = sorted(set(given) - known)
    if unknown:
        raise TypeError(f"{op.name}: unknown attribute {unknown[0]!r}; attributes are {sorted(known) or 'none'}")
    out: Dict[str, Any] = {}
    for a in op.attributes:
        if a.name in given and given[a.name] is not None:
            v = _coerce_attr(op, a, given[a.name])
        elif a.required:
            raise TypeError(f"{op.name}: attribute {a.name!r} is required")
        else:
            v = a.default
        if a.enum is not None and v not in a.enum:
            raise ValueError(f"{op.name}: attribute {a.name!r} must be one of {list(a.enum)}, got {v!r}")
        values = v if isinstance(v, list) else [v]
        for x in values:
            if a.min is not None and not isinstance(x, str) and x < a.min:
                raise ValueError(f"{op.name}: attribute {a.name!r} must be >= {a.min}, got {x!r}")
            if a.max is not None and not isinstance(x, str) and x > a.max:
                raise ValueError(f"{op.name}: attribute {a.name!r} must be <= {a.max}, got {x!r}")
        out[a.name] = v
    return out


def _coerce_attr(op: OpInfo, a: Attr, v: Any) -> Any:
    def bad(expected: str) -> TypeError:
        return TypeError(f"{op.name}: attribute {a.name!r} must be {expected}, got {type(v).__name__} {v!r}")

    def is_int(x: Any) -> bool:
        return isinstance(x, int) and not isinstance(x, bool)

    if a.type == "bool":
        if not isinstance(v, bool):
            raise bad("a bool")
        return v
    if a.type == "int":
        if not is_int(v):
            raise bad("an int")
        return v
    if a.type == "float":
        if not (is_int(v) or isinstance(v, float)):
            raise bad("a float")
        return float(v)
    if a.type == "string":
        if not isinstance(v, str):
            raise bad("a str")
        return v
    if not isinstance(v, (list, tuple)):
        raise bad("a list")
    if a.type == "ints":
        if not all(is_int(x) for x in v):
            raise bad("a list of ints")
        return list(v)
    if not all(is_int(x) or isinstance(x, float) for x in v):
        raise bad("a list of floats")
    return [float(x) for x in v]


def check_inputs(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]]) -> None:
    bound: Dict[str, Tuple[str, str]] = {}
    for spec, t in zip(op.inputs, tensors):
        if t is None:
            if not spec.optional:
                raise TypeError(f"{op.name}: input {spec.name!r} is required")
            continue
        if not isinstance(t, torch.Tensor):
            raise TypeError(f"{op.name}: input {spec.name!r} must be a torch.Tensor, got {type(t).__name__}")
        dt = _DTYPE_OF_TORCH.get(t.dtype)
        if dt not in spec.dtypes:
            raise TypeError(f"{op.name}: input {spec.name!r} has dtype {t.dtype}, expected one of {list(spec.dtypes)}")
        if spec.type_var is not None:
            prev = bound.setdefault(spec.type_var, (dt, spec.name))
            if prev[0] != dt:
                raise TypeError(f"{op.name}: inputs {prev[1]!r} and {spec.name!r} share type {spec.type_var} but have dtypes {prev[0]} and {dt}")
        if spec.rank is not None and t.dim() != spec.rank:
            raise ValueError(f"{op.name}: input {spec.name!r} must have rank {spec.rank}, got {t.dim()}")


def no_cuda_kernel_message(op: OpInfo) -> str:
    """The error for CUDA inputs to an op whose spec names no CUDA kernel (the compiled extension's
    message too, opforge/torch/op_base.h): no silent copy to the CPU (docs/decisions.md)."""
    return (f"{op.name} has no CUDA kernel (its spec names no kernels.cuda), so it runs on the CPU only: "
            "move the inputs to the CPU (.cpu()) or add a CUDA kernel to the spec")


def check_device(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]]) -> None:
    """CUDA inputs need the op's CUDA kernel when the compiled extension runs it (the PyTorch
    reference, run without the extension, is plain PyTorch and runs on any device)."""
    if op.has_cuda or not any(t is not None and t.device.type == "cuda" for t in tensors):
        return
    if _extension_has(op):
        raise RuntimeError(no_cuda_kernel_message(op))


def checked(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> Dict[str, Any]:
    """The wrapper's checks (its own messages); the attribute values with defaults filled in."""
    values = check_attrs(op, attrs)
    check_inputs(op, inputs)
    check_device(op, inputs)
    return values
