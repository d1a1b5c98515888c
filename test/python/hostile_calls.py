"""Hostile calls through a generated Python binding (opforge_ops for PyTorch, opforge_jax, the Paddle
functions of opforge_paddle.load): each call starts from a valid case of an op (its spec's test
cases) and applies 0..3 random mutations (wrong dtype, rank, dim or kind of an input; an attribute
of the wrong type or out of range; an unknown keyword, a missing argument, an extra positional).

A call the binding accepts must give the reference's outputs (opforge_ops' OpInfo.reference, the
spec's PyTorch reference); a call it rejects must raise an exception whose message names the op and
the argument the mutation targeted. A crash (a signal) or a hang ends the process: the call about to
run is written to stderr first, so the caller knows which one.

    python hostile_calls.py --binding jax --mode jit --seed 7 --calls 300 \\
        --spec-package out/python --jax-package out/jax --jax-library build/jax/jax/libopforge_jax_ops.so

Call i of a seed is the same call whatever --first and --calls are (its own random stream), so
`--first i --calls 1` replays it. The last line of stdout is one JSON object: the counts.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
import traceback
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

MODES = {
    "torch": ("eager", "compile"),
    "jax": ("eager", "jit", "vmap", "grad"),
    "paddle": ("dygraph", "static", "static-train"),
}

FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
ALL_DTYPES = ("float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool")
BIG = (2**31, 2**63, -(2**63) - 1, 10**400)


class Absent:
    """A missing argument (dropped from the call)."""

    def __repr__(self) -> str:
        return "<absent>"


ABSENT = Absent()


class Huge:
    """A zero-size input whose other dims are huge (its byte size, without the zero, is beyond
    int64): numpy cannot hold one, so each binding makes it with its framework's zeros."""

    def __init__(self, shape: Sequence[int], dtype: str):
        self.shape, self.dtype = tuple(shape), dtype

    def __repr__(self) -> str:
        return f"zeros({list(self.shape)}, {self.dtype})"


class Members(list):
    """A variadic input's value: its members (numpy arrays, or hostile values in their place), passed
    as a list, or as a tuple where `as_tuple` (the bindings take either)."""

    as_tuple = False

    def form(self, items: List[Any]) -> Any:
        return tuple(items) if self.as_tuple else list(items)


MAX_MEMBERS = 32  # the op core's kMaxMembers


