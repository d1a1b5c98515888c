"""Input shape constraints, output dims and output sizes from the spec's dim expressions, which each
op module states as tables (one source, copied into every opforge Python package). What the op core
checks in C++ (opforge/op_core.h and the op's checkShapes) is checked here before a framework sees
the call, with the same messages: JAX checks at trace time, where jit cannot drop it, and Paddle's
static graphs before PIR, where an error ends the process.

An expression is an int, ("dim", input, axis) (a negative axis from the end), ("rank", input), ("attr", name), ("elem", name, index) (an element of a
list attribute whose length the attribute checks have enforced), ("len", name), ("flag", name) (a bool
attribute), ("is", name, value) (a string attribute equals value), ("floor" | "ceil", scale, name,
index or None) (of scale times a float attribute or element, exactly), ("not", a), ("if", cond, a, b),
or (operator, a, b) with operator one of + - * // % ceil_div max min == != < <= > >= and or. An input's `shape` is None (no constraint), an int (the index of
the input it is shaped like) or one expression or None (any) per dim; an output's `shape` is an
int (the input it is shaped like) or one entry per dim: an expression, or ("slice", input, start,
end, text) for the dims input[start:end] (None: a missing bound; a bound outside the input's dims is an
error, as in the C++ op core). Dims are ints; a dim of None or -1
(unknown: a static graph's) skips the constraints that read it.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._attrs import MAX_MEMBERS, MAX_RANK, _compiling

INT64_MAX = 2**63 - 1

Shapes = Sequence[Optional[Sequence[Optional[int]]]]


class _Unknown(Exception):
    """An expression read an unknown dim: the constraint cannot be checked yet."""


class _DivByZero(Exception):
    pass


_FLOAT32_MAX = math.ldexp(2**24 - 1, 104)


def float32(f: float) -> float:
    """The float32 nearest to f (ties to even): what the op core stores for a float attribute.
    OverflowError where that is beyond float32's range, as struct.pack("<f") says. Arithmetic
    rather than struct, which torch.compile cannot trace (its polyfill of struct.pack recurses)."""
    if f != f or f == 0 or f in (math.inf, -math.inf):
        return f
    _, e = math.frexp(f)
    # The spacing of float32 values near f: 24 significant bits, or a subnormal's 2**-149.
    q = e - 24 if e >= -125 else -149
    r = math.copysign(math.ldexp(round(math.ldexp(f, -q)), q), f)  # (a negative underflow is -0.0)
    if abs(r) > _FLOAT32_MAX:
        raise OverflowError("float too large to pack with f format")
    return r


def scaled(fn: str, a: int, f: float) -> int:
    """floor (fn "floor") or ceil of a * f exactly, f taken as its float32 (as every backend does)."""
    x = Fraction(float32(f)) * a
    return math.floor(x) if fn == "floor" else math.ceil(x)


#: The comparisons of the expression language (also the PyTorch package's symbolic dim helpers').
COMPARISONS = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def evaluate(e: Any, shapes: Shapes, attrs: Dict[str, Any]) -> Any:
    """The value of expression `e`: an int (Python integers: no wrap-around) or, for a condition, a bool."""
    if isinstance(e, int):
        return e
    kind = e[0]
    if kind == "dim":
        s = shapes[e[1]] if e[1] < len(shapes) else None
        d = None if s is None or not -len(s) <= e[2] < len(s) else s[e[2]]
        if d is None or d < 0:
            raise _Unknown()
        return int(d)
    if kind == "rank":
        s = shapes[e[1]]
        if s is None:
            raise _Unknown()
        return len(s)
    if kind == "count":
        # A variadic input's members are the shapes from its index on.
        return len(shapes) - e[1]
    if kind == "slice":
        return _slice(e, shapes, attrs)
    if kind in ("==", "!=") and isinstance(e[1], tuple) and e[1][0] == "slice":
        a, b = _slice(e[1], shapes, attrs), _slice(e[2], shapes, attrs)
        return a is not None and b is not None and (a == b) == (kind == "==")
    if kind == "attr":
        return int(attrs[e[1]])
    if kind == "flag":
        return bool(attrs[e[1]])
    if kind == "is":
        return attrs[e[1]] == e[2]
    if kind == "elem":
        # Past a list's end only where a check refuses the call (a variadic output's member shape).
        v = attrs[e[1]]
        return int(v[e[2]]) if -len(v) <= e[2] < len(v) else 0
    if kind == "len":
        return len(attrs[e[1]])
    if kind in ("floor", "ceil"):
        f = attrs[e[2]] if e[3] is None else attrs[e[2]][e[3]]
        return scaled(kind, evaluate(e[1], shapes, attrs), float(f))
    if kind == "not":
        return not evaluate(e[1], shapes, attrs)
    if kind == "if":
        return evaluate(e[2] if evaluate(e[1], shapes, attrs) else e[3], shapes, attrs)
    if kind == "and":
        return bool(evaluate(e[1], shapes, attrs)) and bool(evaluate(e[2], shapes, attrs))
    if kind == "or":
        return bool(evaluate(e[1], shapes, attrs)) or bool(evaluate(e[2], shapes, attrs))
    a = evaluate(e[1], shapes, attrs)
    b = evaluate(e[2], shapes, attrs)
    if kind in COMPARISONS:
        return COMPARISONS[kind](a, b)
    if kind == "+":
        return a + b
    if kind == "-":
        return a - b
    if kind == "*":
        return a * b
    if kind in ("//", "ceil_div", "%"):
        if b == 0:
            raise _DivByZero()
        return a // b if kind == "//" else a % b if kind == "%" else -((-a) // b)
    if kind == "max":
        return max(a, b)
    if kind == "min":
        return min(a, b)
    raise ValueError(f"unknown dim expression {e!r}")


def returned(values: Sequence[Any], members: Sequence[Optional[str]]) -> Any:
    """What an op's function returns: its present outputs in order (`members[k]`: the variadic
    output value k is a member of, or None), a variadic output's members as one list, then any
    values after the outputs (JAX's data dim counts); one value alone as itself."""
    out: List[Any] = [v for v, of in zip(values, members) if of is None]
    if any(of is not None for of in members):
        out.append([v for v, of in zip(values, members) if of is not None])
    out.extend(values[len(members):])
    return out[0] if len(out) == 1 else tuple(out)


def chosen_dtype(choice: Any, attrs: Dict[str, Any]) -> str:
    """The dtype a type variable the attributes choose takes: `choice` is a dtype name or
    ("if", condition, yes, no), the condition an expression over attributes only."""
    while isinstance(choice, tuple):
        choice = choice[2] if evaluate(choice[1], (), attrs) else choice[3]
    return choice


def _slice(e: Any, shapes: Shapes, attrs: Dict[str, Any]) -> Optional[Tuple[int, ...]]:
    """The dims of ("slice", input, start, end) as ints; None when the bounds fall outside them."""
    s = shapes[e[1]]
    if s is None:
        raise _Unknown()
    bounds = [None if b is None else evaluate(b, shapes, attrs) for b in e[2:4]]
    span = slice_range(bounds[0], bounds[1], len(s))
    if span is None:
        return None
    dims = s[span[0]:span[1]]
    if any(d is None or d < 0 for d in dims):
        raise _Unknown()
    return tuple(int(d) for d in dims)


def _v(x: Any) -> Any:
    """A dim (or dims) as a message shows it: `?` while torch.compile traces, where a dim may be a
    symbolic int that dynamo cannot turn into text."""
    return "?" if _compiling() else x


def _fmt(shape: Sequence[Any]) -> str:
    if _compiling():
        return "[?]"
    return "[" + ", ".join("?" if d is None or d < 0 else str(d) for d in shape) + "]"


def rank_ok(rank: Any, n: int) -> bool:
    """Whether n dims fit an input's rank: None (any), an int, or a tuple of the allowed ranks."""
    return rank is None or (n in rank if isinstance(rank, tuple) else n == rank)


def rank_text(rank: Any) -> str:
    """An input's rank as messages give it: "4", "4 or 5"."""
    if not isinstance(rank, tuple):
        return str(rank)
    return ", ".join(map(str, rank[:-1])) + f" or {rank[-1]}"


def tensor_label(op: Any, t: int) -> str:
    """Tensor t of a call as messages name it (the op core's too): "input 'x'", or a variadic
    input's member, "input 'xs' (member 2)" (the members follow the other inputs)."""
    i = min(t, len(op.inputs) - 1)
    spec = op.inputs[i]
    return f"input {spec.name!r}" + (f" (member {t - i})" if spec.variadic else "")


def _tensor_specs(op: Any, shapes: Shapes) -> List[Tuple[Any, str, Optional[Sequence[Optional[int]]]]]:
    """(input, label, dims) per tensor of a call: a variadic input's members are each checked as it."""
    last = len(op.inputs) - 1
    return [(op.inputs[min(t, last)], tensor_label(op, t), s) for t, s in enumerate(shapes)]
def variadic_index(op: Any) -> Optional[int]:
    """The index of the op's variadic input (always its last), or None."""
    last = op.inputs[-1] if op.inputs else None
    return len(op.inputs) - 1 if last is not None and last.variadic else None


def tensor_inputs(op: Any, n: int) -> List[Tuple[Any, str]]:
    """A call's n tensors (the inputs, then a variadic input's members) as (the input's facts, the
    name messages give it: 'x', or 'xs' (member 2) as the op core names a member)."""
    p = variadic_index(op)
    if p is None:
        return [(spec, repr(spec.name)) for spec in op.inputs[:n]]
    spec = op.inputs[p]
    return [(s, repr(s.name)) for s in op.inputs[:p]] + [(spec, f"{spec.name!r} (member {m})") for m in range(n - p)]


def flatten_inputs(op: Any, inputs: Sequence[Any]) -> List[Any]:
    """The op's inputs (a variadic input's value: a list or tuple of its members) in tensor order:
    the other inputs, then the members. TypeError naming the op when a variadic input's value is not
    a list or tuple, or has too few or too many members (MAX_MEMBERS, as the op core)."""
    if len(inputs) != len(op.inputs):
        raise TypeError(f"{op.name}: takes {len(op.inputs)} inputs, got {len(inputs)}")
    p = variadic_index(op)
    if p is None:
        return list(inputs)
    spec, members = op.inputs[p], inputs[p]
    if not isinstance(members, (list, tuple)):
        raise TypeError(f"{op.name}: input {spec.name!r} is variadic: pass a list of tensors, got {type(members).__module__}.{type(members).__name__}")
    if not spec.min_count <= len(members) <= MAX_MEMBERS:
        raise ValueError(f"{op.name}: input {spec.name!r} has {len(members)} members; it takes {spec.min_count} to {MAX_MEMBERS}")
    return list(inputs[:p]) + list(members)


def check_shapes(op: Any, shapes: Shapes, attrs: Dict[str, Any]) -> None:
    """Raises ValueError naming the op and the input when a present input's dims break the spec:
    a negative dim, the shape of the input it must be shaped like, a dim expression. Ranks are the
    packages' own check (before this one). `shapes` has one entry per tensor of the call (a
    variadic input's members after the other inputs)."""
    tensors = _tensor_specs(op, shapes)
    # Every input's own checks first: a constraint may read a later input.
    for spec, label, s in tensors:
        if s is None:
            continue
        where = f"{op.name}: {label}"
        if any(d is not None and d < -1 for d in s):
            raise ValueError(f"{where} has a negative dim: {_v(list(s))}")
        if spec.rank is None and len(s) > MAX_RANK:
            raise ValueError(f"{where} has rank {len(s)}, at most {MAX_RANK} is supported")
    for spec, label, s in tensors:
        if s is None:
            continue
        where = f"{op.name}: {label}"
        c = spec.shape
        if c is None:
            continue
        if isinstance(c, int):
            other = shapes[c]
            if other is None:
                continue
            known = lambda d: d is not None and d >= 0  # noqa: E731
            if len(s) != len(other) or any(known(a) and known(b) and a != b for a, b in zip(s, other)):
                raise ValueError(f"{where} must have the shape of {op.inputs[c].name!r} {_fmt(other)}, got {_fmt(s)}")
            continue
        for axis, e in enumerate(c):
            if e is None or axis >= len(s) or s[axis] is None or s[axis] < 0:
                continue
            try:
                want = evaluate(e, shapes, attrs)
            except _Unknown:
                continue
            except _DivByZero:
                raise ValueError(f"{op.name}: an input shape constraint divides by zero (input {spec.name!r})") from None
            if s[axis] != want:
                src = spec.shape_source[axis]
                shown = src if _compiling() or src == str(want) else f"{src} (= {want})"
                raise ValueError(f"{op.name}: dim {axis} of {label} must equal {shown}, got {_v(s[axis])}")
    check_conditions(op, shapes, attrs)


def _field(v: Any) -> str:
    """An attribute's value as a check's message shows it (as the op core does: bools as true/false,
    strings quoted, floats in the fewest digits that read back as the same float32)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"'{v}'"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_field(x) for x in v) + "]"
    if isinstance(v, float):
        f = float32(v)
        for digits in range(6, 18):
            text = "%.*g" % (digits, f)
            if float32(float(text)) == f:
                return text
    return str(v)


def _read(r: Any, shapes: Shapes, attrs: Dict[str, Any]) -> Any:
    """A dim, rank or slice a failed check read, as the op core's message shows it."""
    v = evaluate(r, shapes, attrs)
    if isinstance(r, tuple) and r[0] == "slice":
        return "(outside its dims)" if v is None else _v("[" + ", ".join(map(str, v)) + "]")
    return _v(v)


def check_conditions(op: Any, shapes: Shapes, attrs: Dict[str, Any]) -> None:
    """The spec's `checks:` (op.checks: (expression, source, message or None, reads) each, reads being
    (label, dim expression or attribute name)): ValueError naming the op, the check and the values
    it read when one does not hold. A check that reads an unknown dim is left to run time; one that
    reads an absent (optional) input holds."""
    for expr, source, message, reads in getattr(op, "checks", ()):
        if any(not isinstance(r, str) and r[0] in ("dim", "rank", "slice") and shapes[r[1]] is None for _, r in reads):
            continue
        try:
            holds = evaluate(expr, shapes, attrs)
        except _Unknown:
            continue
        except _DivByZero:
            raise ValueError(f"{op.name}: division by zero in check '{source}'") from None
        if not holds:
            values = ", ".join(
                f"{label} = {_field(attrs[r]) if isinstance(r, str) else _read(r, shapes, attrs)}"
                for label, r in reads
            )
            raise ValueError(f"{op.name}: check '{source}' failed ({values})" + (f": {message}" if message else ""))


def output_dims(op: Any, shapes: Shapes, attrs: Dict[str, Any]) -> List[Optional[Tuple[Optional[int], ...]]]:
    """Each output's dims (None where a dim reads an unknown one); ValueError naming the op and the
    output when a dim is negative or does not fit int64, or an expression divides by zero."""
    out: List[Optional[Tuple[Optional[int], ...]]] = []
    for o in op.outputs:
        if isinstance(o.shape, int):
            s = shapes[o.shape]
            out.append(None if s is None else tuple(s))
            continue
        dims: Optional[List[Optional[int]]] = []
        for e in o.shape:
            try:
                if isinstance(e, tuple) and e[0] == "slice":
                    got = slice_dims(op, o.name, shapes, attrs, e)
                    if got is None:
                        dims = None
                        break
                    dims.extend(got)
                    continue
                d: Optional[int] = evaluate(e, shapes, attrs)
            except _Unknown:
                d = None
            except _DivByZero:
                raise ValueError(f"{op.name}: the shape of output {o.name!r} divides by zero for input dims {_shown(shapes)}") from None
            dims.append(d)
        if dims is None:
            # A slice of an input whose rank is unknown (a static graph's): so is the output's.
            out.append(None)
            continue
        if len(dims) > MAX_RANK:
            raise ValueError(f"{op.name}: output {o.name} would have more than {MAX_RANK} dims")
        bad = [d for d in dims if d is not None and not 0 <= d <= INT64_MAX]
        if bad:
            raise ValueError(f"{op.name}: output {o.name!r} would have dims {_v(dims)} for input dims {_shown(shapes)}"
                             + (" (a negative dim)" if bad[0] < 0 else " (beyond int64)"))
        out.append(tuple(dims))
    return out


def slice_range(start: Optional[int], end: Optional[int], rank: int) -> Optional[Tuple[int, int]]:
    """input[start:end] of `rank` dims as (first, stop), Python's bounds (None: missing, negative:
    from the end); None when a bound lies outside the dims (an error, never clamped)."""
    a = 0 if start is None else rank + start if start < 0 else start
    b = rank if end is None else rank + end if end < 0 else end
    return None if a < 0 or b > rank or b < a else (a, b)


def slice_dims(op: Any, output: str, shapes: Shapes, attrs: Dict[str, Any], e: Any) -> Optional[List[Optional[int]]]:
    """The dims a ("slice", input, start, end) entry takes, None where the input's rank is unknown."""
    s = shapes[e[1]]
    if s is None:
        return None
    try:
        bounds = [None if b is None else evaluate(b, shapes, attrs) for b in e[2:4]]
    except _Unknown:
        return None  # a bound reads the rank of an input whose rank is unknown
    span = slice_range(bounds[0], bounds[1], len(s))
    if span is None:
        raise ValueError(f"{op.name}: output {output}: slice {e[4]} is outside the {len(s)} dims of its input")
    return [None if d is None or d < 0 else int(d) for d in s[span[0]:span[1]]]


def check_output_sizes(op: Any, dims: Sequence[Optional[Sequence[Optional[int]]]], itemsizes: Sequence[int]) -> None:
    """ValueError naming the op and the output when an output's byte size does not fit int64 (what
    XLA, PyTorch and Paddle index sizes with; XLA aborts the process on it)."""
    for o, d, size in zip(op.outputs, dims, itemsizes):
        if d is None or any(x is None or x < 0 for x in d):
            continue
        n = size
        for x in d:
            n *= x
        # Products of the nonzero dims too: a size-0 output still has its dims multiplied.
        m = size
        for x in d:
            m *= max(x, 1)
        if n > INT64_MAX or m > INT64_MAX:
            zero = ", its zero dims counted as 1" if m != n else ""
            raise ValueError(f"{op.name}: output {o.name!r} would have dims {_v(list(d))} of {size}-byte elements "
                             f"({_v(m)} bytes{zero}), more than int64 can index")


def named_error(op: Any, e: BaseException) -> BaseException:
    """`e` when its message names the op, else the same type of error with the op's name in front,
    raised from `e`: what the framework raises itself while running a call the checks passed (an
    output that does not fit in memory: "can't allocate memory: you tried to allocate N bytes")
    names no op. `e` itself where its type takes no message argument."""
    text = str(e)
    if op.name in text:
        return e
    try:
        named = type(e)(f"{op.name}: {text}")
    except Exception:  # noqa: BLE001 - a type with another constructor: the original is still right
        return e
    named.__cause__ = e
    return named


def _shown(shapes: Shapes) -> Any:
    if _compiling():
        return "?"
    return [None if s is None else list(s) for s in shapes]
