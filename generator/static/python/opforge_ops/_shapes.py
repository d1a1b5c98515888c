"""Shape arithmetic: the dim helpers every generated output_shapes function calls, and outputs
of the inferred shapes and dtypes (fake tensors, the legacy exporter's placeholder outputs)."""

from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from . import _dims
from ._spec import OpInfo
from ._types import TORCH_DTYPES


# ---- dim arithmetic shared by every shape function -------------------------------------
# A dim is an int, a torch.SymInt (fake tensors), a str (an ONNX dim_param) or None (unknown).
# Arithmetic on an unknown or symbolic-name dim gives None: ONNX cannot express it.


def _known(*xs: Any) -> bool:
    return all(x is not None and not isinstance(x, str) for x in xs)


def dim(shapes: Sequence[Optional[Sequence[Any]]], index: int, axis: int) -> Any:
    s = shapes[index] if index < len(shapes) else None
    if s is None or not -len(s) <= axis < len(s):
        return None
    return s[axis]


def rank(shapes: Sequence[Optional[Sequence[Any]]], index: int) -> Optional[int]:
    s = shapes[index] if index < len(shapes) else None
    return None if s is None else len(s)


def slice_of(shapes: Sequence[Optional[Sequence[Any]]], index: int, start: Any, end: Any, what: str) -> Optional[List[Any]]:
    """Dims input[start:end] of a spliced output (negative bounds from the end); None where the
    input's rank or a bound is unknown; ValueError, `what` naming the slice, outside its dims."""
    s = shapes[index] if index < len(shapes) else None
    if s is None or not _known(start, end):
        return None
    span = _dims.slice_range(int(start), int(end), len(s))
    if span is None:
        raise ValueError(f"{what} is outside the {len(s)} dims of its input")
    return list(s[span[0]:span[1]])


def splice(*parts: Optional[List[Any]]) -> Optional[List[Any]]:
    """A spliced output's dims from its parts (dims, slices); None when a part is unknown."""
    out: List[Any] = []
    for p in parts:
        if p is None:
            return None
        out.extend(p)
    return out


def like(shapes: Sequence[Optional[Sequence[Any]]], index: int) -> Optional[List[Any]]:
    s = shapes[index] if index < len(shapes) else None
    return None if s is None else list(s)


def add(a: Any, b: Any) -> Any:
    return a + b if _known(a, b) else None


def sub(a: Any, b: Any) -> Any:
    return a - b if _known(a, b) else None


def mul(a: Any, b: Any) -> Any:
    return a * b if _known(a, b) else None


def floordiv(a: Any, b: Any) -> Any:
    if not _known(a, b):
        return None
    if isinstance(b, int) and b == 0:
        raise ValueError("shape expression divides by zero")
    return a // b