def leaves(v: Any) -> List[Any]:
    """An input's tensors: a variadic input's members, else the value itself."""
    return list(v) if isinstance(v, Members) else [v]


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binding", required=True, choices=sorted(MODES))
    p.add_argument("--mode", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--calls", type=int, required=True)
    p.add_argument("--first", type=int, default=0, help="index of the first call (for replaying one)")
    p.add_argument("--ops", default="", help="comma-separated op names (spec names or snake_case); default all")
    p.add_argument("--spec-package", required=True, help="directory holding opforge_ops (OpInfo, tests, references)")
    p.add_argument("--torch-library", help="the compiled extension (libopforge_torch.so)")
    p.add_argument("--jax-package", help="directory holding opforge_jax")
    p.add_argument("--jax-library", help="libopforge_jax_ops.so")
    p.add_argument("--paddle-package", help="directory holding opforge_paddle.py")
    p.add_argument("--paddle-library", help="libopforge_paddle_ops.so")
    p.add_argument("--valid-only", action="store_true", help="no mutations: every call is a spec case (checks the driver)")
    p.add_argument("--memory-gb", type=float, default=6,
                   help="RLIMIT_DATA: a call that allocates more fails with MemoryError (or ends the process) instead of swapping the machine")
    p.add_argument("--paddle-skip", default="", help="ops Paddle does not get (their type clashes with a built-in op)")
    a = p.parse_args()
    if a.mode not in MODES[a.binding]:
        p.error(f"--mode for {a.binding}: one of {', '.join(MODES[a.binding])}")
    return a


# --- the call: a valid case and its mutations ---------------------------------------------------


class Call:
    """One call: per input a value (numpy array, or the hostile object), attributes, extras."""

    def __init__(self, op: Any, case_index: int):
        self.op = op
        self.case_index = case_index
        self.inputs: List[Any] = []
        self.attrs: Dict[str, Any] = {}
        self.extra_kw: Dict[str, Any] = {}
        self.extra_pos: List[Any] = []
        self.mutations: List[str] = []
        #: Per argument the mutations targeted (an error must name one): "invalid" (a correct
        #: binding must reject the call) or "uncertain" (a dim one larger, a huge zero-size input:
        #: accepting and rejecting are both fine). A mutation that replaces an argument's value (a
        #: missing one, another kind) replaces what earlier ones did to it.
        self.faults: Dict[str, str] = {}

    def fault(self, name: str, invalid: bool) -> None:
        """`name` mutated again: invalid stays invalid (dtype, then a dim: still the wrong dtype)."""
        if self.faults.get(name) != "invalid":
            self.faults[name] = "invalid" if invalid else "uncertain"

    @property
    def has_huge(self) -> bool:
        return any(isinstance(v, Huge) for x in self.inputs for v in leaves(x))

    @property
    def targets(self) -> List[str]:
        return list(self.faults)

    @property
    def invalid(self) -> bool:
        return "invalid" in self.faults.values()

    @property
    def uncertain(self) -> bool:
        return "uncertain" in self.faults.values()

    def describe(self) -> str:
        def short(v: Any) -> str:
            if isinstance(v, np.ndarray):
                return f"ndarray{list(v.shape)}:{v.dtype}"
            if isinstance(v, Members):
                inner = ", ".join(short(m) for m in v)
                return f"({inner})" if v.as_tuple else f"[{inner}]"
            r = repr(v)
            return r if len(r) < 60 else r[:57] + "..."

        ins = ", ".join(f"{i.name}={short(v)}" for i, v in zip(self.op.inputs, self.inputs))
        ins = ins if len(ins) < 600 else ins[:597] + "..."
        at = ", ".join(f"{k}={short(v)}" for k, v in self.attrs.items())
        ex = "".join(f", +{short(v)}" for v in self.extra_pos) + "".join(f", {k}={short(v)}" for k, v in self.extra_kw.items())
        return f"{self.op.name}#{self.case_index}({ins}; {at}{ex}) mutations={self.mutations}"


def case_dtype(op: Any, inp: Any, case: Any) -> str:
    if inp.type_var is not None:
        return case.dtypes.get(inp.type_var, inp.dtypes[0])
    return case.dtypes.get(inp.name, inp.dtypes[0])


def make_array(rng: np.random.Generator, shape: Sequence[int], values: Optional[Sequence[float]], bounds: Tuple[float, float], dtype: str) -> np.ndarray:
    np_dtype = np.float32 if dtype == "bfloat16" else np.dtype(dtype)
    if values is not None:
        return np.array(values, dtype=np_dtype).reshape(shape)
    lo, hi = bounds
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if np.issubdtype(np_dtype, np.integer):
        info = np.iinfo(np_dtype)
        lo, hi = max(int(math.ceil(lo)), int(info.min)), min(int(math.floor(hi)), int(info.max))
        return rng.integers(lo, hi + 1, size=shape).astype(np_dtype)
    return rng.uniform(lo, hi, size=shape).astype(np_dtype)


def valid_call(op: Any, rng: random.Random, nrng: np.random.Generator) -> Call:
    ci = rng.randrange(len(op.tests))
    case = op.tests[ci]
    c = Call(op, ci)
    for inp, spec in zip(op.inputs, case.inputs):
        if spec is None:
            c.inputs.append(None)
            continue
        if getattr(inp, "variadic", False):
            c.inputs.append(Members(make_array(nrng, *m, case_dtype(op, inp, case)) for m in spec))
            continue
        shape, values, bounds = spec
        c.inputs.append(make_array(nrng, shape, values, bounds, case_dtype(op, inp, case)))
    c.attrs = dict(case.attributes)
    for a in op.attributes:  # defaults the case leaves out
        if a.name not in c.attrs and a.default is not None:
            c.attrs[a.name] = a.default
    return c


def wrong_kinds(binding: str, arr: np.ndarray) -> List[Tuple[str, Callable[[], Any], bool]]:
    """(label, value, harmless) for an input given as something other than the binding's tensor."""
    kinds: List[Tuple[str, Callable[[], Any], bool]] = [
        ("float", lambda: 1.5, False),
        ("list", lambda: arr.tolist(), False),
        ("None", lambda: None, False),
        ("str", lambda: "x", False),
    ]
    if binding == "jax":
        # numpy arrays are JAX values (jnp.asarray takes them): harmless there.
        kinds.append(("numpy", lambda: arr, True))
    else:
        kinds.append(("numpy", lambda: ("numpy-array", arr), False))
    if binding != "torch":
        kinds.append(("torch", lambda: ("torch-tensor", arr), False))
    if binding == "paddle":
        kinds.append(("dygraph", lambda: ("dygraph-tensor", arr), False))
    if binding != "jax":
        kinds.append(("jax", lambda: ("jax-array", arr), False))
    return kinds


def huge_fault(c: Call, inp: Any, arr: np.ndarray, member: bool) -> None:
    """A huge zero-size input replaces the value (of the binding's tensor kind) keeping its dtype
    and rank: still invalid where those were wrong, else uncertain. A member replaces only itself:
    what the other members' mutations made invalid stays so."""
    wrong = str(arr.dtype) not in inp.dtypes or (inp.rank is not None and arr.ndim != inp.rank)
    if member:
        c.fault(inp.name, wrong)
    else:
        c.faults[inp.name] = "invalid" if wrong else "uncertain"


def mutate(c: Call, binding: str, mode: str, rng: random.Random, nrng: np.random.Generator) -> None:
    op = c.op
    present = [i for i, v in enumerate(c.inputs) if isinstance(v, (np.ndarray, Members))]
    choices: List[str] = []
    if present:
        choices += ["dtype", "rank", "dim", "huge", "kind"]
    if any(isinstance(v, Members) for v in c.inputs):
        choices += ["members", "members"]
    if op.attributes:
        choices += ["attr-type", "attr-range", "attr-harmless", "attr-harmless", "missing-attr"]
    choices += ["unknown-kw", "extra-pos"]
    if present:
        choices.append("missing-input")
    kind = rng.choice(choices)
    if kind == "members":
        mutate_members(c, rng)
        return
    if kind in ("dtype", "rank", "dim", "huge", "kind", "missing-input"):
        i = rng.choice(present)
        inp = op.inputs[i]
        slot = c.inputs[i]
        member: Optional[int] = None
        if isinstance(slot, Members) and kind != "missing-input":
            # One member mutated (the whole list: "members" above, or missing below).
            at = [k for k, m in enumerate(slot) if isinstance(m, np.ndarray)]
            if not at:
                return
            member = rng.choice(at)
            arr = slot[member]
        else:
            arr = slot
        if not isinstance(arr, (np.ndarray, Members)):
            return

        def put(v: Any) -> None:
            if member is None:
                c.inputs[i] = v
            else:
                slot[member] = v

        where = inp.name if member is None else f"{inp.name}[{member}]"
        if kind == "missing-input":
            if c.extra_pos:
                return  # the extra positional argument would take its place
            c.inputs[i] = ABSENT
            c.mutations.append(f"{inp.name}: missing")
            c.faults.pop(inp.name, None)
            if not inp.optional:  # an optional input left out is None
                c.faults[inp.name] = "invalid"
            return
        if not isinstance(arr, np.ndarray):
            return
        if kind == "dtype":
            wrong = [d for d in ALL_DTYPES if d not in inp.dtypes]
            if not wrong:
                return
            d = rng.choice(wrong)
            put(arr.astype(d))
            c.mutations.append(f"{where}: dtype {d}")
            c.fault(inp.name, True)
        elif kind == "rank":
            if inp.rank is None:
                return
            if arr.ndim >= 2 and rng.random() < 0.5:
                new = arr.reshape(arr.shape[:-2] + (arr.shape[-2] * arr.shape[-1],))
            elif arr.ndim == 1 and arr.size == 1 and rng.random() < 0.5:
                new = arr.reshape(())
            else:
                new = arr.reshape(arr.shape + (1,))
            put(new)
            c.mutations.append(f"{where}: rank {new.ndim}")
            c.fault(inp.name, True)
        elif kind == "dim":
            # One dim one larger: wrong where the spec constrains it (a fixed dim, another input's),
            # fine elsewhere (then the reference decides).
            if arr.ndim == 0:
                return
            d = rng.randrange(arr.ndim)
            shape = list(arr.shape)
            shape[d] += 1
            pad = [(0, 0)] * arr.ndim
            pad[d] = (0, 1)
            # ("edge" cannot extend an array with a zero dim)
            put(np.pad(arr, pad, mode="edge" if arr.size else "constant"))
            c.mutations.append(f"{where}: dim {d} = {shape[d]}")
            c.fault(inp.name, False)
        elif kind == "huge":
            if arr.ndim == 0 or inp.optional:
                # (A zero-size optional input reads as absent in the kernels, whose present() tests
                # the data pointer, and as present in the references: docs/security.md.)
                return
            # Non-zero dims within what the frameworks' own zeros() can make (at most 2**62
            # elements; XLA multiplies the dims in order, in bytes, so those before the zero stay
            # within 2**59), while an output made of several of them overflows int64 bytes.
            zero = rng.randrange(arr.ndim) if rng.random() < 0.5 else 0
            shape, total = [], 1
            if arr.ndim >= 3 and rng.random() < 0.4:
                # Leading zero, ones, the last two dims 2**31: an output taking those two dims
                # (a resize's size tensor) is 2**62 elements, its byte size beyond int64.
                shape = [0] + [1] * (arr.ndim - 3) + [2**31, 2**31]
                put(Huge(shape, str(arr.dtype)))
                c.mutations.append(f"{where}: zero-size {shape}")
                huge_fault(c, inp, arr, member is not None)
                return
            for d in range(arr.ndim):
                # 2**36 or more: an output taking such a dim, and no zero, is beyond the driver's
                # memory cap (its allocation fails at once) instead of merely large and slow to fill
                # (2**32 one-byte elements are a valid 4 GiB output).
                n = 0 if d == zero else rng.choice((1, 2**36, 2**40))
                if total * n > 2**62 or (d < zero and total * n > 2**59):
                    n = 1
                total *= max(n, 1)
                shape.append(n)
            put(Huge(shape, str(arr.dtype)))
            c.mutations.append(f"{where}: zero-size {shape}")
            huge_fault(c, inp, arr, member is not None)
        elif kind == "kind":
            label, value, harmless = rng.choice(wrong_kinds(binding, arr))
            if binding == "paddle" and label == "dygraph" and mode == "dygraph":
                return  # a dygraph tensor is the right kind there
            put(value())
            c.mutations.append(f"{where}: {label}")
            if label == "None" and inp.optional and member is None:
                c.faults.pop(inp.name, None)  # an optional input left out: valid
            elif not harmless:
                c.faults[inp.name] = "invalid"
        return
    if kind in ("attr-type", "attr-range", "attr-harmless", "missing-attr"):
        a = rng.choice(op.attributes)
        if kind == "missing-attr":
            if c.extra_pos and binding == "paddle":
                return  # Paddle's attributes are positional too: the extra one would take its place
            was = c.attrs.get(a.name, a.default)
            c.attrs[a.name] = ABSENT
            if not a.required:
                # Every binding (Paddle's too) takes the spec's default for an attribute left out:
                # the same call where the case gave the default, else one the default may make
                # invalid (a dim constraint reading it).
                c.mutations.append(f"{a.name}: missing (default {a.default!r})")
                c.faults.pop(a.name, None)
                if was != a.default:
                    c.faults[a.name] = "uncertain"
                return
            c.mutations.append(f"{a.name}: missing")
            c.faults[a.name] = "invalid"
            return
        v = c.attrs.get(a.name, a.default)
        if kind == "attr-harmless":
            nv = harmless_attr(a, v, rng)
            if nv is ABSENT:
                return
            c.attrs[a.name] = nv
            c.mutations.append(f"{a.name}: harmless {nv!r} ({type(nv).__name__})")
            if mode == "compile" and type(nv).__module__ == "numpy":
                # torch.compile traces a numpy scalar as data: the binding refuses it by name there.
                c.faults[a.name] = "invalid"
            return
        if kind == "attr-type":
            nv = wrong_type_attr(a, v, rng)
        else:
            nv = out_of_range_attr(a, v, rng)
        if nv is ABSENT:
            return
        c.attrs[a.name] = nv
        c.mutations.append(f"{a.name}: {kind[5:]} {nv!r} ({type(nv).__name__})"[:160])
        c.faults[a.name] = "invalid"
        return
    if kind == "unknown-kw":
        c.extra_kw["bogus_option"] = 1
        c.mutations.append("unknown keyword bogus_option")
        c.faults["bogus_option"] = "invalid"
    elif kind == "extra-pos":
        if any(v is ABSENT for v in list(c.inputs) + list(c.attrs.values())):
            return  # after a missing argument the rest go by name: no place for a positional one
        c.extra_pos.append(rng.choice((1, 0.5, "extra", None)))
        c.mutations.append(f"extra positional {c.extra_pos[-1]!r}")
        c.faults["positional"] = "invalid"  # Python's "takes 2 positional arguments but 3 were given"


def mutate_members(c: Call, rng: random.Random) -> None:
    """The member list of a variadic input: fewer members (below its min_count: invalid; else an
    attribute list or check sized by count() may now disagree: uncertain), more (beyond 32:
    invalid), none, one tensor in place of the list, one member of another of the input's dtypes
    (the members share one; a heterogeneous input's each have their own: a valid call), or a tuple
    for the list (harmless)."""
    i = rng.choice([k for k, v in enumerate(c.inputs) if isinstance(v, Members)])
    inp, ms = c.op.inputs[i], c.inputs[i]
    arrays = [m for m in ms if isinstance(m, np.ndarray)]
    how = rng.choice(("fewer", "fewer", "more", "more", "none", "tensor", "mixed-dtype", "tuple"))
    if how == "fewer":
        if not ms:
            return
        del ms[rng.randrange(len(ms))]
        c.mutations.append(f"{inp.name}: {len(ms)} members")
        c.fault(inp.name, len(ms) < inp.min_count)
    elif how == "more":
        if not arrays:
            return
        extra = rng.choice((1, 1, 2, MAX_MEMBERS))
        ms.extend(rng.choice(arrays).copy() for _ in range(extra))
        c.mutations.append(f"{inp.name}: {len(ms)} members")
        c.fault(inp.name, len(ms) > MAX_MEMBERS)
    elif how == "none":
        c.inputs[i] = Members()
        c.mutations.append(f"{inp.name}: no members")
        c.faults[inp.name] = "invalid"
    elif how == "tensor":
        if not arrays:
            return
        c.inputs[i] = arrays[0]
        c.mutations.append(f"{inp.name}: one tensor, not a list")
        c.faults[inp.name] = "invalid"
    elif how == "mixed-dtype":
        others = [k for k, m in enumerate(ms) if isinstance(m, np.ndarray)]
        if len(others) < 2:
            return
        k = rng.choice(others[1:])
        dtypes = [d for d in inp.dtypes if d != str(ms[others[0]].dtype) and d != "bfloat16"]
        if not dtypes:
            return
        d = rng.choice(dtypes)
        ms[k] = ms[k].astype(d)
        c.mutations.append(f"{inp.name}[{k}]: dtype {d} (member {others[0]}: {ms[others[0]].dtype})")
        if getattr(inp, "homogeneous", True):
            c.fault(inp.name, True)
    else:
        ms.as_tuple = True
        c.mutations.append(f"{inp.name}: a tuple")


def harmless_attr(a: Any, v: Any, rng: random.Random) -> Any:
    """The same value as another type a binding should take: np.float32 for a float, ..."""
    if a.type == "float" and type(v) in (int, float) and abs(v) < 1e30:
        options: List[Any] = [np.float64(v)]
        if float(np.float32(v)) == v:
            options.append(np.float32(v))
        if float(v).is_integer():
            options.append(int(v))
        return rng.choice(options)
    if a.type == "int" and type(v) is int and -(2**31) <= v < 2**31:
        return rng.choice((np.int64(v), np.int32(v)))
    if a.type in ("ints", "floats") and isinstance(v, (list, tuple)):
        return tuple(v) if isinstance(v, list) else list(v)
    return ABSENT


def wrong_type_attr(a: Any, v: Any, rng: random.Random) -> Any:
    options: List[Any] = ["0.5", None, [v]]
    if a.type == "int":
        options += [True, 1.5, np.float32(1.0)]
    elif a.type == "float":
        options += [True, "nan"]
    elif a.type == "bool":
        options += [1, 0, np.bool_(True), np.int64(1), 1.0]
    elif a.type == "string":
        options = [1, None, b"bytes", ["a"], 1.5]
    elif a.type in ("ints", "floats"):
        options = ["1,2", 3, None, [[1]], ["a", "b"]] + ([[1.5, 2.5]] if a.type == "ints" else [[True, False]])
    return rng.choice(options)


def out_of_range_attr(a: Any, v: Any, rng: random.Random) -> Any:
    options: List[Any] = []
    # An exclusive bound is itself out of range: the value a check written with >= would let through.
    edges = [b for b, excl in ((a.min, getattr(a, "min_exclusive", False)), (a.max, getattr(a, "max_exclusive", False))) if excl]
    if a.type == "int":
        if a.min is not None:
            options.append(int(a.min) - 1)
        if a.max is not None:
            options.append(int(a.max) + 1)
        options += [int(b) for b in edges]
        options += list(BIG)
    elif a.type == "float":
        if a.min is not None:
            options.append(float(a.min) - 1.0)
        if a.max is not None:
            options.append(float(a.max) + 1.0)
        options += [float(b) for b in edges]
        options += [10**400, 1e39, float("nan"), float("inf"), float("-inf"), 2**63]
    elif a.type == "string" and a.enum:
        options += ["not-" + str(a.enum[0]), ""]
    elif a.type == "ints":
        options += [[2**63], [10**400], [-(2**63) - 1]]
    elif a.type == "floats":
        options += [[float("nan")], [1e39], [10**400]]
    if a.enum and a.type in ("int", "float"):
        options.append(max(a.enum) + 1)
    if not options:
        return ABSENT
    return rng.choice(options)


# --- references -------------------------------------------------------------------------------


def to_torch(v: Any) -> Any:
    import torch

    if v is ABSENT:
        return None
    if isinstance(v, Members):
        return v.form([to_torch(m) for m in v])
    if isinstance(v, np.ndarray):
        return torch.from_numpy(v.copy())
    if isinstance(v, Huge):
        return torch.zeros(v.shape, dtype=getattr(torch, v.dtype))
    if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], np.ndarray):
        return torch.from_numpy(v[1].copy())
    if isinstance(v, (float, int, list)) and not isinstance(v, bool):
        return torch.as_tensor(v)
    return v


