"""What opforge_ops and opforge_jax both check and say (one source, copied into each package):
attribute defaults filled, types, enums and ranges checked, with the messages the compiled
backends use; and the error of a gradient asked of an op without a backward. Needs nothing but
the op's facts, so neither package's framework is imported here."""

from __future__ import annotations

from typing import Any, Dict


def check_attrs(op: Any, given: Dict[str, Any]) -> Dict[str, Any]:
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


def _coerce_attr(op: Any, a: Any, v: Any) -> Any:
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


def no_backward_message(op: Any) -> str:
    """A gradient asked of an op whose spec declares no backward: the same words whichever framework asked."""
    return (f"{op.name}: a gradient was requested through {op.onnx_op}, but its spec ({op.spec or op.snake + '.yaml'}) "
            "declares no `backward`: add one (docs/spec.md, \"backward\"), or mark the inputs `differentiable: false` "
            "if the op is constant in them")