def ceil_div(a: Any, b: Any) -> Any:
    if not _known(a, b):
        return None
    if isinstance(b, int) and b == 0:
        raise ValueError("shape expression divides by zero")
    return -((-a) // b)


def _sym(name: str) -> Optional[Callable[[Any, Any], Any]]:
    return getattr(torch, name, None)


def max_(a: Any, b: Any) -> Any:
    if not _known(a, b):
        return None
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    f = _sym("sym_max")  # SymInts: a data-independent max that does not specialize
    return f(a, b) if f is not None else max(a, b)


def min_(a: Any, b: Any) -> Any:
    if not _known(a, b):
        return None
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    f = _sym("sym_min")
    return f(a, b) if f is not None else min(a, b)


def mod(a: Any, b: Any) -> Any:
    if not _known(a, b):
        return None
    if isinstance(b, int) and b == 0:
        raise ValueError("shape expression divides by zero")
    return a % b


def _scaled(fn: str, a: Any, f: float) -> Any:
    if not _known(a):
        return None
    if isinstance(a, int):
        return _dims.scaled(fn, a, f)
    # A SymInt: its float product is exact while |a| * 2^24 < 2^53 (dims far below 2^29).
    x = _dims.float32(f) * a
    return math.floor(x) if fn == "floor" else math.ceil(x)


def floor_scaled(a: Any, f: float) -> Any:
    return _scaled("floor", a, f)


def ceil_scaled(a: Any, f: float) -> Any:
    return _scaled("ceil", a, f)


def compare(op: str, a: Any, b: Any) -> Any:
    """A comparison of dims: a bool, a SymBool, or None where a dim is unknown."""
    return _dims.COMPARISONS[op](a, b) if _known(a, b) else None


def and_(a: Any, b: Callable[[], Any]) -> Any:
    if a is None:
        return None
    if isinstance(a, bool):
        return b() if a else False
    rhs = b()
    return None if rhs is None else a & rhs  # SymBools: no guard, no specialization


def or_(a: Any, b: Callable[[], Any]) -> Any:
    if a is None:
        return None
    if isinstance(a, bool):
        return True if a else b()
    rhs = b()
    return None if rhs is None else a | rhs


def not_(a: Any) -> Any:
    if a is None:
        return None
    return (not a) if isinstance(a, bool) else torch.sym_not(a)


def if_(c: Any, a: Callable[[], Any], b: Callable[[], Any]) -> Any:
    """`a if c else b` on dims: a SymBool condition picks with torch.sym_ite (both sides traced)."""
    if c is None:
        return None
    if isinstance(c, bool):
        return a() if c else b()
    x, y = a(), b()
    return None if x is None or y is None else torch.sym_ite(c, x, y)


def output_dtypes(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> List[torch.dtype]:
    out = []
    for o in op.outputs:
        if o.dtype_choice is not None:
            out.append(TORCH_DTYPES[_dims.chosen_dtype(o.dtype_choice, attrs)])
        elif o.dtype_from is None and o.dtype_member is None:
            out.append(TORCH_DTYPES[o.dtypes[0]])
        else:
            # The type variable's first input, or the heterogeneous input's member it follows.
            k = o.dtype_member if o.dtype_member is not None else o.dtype_from
            src = tensors[k] if k < len(tensors) else None
            out.append(src.dtype if src is not None else TORCH_DTYPES[o.dtypes[0]])
    return out


def _first_present(tensors: Sequence[Optional[torch.Tensor]]) -> torch.Tensor:
    for t in tensors:
        if t is not None:
            return t
    raise TypeError("no input tensor given")


def present_flags(op: OpInfo, attrs: Dict[str, Any]) -> List[bool]:
    """Which outputs a call with these attributes has (the spec's `present:` conditions)."""
    return [o.present is None or bool(_dims.evaluate(o.present, (), attrs)) for o in op.outputs]


def present_outputs(op: OpInfo, outs: Any, attrs: Dict[str, Any]) -> Any:
    """What the op's function returns: the present outputs of the operator's full tuple (one alone
    as itself). The operator's schema has every output; an absent one is an empty tensor there."""
    flags = present_flags(op, attrs)
    return _dims.returned([t for t, p in zip(outs, flags) if p], [o.of for o, p in zip(op.outputs, flags) if p])


def _in_places(present: Any, flags: Sequence[bool], absent: Callable[[int], Any]) -> Any:
    """The present outputs (in order) in the operator's places, absent(k) in each other place k."""
    got = list(present) if isinstance(present, (tuple, list)) else [present]
    full = [got.pop(0) if p else absent(k) for k, p in enumerate(flags)]
    return full[0] if len(full) == 1 else tuple(full)


def with_absent(outs: Any, flags: Sequence[bool]) -> Any:
    """A node's outputs (the present ones) in the operator's places, None where one is absent: the
    legacy exporter's symbolic returns one value per operator output."""
    return _in_places(outs, flags, lambda _k: None)


def node_outputs(outs: Any, count: int) -> Any:
    """The dynamo exporter's node cut to its `count` present outputs, which it returns as a tuple
    (one value too). The exporter gives a node every output of the OpSchema (the optional ones
    too); it pairs a returned tuple with the operator's outputs by position, so the present ones,
    which come first, find theirs and the absent ones, which nothing reads, none."""
    got = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
    if len(got) > count:
        node = got[0].producer()
        if not hasattr(node, "resize_outputs"):
            raise RuntimeError("exporting an op with `present:` outputs needs onnx-ir >= 0.1.13 (Node.resize_outputs)")
        node.resize_outputs(count)
    return got[:count]


def full_outputs(op: OpInfo, result: Any, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> Any:
    """A reference's result (the present outputs) as the operator returns it: every output, an
    empty tensor of its dtype in place of each absent one."""
    got = list(result) if isinstance(result, (tuple, list)) else [result]
    flags = present_flags(op, attrs)
    if len(got) != sum(flags):
        raise ValueError(f"{op.name}: the reference returned {len(got)} outputs, the attributes ask for {sum(flags)}")
    dtypes = output_dtypes(op, tensors, attrs)
    return _in_places(got, flags, lambda k: got[0].new_empty((0,), dtype=dtypes[k]))


def empty_outputs(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any], zeros: bool = False,
                  dynamic: bool = False) -> Any:
    """Outputs of the inferred shapes and dtypes (works on fake tensors with SymInts); an absent
    output (`present:`) is an empty tensor, as the compiled operator returns it. `dynamic` (a fake
    implementation): a dim the kernel decides is an unbacked size, one per data dim, at most its
    bound where that is known (torch.library.get_ctx().new_dynamic_size); else it is the bound."""
    # Under the legacy exporter's tracer, sizes are traced tensors; shape arithmetic on them (a
    # Python max() of two) leaves values torch 1.13's peephole pass fails on ("Argument passed to
    # at() was not in the map"). The exported node's shapes come from the symbolic: ints serve here.
    tracing = torch.jit.is_tracing()
    shapes = op.output_shapes([None if t is None else [int(d) for d in t.shape] if tracing else list(t.shape) for t in tensors], attrs)
    like_t = _first_present(tensors)
    outs = []
    flags = present_flags(op, attrs)
    sizes: Dict[int, Any] = {}
    for o, shape, dt, p in zip(op.outputs, shapes, output_dtypes(op, tensors, attrs), flags):
        if not p:
            outs.append(like_t.new_empty((0,), dtype=dt))
            continue
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"{op.name}: cannot infer the shape of output {o.name!r} from the inputs")
        if dynamic and o.data_dims:
            shape = list(shape)
            for axis, d in o.data_dims:
                if d not in sizes:
                    bound = shape[axis]
                    sizes[d] = torch.library.get_ctx().new_dynamic_size(min=0, max=bound if isinstance(bound, int) else None)
                shape[axis] = sizes[d]
        outs.append(like_t.new_zeros(shape, dtype=dt) if zeros else like_t.new_empty(shape, dtype=dt))
    return outs[0] if len(outs) == 1 else tuple(outs)