def reference_attrs(c: Call) -> Dict[str, Any]:
    """The call's attributes as the reference takes them: numpy scalars as Python ones, and None for
    an attribute with a default as that default (a binding may read None as "not given")."""
    defaults = {a.name: a.default for a in c.op.attributes}
    out = {}
    for k, v in c.attrs.items():
        if v is ABSENT and defaults.get(k) is None:
            continue  # left out, no default in the spec: the reference's own
        if v is ABSENT or (v is None and defaults.get(k) is not None):
            v = defaults[k]
        out[k] = v.item() if isinstance(v, np.generic) else v
    return out


def reference_outputs(c: Call) -> List[np.ndarray]:
    """The reference's outputs for the call's values (as numpy); raises where it cannot compute them."""
    op = c.op
    if op.reference is None:
        raise RuntimeError("no reference")
    required = {a.name for a in op.attributes if a.required}
    if any(v is ABSENT and not i.optional for v, i in zip(c.inputs, op.inputs)) or any(v is ABSENT and k in required for k, v in c.attrs.items()):
        raise RuntimeError("a missing argument was accepted")
    if c.extra_kw or c.extra_pos:
        raise RuntimeError("an extra argument was accepted")
    ins = [to_torch(v) for v in c.inputs]
    outs = op.reference(*ins, **reference_attrs(c))
    outs = outputs(outs)
    return [as_numpy(o.detach().float() if str(o.dtype) == "torch.bfloat16" else o.detach()) for o in outs]


