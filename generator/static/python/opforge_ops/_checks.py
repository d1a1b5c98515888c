"""The wrapper's argument checks - attribute types, enums and ranges, input dtypes and ranks, the
device - and their messages, which the compiled extension's match (opforge/torch/op_base.h)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import torch

from ._attrs import MAX_MEMBERS, _coerce_attr, check_attrs, show  # noqa: F401  (this module's interface)
from ._dims import check_output_sizes, check_shapes, chosen_dtype, output_dims, rank_ok, rank_text
from ._library import _extension_has
from ._spec import Input, OpInfo
from ._types import TORCH_DTYPES


_DTYPE_OF_TORCH = {v: k for k, v in TORCH_DTYPES.items()}
#: Bytes per element, computed here once: a tensor made in the checks would enter a compiled graph.
_ITEMSIZE = {dt: torch.empty((), dtype=dt).element_size() for dt in TORCH_DTYPES.values()}


def check_inputs(op: OpInfo, inputs: Sequence[Any]) -> None:
    """Per input (a variadic input: a list of tensors, each member checked as the input): present
    where required, a tensor, its dtype, the dtype its type variable has, its rank."""
    bound: Dict[str, Tuple[str, str]] = {}
    for spec, given in zip(op.inputs, inputs):
        if spec.variadic:
            if not isinstance(given, (list, tuple)):
                raise TypeError(f"{op.name}: input {spec.name!r} is variadic: give a list or tuple of tensors, "
                                f"got {type(given).__module__}.{type(given).__name__}")
            if not spec.min_count <= len(given) <= MAX_MEMBERS:
                raise ValueError(f"{op.name}: input {spec.name!r} has {len(given)} members; it takes {spec.min_count} to {MAX_MEMBERS}")
            for m, t in enumerate(given):
                _check_tensor(op, spec, f"{spec.name!r} (member {m})", t, bound)
        elif given is None:
            if not spec.optional:
                raise TypeError(f"{op.name}: input {spec.name!r} is required")
        else:
            _check_tensor(op, spec, repr(spec.name), given, bound)


def _check_tensor(op: OpInfo, spec: Input, name: str, t: Any, bound: Dict[str, Tuple[str, str]]) -> None:
    """One tensor of a call: `name` names it ('x', or 'xs' (member 2)), `bound` holds the dtype each
    type variable took and where."""
    if not isinstance(t, torch.Tensor):
        raise TypeError(f"{op.name}: input {name} must be a torch.Tensor, got {type(t).__module__}.{type(t).__name__}")
    dt = _DTYPE_OF_TORCH.get(t.dtype)
    if dt not in spec.dtypes:
        raise TypeError(f"{op.name}: input {name} has dtype {t.dtype}, expected one of {list(spec.dtypes)}")
    if spec.type_var is not None:
        # A variadic input's members bind its type variable too: they have one dtype.
        prev = bound.setdefault(spec.type_var, (dt, name))
        if prev[0] != dt:
            raise TypeError(f"{op.name}: inputs {prev[1]} and {name} share type {spec.type_var} but have dtypes {prev[0]} and {dt}")
    if not rank_ok(spec.rank, t.dim()):
        raise ValueError(f"{op.name}: input {name} must have rank {rank_text(spec.rank)}, got {t.dim()}")


def check_dims(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> None:
    """The dims the spec constrains and every output's byte size, where the dims are plain ints
    (symbolic ones, under torch.compile or export, are the op core's to check when it runs).
    `tensors` are the call's (OpInfo.tensors: a variadic input's members in its place)."""
    shapes = [None if t is None else tuple(t.shape) for t in tensors]
    if any(s is not None and not all(type(d) is int for d in s) for s in shapes):
        return
    check_shapes(op, shapes, attrs)
    dims = output_dims(op, shapes, attrs)
    sizes = [_ITEMSIZE[dt] for dt in _output_dtypes(op, tensors, attrs)]
    check_output_sizes(op, dims, sizes)


def _output_dtypes(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> List[torch.dtype]:
    return [TORCH_DTYPES[chosen_dtype(o.dtype_choice, attrs)] if o.dtype_choice is not None
            else output_member_dtype(o, tensors) if o.dtype_member is not None
            else TORCH_DTYPES[o.dtypes[0]] if o.dtype_from is None or tensors[o.dtype_from] is None else tensors[o.dtype_from].dtype
            for o in op.outputs]


def output_member_dtype(o: Any, tensors: Sequence[Optional[torch.Tensor]]) -> torch.dtype:
    """A member of a variadic output following a heterogeneous input: its member's dtype (one the
    call lacks belongs to an absent output: the first allowed)."""
    t = tensors[o.dtype_member] if o.dtype_member < len(tensors) else None
    return TORCH_DTYPES[o.dtypes[0]] if t is None else t.dtype


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


def checked(op: OpInfo, inputs: Sequence[Any], attrs: Dict[str, Any]) -> Dict[str, Any]:
    """The wrapper's checks (its own messages); the attribute values with defaults filled in."""
    values = check_attrs(op, attrs)
    check_inputs(op, inputs)
    tensors = op.tensors(inputs)
    check_dims(op, tensors, values)
    check_device(op, tensors)
    return values