def grad_inputs(c: Call) -> List[int]:
    """The inputs a gradient mode differentiates: every float one (arrays, huge zero-size ones, Python floats)."""
    return [i for i, v in enumerate(c.inputs) if (isinstance(v, Members) and v and all(float_value(m) for m in v)) or float_value(v)]


def float_value(v: Any) -> bool:
    return (isinstance(v, (np.ndarray, Huge)) and np.dtype(v.dtype).kind == "f") or type(v) is float


def reference_grads(c: Call, diff: List[int]) -> List[Any]:
    """Gradient of the sum of the differentiable float outputs with respect to the inputs `diff`,
    through the reference; zeros for inputs the spec marks not differentiable."""
    import torch

    ins = [to_torch(v) for v in c.inputs]
    src, owner = [], []
    for i in diff:
        if isinstance(c.inputs[i], Members):
            # Each member, in order: the bindings give a variadic input's gradients flattened.
            ins[i] = [m.detach().double().requires_grad_(True) for m in ins[i]]
            src += ins[i]
            owner += [i] * len(ins[i])
        else:
            ins[i] = ins[i].detach().double().requires_grad_(True)
            src.append(ins[i])
            owner.append(i)
    outs = c.op.reference(*ins, **reference_attrs(c))
    outs = outputs(outs)
    terms = [o.double().sum() for o, spec in zip(outs, c.op.outputs) if o.dtype.is_floating_point and spec.differentiable]
    zeros = [np.zeros(tuple(s.shape)) for s in src]
    if not terms or not src:
        return zeros
    gs = torch.autograd.grad(sum(terms), src, allow_unused=True)
    return [z if g is None or not c.op.inputs[i].differentiable else as_numpy(g.detach()) for g, z, i in zip(gs, zeros, owner)]


def tolerance(c: Call, got: np.ndarray) -> Tuple[float, float]:
    case = c.op.tests[c.case_index]
    rtol, atol = case.rtol, case.atol
    if got.dtype == np.float16 or any(isinstance(v, np.ndarray) and v.dtype == np.float16 for x in c.inputs for v in leaves(x)):
        rtol, atol = max(rtol, 2e-2), max(atol, 2e-2)
    return rtol, atol


def outputs(outs: Any) -> Tuple[Any, ...]:
    """What a binding or reference returned, one value per output: a variadic output's list as its
    members, each in its place."""
    xs = outs if isinstance(outs, (tuple, list)) else (outs,)
    return tuple(m for v in xs for m in (v if isinstance(v, (tuple, list)) else (v,)))


def compare(c: Call, got: Sequence[Any], want: Sequence[np.ndarray], what: str = "output") -> Optional[str]:
    if len(got) != len(want):
        return f"{len(got)} {what}s, the reference gives {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g = g if isinstance(g, Empty) else np.asarray(g)
        w = w if isinstance(w, Empty) else np.asarray(w)
        if tuple(g.shape) != tuple(w.shape):
            return f"{what} {k}: shape {list(g.shape)}, the reference's {list(w.shape)}"
        if g.size == 0:
            continue
        rtol, atol = tolerance(c, g)
        if g.dtype.kind in "biu" and w.dtype.kind in "biu":
            if not np.array_equal(g, w):
                return f"{what} {k}: {int((g != w).sum())} of {g.size} values differ"
            continue
        gf, wf = g.astype(np.float64), w.astype(np.float64)
        if not np.allclose(gf, wf, rtol=rtol, atol=atol, equal_nan=True):
            err = np.nanmax(np.abs(gf - wf)) if np.isfinite(gf).all() and np.isfinite(wf).all() else float("nan")
            return f"{what} {k}: max error {err:.3g} (rtol {rtol}, atol {atol})"
    return None


# --- the bindings -------------------------------------------------------------------------------


class Binding:
    name = ""

    def __init__(self, a: argparse.Namespace, mode: str):
        self.mode = mode

    def ops(self, spec_ops: Dict[str, Any]) -> Dict[str, Any]:
        return spec_ops

    def run(self, c: Call) -> Tuple[List[Any], Optional[List[Any]]]:
        """Runs the call: its outputs (as numpy) and, in a gradient mode, the input gradients."""
        raise NotImplementedError


class Empty:
    """A zero-size output numpy cannot hold (its other dims are huge): its shape alone."""

    def __init__(self, shape: Sequence[int]):
        self.shape, self.size = tuple(int(d) for d in shape), 0


def as_numpy(o: Any) -> Any:
    try:
        return np.asarray(o)
    except ValueError:
        if 0 in tuple(o.shape):
            return Empty(o.shape)
        raise


class SetupError(Exception):
    """The driver could not make a value in the framework (before the op is called): no outcome."""


def setup(make: Callable[[], Any]) -> Any:
    try:
        return make()
    except Exception as e:  # noqa: BLE001
        raise SetupError(f"{type(e).__name__}: {e}") from e


def split_kwargs(c: Call) -> Tuple[List[Any], Dict[str, Any]]:
    """Inputs positionally up to a missing one, by name after it (so the missing one is the one
    Python finds missing); attributes by name."""
    args: List[Any] = []
    kw: Dict[str, Any] = {}
    gap = False
    for inp, v in zip(c.op.inputs, c.inputs):
        if v is ABSENT:
            gap = True
        elif gap:
            kw[inp.name] = v
        else:
            args.append(v)
    if c.extra_pos and not gap:
        args += list(c.extra_pos)
    kw.update({k: v for k, v in c.attrs.items() if v is not ABSENT})
    kw.update(c.extra_kw)
    return args, kw


def float_dtype(v: Any) -> bool:
    return isinstance(v, np.ndarray) and v.dtype.kind == "f"


class TorchBinding(Binding):
    name = "torch"

    def __init__(self, a: argparse.Namespace, mode: str):
        super().__init__(a, mode)
        import torch
        import opforge_ops

        if a.torch_library:
            opforge_ops.load_library(a.torch_library)
        self.torch = torch
        self.pkg = opforge_ops
        self.compiled: Dict[Any, Any] = {}

    def convert(self, v: Any) -> Any:
        if isinstance(v, Members):
            return v.form([self.convert(m) for m in v])
        if isinstance(v, np.ndarray):
            return self.torch.from_numpy(v.copy())
        if isinstance(v, Huge):
            return to_torch(v)
        if isinstance(v, tuple) and len(v) == 2 and v[0] == "jax-array":
            import jax.numpy as jnp

            return jnp.asarray(v[1])
        if isinstance(v, tuple) and len(v) == 2 and v[0] == "numpy-array":
            return v[1]
        return v

    def run(self, c: Call) -> Tuple[List[Any], Optional[List[Any]]]:
        fn = getattr(self.pkg, c.op.snake)
        args, kw = split_kwargs(c)
        args = setup(lambda: [self.convert(v) for v in args])
        kw = setup(lambda: {k: self.convert(v) for k, v in kw.items()})
        if self.mode == "eager":
            outs = fn(*args, **kw)
        else:
            # Tensors are the compiled function's arguments (dynamic shapes); the rest is closed over.
            tensor_at = [i for i, v in enumerate(args) if isinstance(v, self.torch.Tensor)]
            fixed = list(args)

            def body(*ts: Any) -> Any:
                xs = list(fixed)
                for i, t in zip(tensor_at, ts):
                    xs[i] = t
                return fn(*xs, **kw)

            # Each call is its own program: `body` is one code object to dynamo, whose recompile
            # limit (8) would refuse every call of a batch after the eighth distinct one.
            self.torch._dynamo.reset()
            compiled = self.torch.compile(body, fullgraph=True, dynamic=True)
            outs = compiled(*[args[i] for i in tensor_at])
        outs = outputs(outs)
        return [as_numpy(o.detach().cpu().float() if o.dtype == self.torch.bfloat16 else o.detach().cpu()) for o in outs], None


class JaxBinding(Binding):
    name = "jax"

    def __init__(self, a: argparse.Namespace, mode: str):
        super().__init__(a, mode)
        import jax

        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        import opforge_jax

        if a.jax_library:
            opforge_jax.load_library(a.jax_library)
        self.jax, self.jnp, self.pkg = jax, jnp, opforge_jax
        self.jit_grad = False

    def convert(self, v: Any) -> Any:
        if isinstance(v, Members):
            return v.form([self.convert(m) for m in v])
        if isinstance(v, np.ndarray):
            return self.jnp.asarray(v)
        if isinstance(v, Huge):
            return self.jnp.zeros(v.shape, v.dtype)
        if isinstance(v, tuple) and len(v) == 2 and v[0] == "torch-tensor":
            import torch

            return torch.from_numpy(v[1].copy())
        return v

    def is_value(self, v: Any) -> bool:
        """A traced argument: an array, a Python float in grad mode, or a variadic input's list
        (a pytree) whose members are all arrays."""
        if isinstance(v, (list, tuple)) and v:
            return all(isinstance(m, (self.jax.Array, np.ndarray)) for m in v)
        return isinstance(v, (self.jax.Array, np.ndarray)) or (isinstance(v, float) and self.mode == "grad")

    def floating(self, v: Any) -> bool:
        if isinstance(v, (list, tuple)):
            return all(self.floating(m) for m in v)
        return (hasattr(v, "dtype") and self.jnp.issubdtype(v.dtype, self.jnp.floating)) or isinstance(v, float)

    def ops(self, spec_ops: Dict[str, Any]) -> Dict[str, Any]:
        return {k: v for k, v in spec_ops.items() if k in self.pkg.OPS}

    def run(self, c: Call) -> Tuple[List[Any], Optional[List[Any]]]:
        jax = self.jax
        fn = getattr(self.pkg, c.op.snake)
        args, kw = split_kwargs(c)
        args = setup(lambda: [self.convert(v) for v in args])
        kw = setup(lambda: {k: self.convert(v) for k, v in kw.items()})
        at = [i for i, v in enumerate(args) if self.is_value(v)]
        fixed = list(args)

        def body(*vs: Any) -> Any:
            xs = list(fixed)
            for i, v in zip(at, vs):
                xs[i] = v
            return fn(*xs, **kw)

        vals = [args[i] for i in at]
        if self.mode == "eager":
            outs = body(*vals)
        elif self.mode == "jit":
            outs = jax.jit(body)(*vals)
        elif self.mode == "vmap" and not vals:
            outs = body()  # nothing to map over (every input given by name or of another kind)
        elif self.mode == "vmap":
            # Two copies of every array along a new leading axis: both results equal the reference's.
            def twice(v: Any) -> Any:
                if isinstance(v, (list, tuple)):
                    return type(v)(twice(m) for m in v)
                return self.jnp.stack([v, v]) if hasattr(v, "shape") else v

            batched = [twice(v) for v in vals]
            axes = [0 if hasattr(v, "shape") or isinstance(v, (list, tuple)) else None for v in vals]
            outs = jax.vmap(body, in_axes=tuple(axes))(*batched)
            outs = outputs(outs)
            firsts = [as_numpy(o[0]) for o in outs]
            seconds = [as_numpy(o[1]) for o in outs]
            if any(f.size and not np.array_equal(f, s, equal_nan=True) for f, s in zip(firsts, seconds)):
                raise AssertionError("vmap: the two equal batch entries differ")
            return firsts, None
        else:
            # grad of sum(float outputs) with respect to every float input, under jit half the time.
            diff = [k for k in range(len(at)) if self.floating(vals[k])]
            if not diff:
                outs = body(*vals)
                outs = outputs(outs)
                return [as_numpy(o) for o in outs], None

            def loss(*vs: Any) -> Any:
                o = body(*vs)
                o = outputs(o)
                fl = [x for x in o if self.jnp.issubdtype(x.dtype, self.jnp.floating)]
                return sum((x.astype(self.jnp.float64).sum() for x in fl), self.jnp.zeros((), self.jnp.float64)), o

            g = jax.grad(loss, argnums=tuple(diff), has_aux=True)
            if self.jit_grad:
                g = jax.jit(g)
            grads, outs = g(*vals)
            # A variadic input's gradient is a list: flattened, as reference_grads gives it.
            flat = [m for x in grads for m in (x if isinstance(x, (list, tuple)) else [x])]
            return [as_numpy(o) for o in outs], [as_numpy(x) for x in flat]
        outs = outputs(outs)
        return [as_numpy(o) for o in outs], None


def builtin_paddle_ops() -> set:
    """The op types Paddle registers itself (as runtime/python/opforge_paddle_test.py asks)."""
    try:
        from paddle.base import core
        from paddle.base.proto import framework_pb2

        return {framework_pb2.OpProto.FromString(b).type for b in core.get_all_op_protos()}
    except Exception:  # noqa: BLE001 - another Paddle layout: nothing known to clash
        return set()


def paddle_numpy(got: Any, out: Any) -> np.ndarray:
    """A Paddle output as numpy: bfloat16 comes out as its raw 16-bit patterns (uint16), which are
    the high half of the float32 of the same value."""
    got = np.asarray(got)
    if "bfloat16" in str(out.dtype) and got.dtype == np.uint16:
        return (got.astype(np.uint32) << 16).view(np.float32)
    return got


class PaddleBinding(Binding):
    name = "paddle"

    def __init__(self, a: argparse.Namespace, mode: str):
        super().__init__(a, mode)
        import tempfile

        import paddle

        sys.path.insert(0, a.paddle_package)
        import opforge_paddle

        paddle.set_device("cpu")
        self.paddle = paddle
        # Ops whose type is one of Paddle's own (leaky_relu): the library overrides the built-in,
        # and the Python API comes from the built-in's signature. Asked before loading the library.
        self.skip = set(s for s in a.paddle_skip.split(",") if s) | builtin_paddle_ops()
        self.mod = opforge_paddle.load(a.paddle_library, build_directory=tempfile.mkdtemp(prefix="hostile_paddle_"))

    def ops(self, spec_ops: Dict[str, Any]) -> Dict[str, Any]:
        return {k: v for k, v in spec_ops.items() if k not in self.skip and v.snake not in self.skip and hasattr(self.mod, v.snake)}

    def convert(self, v: Any, static: bool) -> Any:
        paddle = self.paddle
        if isinstance(v, Members):
            return v.form([self.convert(m, static) for m in v])
        if isinstance(v, np.ndarray) and not static:
            return paddle.to_tensor(v)
        if isinstance(v, Huge) and not static:
            return paddle.zeros(list(v.shape), v.dtype)
        if isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], np.ndarray):
            if v[0] == "torch-tensor":
                import torch

                return torch.from_numpy(v[1].copy())
            if v[0] == "jax-array":
                import jax.numpy as jnp

                return jnp.asarray(v[1])
            if v[0] == "numpy-array":
                return v[1]
            if v[0] == "dygraph-tensor":
                was = paddle.in_dynamic_mode()
                paddle.disable_static()
                t = paddle.to_tensor(v[1])
                if not was:
                    paddle.enable_static()
                return t
        return v

    def positional(self, c: Call, xs: List[Any]) -> Tuple[List[Any], Dict[str, Any]]:
        """Paddle's custom ops take the inputs, then every attribute in the spec's order (no
        defaults): positionally, and by name after a missing one."""
        names = [i.name for i in c.op.inputs] + [a.name for a in c.op.attributes]
        values = list(xs) + [c.attrs.get(a.name, ABSENT) for a in c.op.attributes]
        values = [ABSENT if v is ABSENT else x for x, v in zip(values, list(c.inputs) + values[len(xs):])]
        args: List[Any] = []
        kw: Dict[str, Any] = {}
        gap = False
        for n, v in zip(names, values):
            if v is ABSENT:
                gap = True
            elif gap:
                kw[n] = v
            else:
                args.append(v)
        if not gap:
            args += list(c.extra_pos)
        kw.update(c.extra_kw)
        return args, kw

    def run(self, c: Call) -> Tuple[List[Any], Optional[List[Any]]]:
        paddle = self.paddle
        fn = getattr(self.mod, c.op.snake)
        if self.mode == "dygraph":
            xs = setup(lambda: [self.convert(v, False) for v in c.inputs])
            for k, (x, v) in enumerate(zip(xs, c.inputs)):
                if isinstance(v, np.ndarray) and v.dtype.kind == "f" and c.op.inputs[k].differentiable and c.op.backward:
                    x.stop_gradient = False
            args, kw = self.positional(c, xs)
            outs = fn(*args, **kw)
            outs = list(outputs(outs))
            return [paddle_numpy(o.numpy(), o) for o in outs], None
        paddle.enable_static()
        try:
            main, startup = paddle.static.Program(), paddle.static.Program()
            feed: Dict[str, np.ndarray] = {}
            diff: List[int] = []
            with paddle.static.program_guard(main, startup):

                def place(name: str, v: Any) -> Any:
                    """The static graph's value for v: a fed placeholder for an array."""
                    if isinstance(v, np.ndarray):
                        # Paddle holds at most 9 dims: a rank-10 mutation cannot be declared.
                        feed[name] = v
                        return setup(lambda: paddle.static.data(name, list(v.shape), str(v.dtype)))
                    if isinstance(v, Huge):
                        x = setup(lambda: paddle.static.data(name, list(v.shape), v.dtype))
                        paddle.disable_static()
                        try:
                            feed[name] = setup(lambda: paddle.zeros(list(v.shape), v.dtype))
                        finally:
                            paddle.enable_static()
                        return x
                    if isinstance(v, Members):
                        return v.form([place(f"{name}_{j}", m) for j, m in enumerate(v)])
                    return setup(lambda: self.convert(v, True))

                xs = [place(f"in{k}", v) for k, v in enumerate(c.inputs)]
                diff = self.grad_inputs(c) if self.mode == "static-train" else []
                # The placeholders taking a gradient, a variadic input's members each. Not rank 0:
                # the binding refuses that gradient in a PIR static graph by design
                # (docs/paddle-popart.md), and says how to reshape it.
                wrt = [x for k in diff for x in (list(xs[k]) if isinstance(c.inputs[k], Members) else [xs[k]])]
                for x in wrt:
                    x.stop_gradient = False
                args, kw = self.positional(c, xs)
                outs = fn(*args, **kw)
                outs = list(outputs(outs))
                fetch = list(outs)
                if self.mode == "static-train" and diff:
                    fl = [o for o, spec in zip(outs, c.op.outputs) if "float" in str(o.dtype) and spec.differentiable]
                    if fl:
                        loss = paddle.add_n([paddle.sum(paddle.cast(o, "float64")) for o in fl])
                        fetch += paddle.static.gradients([loss], wrt)
                    else:
                        diff = []
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            try:
                got = exe.run(main, feed=feed, fetch_list=fetch)
            except TypeError as e:
                if c.has_huge and "Convert data of type" in str(e):
                    # The executor takes no tensor as a feed, and numpy cannot hold the huge
                    # zero-size input: the graph was built (the binding's checks ran), it cannot run.
                    raise SetupError(f"cannot feed the huge zero-size input: {e}") from e
                raise
            n = len(outs)
            return [paddle_numpy(g, o) for g, o in zip(got[:n], outs)], ([np.asarray(g) for g in got[n:]] if diff else None)
        finally:
            paddle.disable_static()

    def grad_inputs(self, c: Call) -> List[int]:
        def ok(v: Any) -> bool:
            return isinstance(v, np.ndarray) and v.dtype.kind == "f" and v.ndim > 0

        return [k for k, v in enumerate(c.inputs) if c.op.inputs[k].differentiable
                and (all(ok(m) for m in v) and len(v) > 0 if isinstance(v, Members) else ok(v))]


# --- the run ------------------------------------------------------------------------------------


def names_in(message: str, name: str) -> bool:
    import re

    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


def message(e: BaseException) -> str:
    """What the user reads of an error: its type and message, then those of the errors it was
    raised from (`raise ... from`), as a traceback shows them. torch.compile raises dynamo's
    `Unsupported` from the error the traced call raised (the binding's own TypeError, or Python's
    for arguments that do not fit the signature)."""
    parts, seen = [], set()
    while e is not None and id(e) not in seen and len(parts) < 4:
        seen.add(id(e))
        parts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__
    return "\n(the direct cause) ".join(parts)


#: Modes where the op runs after the binding's function has returned (a compiled graph, an
#: executor): the framework's own error for an output that does not fit in memory reaches the
#: user without the binding seeing it. In the other modes the binding names the op in it.
RUN_ELSEWHERE = ("compile", "jit", "vmap", "grad", "static", "static-train")
_ALLOCATION = ("can't allocate memory", "not enough memory", "out of memory", "Out of memory", "RESOURCE_EXHAUSTED",
               "ResourceExhausted", "bad_alloc", "Failed to allocate")


def allocation_failure(e: BaseException, msg: str) -> bool:
    return isinstance(e, MemoryError) or any(k in msg for k in _ALLOCATION)


def clip(msg: str) -> str:
    return msg if len(msg) <= 800 else f"{msg[:400]} ... {msg[-400:]}"


def nameless(msg: str, e: Exception, op: Any, targets: Sequence[str]) -> List[str]:
    """What the message fails to name: the op (its spec name; or, where Python or dynamo finds that
    the call does not fit the signature, the function called: `snake()`, `function snake`), and
    one of the arguments the mutations targeted (the first fault found is enough)."""
    missing = []
    if not names_in(msg, op.name) and f"{op.snake}()" not in msg and f"function {op.snake}" not in msg:
        missing.append(op.name)
    if targets and not any(names_in(msg, t) for t in targets):
        missing.append(" or ".join(targets))
    return missing


def main() -> int:
    a = parse_args()
    if a.memory_gb > 0:
        import resource

        limit = int(a.memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
    sys.path.insert(0, a.spec_package)
    if a.jax_package:
        sys.path.insert(0, a.jax_package)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("GLOG_minloglevel", "2")
    import opforge_ops

    binding: Binding = {"torch": TorchBinding, "jax": JaxBinding, "paddle": PaddleBinding}[a.binding](a, a.mode)
    # Ops with spec cases (a call starts from one).
    spec_ops = binding.ops({k: v for k, v in opforge_ops.OPS.items() if v.tests})
    if a.ops:
        want = set(a.ops.split(","))
        spec_ops = {k: v for k, v in spec_ops.items() if k in want or v.snake in want}
    names = sorted(spec_ops)
    if not names:
        print(json.dumps({"error": "no op to call"}))
        return 2

    counts: Dict[str, Any] = {"binding": a.binding, "mode": a.mode, "seed": a.seed, "first": a.first, "calls": 0, "accepted": 0,
                              "accepted_valid": 0, "raised": {}, "mismatches": 0, "nameless": 0, "examples": [], "mismatch_examples": [],
                              "rejected_valid": 0, "rejected_examples": [], "setup_failed": 0, "out_of_memory": 0}
    started = time.time()
    for n in range(a.first, a.first + a.calls):
        rng = random.Random(a.seed * 1_000_003 + n)
        nrng = np.random.default_rng([a.seed, n])
        op = spec_ops[rng.choice(names)]
        c = valid_call(op, rng, nrng)
        # About a third valid: no mutation, or only harmless ones.
        k = 0 if rng.random() < 0.3 or a.valid_only else rng.choice((1, 1, 2, 3))
        for _ in range(k):
            mutate(c, a.binding, a.mode, rng, nrng)
        if isinstance(binding, JaxBinding):
            binding.jit_grad = rng.random() < 0.5
        if a.binding == "paddle":
            for inp, x in zip(op.inputs, c.inputs):
                if any(isinstance(v, np.ndarray) and v.size == 0 and v.dtype != np.float32 for v in leaves(x)):
                    # Paddle's kernels see a zero-size tensor as float32 whatever its dtype (the
                    # op's dtype check then refuses it): docs/security.md.
                    c.fault(inp.name, False)
        if a.mode in ("grad", "static-train") and op.backward is None and any(
                op.inputs[i].differentiable for i in grad_inputs(c)):
            # A gradient through an op whose spec declares no backward: the binding must refuse it
            # (saying so is naming the fault).
            c.faults["backward"] = "invalid"
        desc = c.describe()
        sys.stderr.write(f"call {n}: {desc}\n")
        sys.stderr.flush()
        phase = "call"
        counts["calls"] += 1
        try:
            outs, grads = binding.run(c)
        except SetupError as e:
            counts["setup_failed"] = counts.get("setup_failed", 0) + 1
            sys.stderr.write(f"call {n}: not run ({e})\n")
            continue
        except Exception as e:  # noqa: BLE001 - every exception is an outcome to judge
            t = type(e).__name__
            counts["raised"][t] = counts["raised"].get(t, 0) + 1
            msg = message(e)
            if not c.invalid and not c.uncertain:
                # Valid values (perhaps as another type a binding should take): rejecting is a failure.
                counts["rejected_valid"] = counts.get("rejected_valid", 0) + 1
                if len(counts["rejected_examples"]) < 20:
                    counts["rejected_examples"].append({"call": n, "what": desc, "message": clip(msg)})
                continue
            if c.has_huge and allocation_failure(e, msg) and (
                    a.mode in RUN_ELSEWHERE or names_in(msg, op.name)):
                # A valid call whose outputs do not fit in memory: the binding names the op (no
                # argument is wrong); where a compiled graph or an executor runs the op after the
                # binding has returned, nothing of the binding's sees the framework's error.
                counts["out_of_memory"] = counts.get("out_of_memory", 0) + 1
                continue
            # A dim mutation may make an output too large: naming that output names the fault.
            missing = nameless(msg, e, op, c.targets + ([o.name for o in op.outputs] if c.uncertain else []))
            if missing:
                counts["nameless"] += 1
                if len(counts["examples"]) < 20:
                    counts["examples"].append({"call": n, "what": desc, "missing": missing, "message": clip(msg)})
            continue
        counts["accepted"] += 1
        counts["accepted_valid"] += 0 if c.invalid else 1
        problem = None
        try:
            want = reference_outputs(c)
        except Exception as e:  # noqa: BLE001
            if c.has_huge:
                # A zero-size input the reference's PyTorch cannot make, or takes no zero-size
                # input for (interpolate): nothing to compare with.
                counts["no_reference"] = counts.get("no_reference", 0) + 1
                continue
            problem = f"accepted, but the reference rejects the call ({type(e).__name__}: {str(e)[:200]})"
        if problem is None:
            problem = compare(c, outs, want)
        if problem is None and grads is not None:
            diff = binding.grad_inputs(c) if isinstance(binding, PaddleBinding) else grad_inputs(c)
            try:
                gw = reference_grads(c, diff)
                problem = compare(c, grads, gw, "gradient")
            except Exception as e:  # noqa: BLE001
                if c.has_huge:
                    counts["no_reference"] = counts.get("no_reference", 0) + 1
                    continue  # (as for the outputs above)
                problem = f"gradients accepted, but the reference's fail ({type(e).__name__}: {str(e)[:200]})"
        if problem is not None:
            counts["mismatches"] += 1
            if len(counts["mismatch_examples"]) < 20:
                counts["mismatch_examples"].append({"call": n, "what": desc, "problem": problem})
    counts["seconds"] = round(time.time() - started, 2)
    print(json.dumps(counts), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(3)
