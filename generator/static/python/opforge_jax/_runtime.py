"""Shared runtime of the generated {{package}} package.

Every generated op module describes its op with an OpInfo (facts from the spec) and a
result_shapes function (compiled from the spec's shape expressions); the rest lives here once:
attribute and input checks (the messages of {{torchPackage}}), loading the compiled library and
registering its XLA FFI handlers (with the jaxlib version check), the custom call
(jax.ffi.ffi_call with the op's vmap_method), jax.custom_vjp from the spec's `backward`, and the
safety checks jax.export needs disabled for the ops.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import jax
import jax.numpy as jnp
import numpy as np

from ._attrs import _coerce_attr, check_attrs, no_backward_message, show  # noqa: F401  (shared with {{torchPackage}})
from ._dims import (returned, check_output_sizes, check_shapes, chosen_dtype, evaluate, flatten_inputs, named_error, output_dims, rank_ok,
                    rank_text, tensor_inputs, variadic_index)

#: The FFI attribute holding which inputs are present (bit i: input i), for ops with optional inputs.
PRESENT_ATTR = "opforge.present"
#: The library CMake builds from out/jax (cmake -S out -B build -DWITH_JAX=ON).
LIBRARY_NAME = "lib{{target}}.so"


@dataclass(frozen=True)
class Input:
    name: str
    #: Allowed dtypes (spec names, which are also jnp dtype names).
    dtypes: Tuple[str, ...]
    #: Type variable name, or None for a fixed dtype.
    type_var: Optional[str]
    #: An int, None (any) or a tuple of the ranks allowed (`rank: [4, 5]`).
    rank: Optional[Union[int, Tuple[int, ...]]]
    optional: bool
    #: Gradients flow to it (spec: a float input not marked differentiable: false).
    differentiable: bool = True
    #: The dims the spec constrains, as _dims.py reads them (None: none).
    shape: Any = None
    #: The spec's text of each constrained dim (quoted by errors).
    shape_source: Optional[Tuple[str, ...]] = None
    #: The last input may be variadic: a list of min_count or more tensors (at most MAX_MEMBERS) in
    #: its place, each checked as this input; a call's tensors are the others, then the members.
    variadic: bool = False
    min_count: int = 1
    #: A variadic input's members each have any of `dtypes` on their own (`homogeneous: false`,
    #: ONNX's heterogeneous variadic); type_var is then None.
    homogeneous: bool = True


@dataclass(frozen=True)
class Output:
    name: str
    dtypes: Tuple[str, ...]
    #: Index of the first input bound to the same type variable (None for a fixed dtype).
    dtype_from: Optional[int]
    differentiable: bool = True
    #: Its dims from the input dims and attributes, as _dims.py reads them.
    shape: Any = ()
    #: For a dtype the attributes choose: a dtype name or ("if", condition, yes, no) (_dims.chosen_dtype).
    dtype_choice: Any = None
    #: A member of a variadic output that follows a heterogeneous input: the call's tensor (that
    #: input's member of the same index) whose dtype it has.
    dtype_member: Optional[int] = None
    #: The spec's `present:` condition over attributes (None: always present), as _dims.evaluate reads it.
    present: Any = None
    #: The variadic output it is a member of (None: none); the op's function returns the members as one list.
    of: Optional[str] = None
    #: The dims its kernel decides: (axis, data dim) each; the output is padded to `shape`'s bounds.
    data_dims: Tuple[Tuple[int, int], ...] = ()


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # bool | int | float | string | ints | floats
    required: bool
    default: Any
    enum: Optional[Tuple[Any, ...]]
    min: Optional[float]
    max: Optional[float]
    #: Element count of a list attribute: exact, or the counts it may have (None: any).
    length: Union[int, Tuple[int, ...], None] = None
    #: `min` / `max` exclude the bound itself (the spec's exclusive_min / exclusive_max).
    min_exclusive: bool = False
    max_exclusive: bool = False


@dataclass(frozen=True)
class Gradient:
    """One entry of a spec's `backward`: a gradient op of the project and how it is fed."""
    #: snake_case name of the gradient op.
    op: str
    #: Per input of the gradient op: ('input' | 'output' | 'grad', index into the forward's), or None.
    inputs: Tuple[Optional[Tuple[str, int]], ...]
    #: Per attribute of the gradient op: the forward attribute it takes, or None (its default).
    attributes: Tuple[Optional[str], ...]
    #: Per output of the gradient op: the forward input whose gradient it is, or None.
    outputs: Tuple[Optional[int], ...]


#: Every OpInfo by snake_case name, filled as the op modules are imported.
_registry: Dict[str, "OpInfo"] = {}


@dataclass(frozen=True)
class OpInfo:
    name: str
    domain: str
    snake: str
    #: The custom-call target (jax.ffi.register_ffi_target name; exported programs name it).
    target: str
    #: The library's CPU and CUDA handler symbols.
    symbols: Tuple[str, str]
    inputs: Tuple[Input, ...]
    outputs: Tuple[Output, ...]
    attributes: Tuple[Attr, ...]
    #: jax.ffi.ffi_call's vmap_method (docs/jax.md: why every op batches sequentially).
    vmap_method: str
    has_cuda: bool
    #: The spec's `backward` (None: differentiating through the op raises no_backward_message).
    backward: Optional[Tuple[Gradient, ...]]
    #: The spec file, relative to the project root (named in errors).
    spec: str = ""
    #: The spec's `checks:` (_dims.check_conditions reads them).
    checks: Tuple[Any, ...] = ()
    #: The spec's `data_dims:` by name: the function returns their values after the outputs.
    data_dims: Tuple[str, ...] = ()

    @property
    def num_data_dims(self) -> int:
        return len(self.data_dims)

    def __post_init__(self) -> None:
        _registry[self.snake] = self

    @property
    def onnx_op(self) -> str:
        # The default domain is '' in the spec and `onnx::` to torch's g.op.
        return f"{self.domain or 'onnx'}::{self.name}"


# ---- argument checks (the messages of {{torchPackage}}' _runtime.py) ------------------------

def dtype_name(x: Any) -> str:
    return jnp.dtype(x.dtype).name


#: What jnp functions take besides arrays: Python scalars (weakly typed, as jnp makes them; the
#: typed scalars jax.grad's backward hands over are their subclasses).
_SCALARS = (int, float)


def check_inputs(op: OpInfo, inputs: Sequence[Any]) -> List[Optional[jax.Array]]:
    """Arrays (jax.Array, tracers, numpy arrays and scalars, Python scalars) with allowed dtypes,
    consistent type variables and the spec's ranks; call() checks the dims the spec constrains.
    `inputs` has one entry per input (a variadic input's: a list or tuple of its members); the
    result is in tensor order, the members after the other inputs, as the custom call takes them."""
    flat = flatten_inputs(op, inputs)
    out: List[Optional[jax.Array]] = []
    bound: Dict[str, Tuple[str, str]] = {}
    for (spec, label), t in zip(tensor_inputs(op, len(flat)), flat):
        if t is None:
            if not spec.optional:
                raise TypeError(f"{op.name}: input {label} is required")
            out.append(None)
            continue
        if isinstance(t, _SCALARS):
            t = jnp.asarray(t)
        elif not isinstance(t, (jax.Array, np.ndarray, np.generic)):
            raise TypeError(f"{op.name}: input {label} must be a jax.Array or a numpy array, got {type(t).__module__}.{type(t).__name__}")
        try:
            dt = dtype_name(t)
        except TypeError:
            raise TypeError(f"{op.name}: input {label} has dtype {t.dtype}, expected one of {list(spec.dtypes)}") from None
        if dt not in spec.dtypes:
            hint = " (64-bit dtypes need jax.config.update('jax_enable_x64', True))" if any(d.endswith("64") for d in spec.dtypes) and not jax.config.jax_enable_x64 else ""
            raise TypeError(f"{op.name}: input {label} has dtype {dt}, expected one of {list(spec.dtypes)}{hint}")
        if spec.type_var is not None:
            prev = bound.setdefault(spec.type_var, (dt, label))
            if prev[0] != dt:
                raise TypeError(f"{op.name}: inputs {prev[1]} and {label} share type {spec.type_var} but have dtypes {prev[0]} and {dt}")
        if not rank_ok(spec.rank, len(t.shape)):
            raise ValueError(f"{op.name}: input {label} must have rank {rank_text(spec.rank)}, got {len(t.shape)}")
        out.append(t if isinstance(t, jax.Array) else jnp.asarray(t))
    return out


def port_value(op: OpInfo, xs: Sequence[Any], i: int) -> Any:
    """Input i of the op from tensors in tensor order: the tensor, or a variadic input's members' list."""
    return list(xs[i:]) if i == variadic_index(op) else xs[i]


# ---- the compiled library: version check, loading, registration -------------------------

class JaxlibMismatchError(ImportError):
    """The library was built against another jaxlib's FFI than the one running (rebuild it)."""


_loaded: Dict[str, Any] = {}


def _version_tuple(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v.split("+")[0])[:3])


def running_ffi_version() -> Tuple[int, int]:
    """XLA_FFI_API_MAJOR/MINOR of the running jaxlib (from the FFI headers it ships)."""
    header = Path(jax.ffi.include_dir()) / "xla" / "ffi" / "api" / "c_api.h"
    text = header.read_text(encoding="utf-8")
    major = re.search(r"#define XLA_FFI_API_MAJOR (\d+)", text)
    minor = re.search(r"#define XLA_FFI_API_MINOR (\d+)", text)
    if not (major and minor):
        raise JaxlibMismatchError(f"{{package}}: cannot read the XLA FFI API version from {header}")
    return int(major.group(1)), int(minor.group(1))


def version_mismatch(built_jaxlib: str, built_ffi: Tuple[int, int], running_jaxlib: str, running_ffi: Tuple[int, int]) -> Optional[str]:
    """Why a library built against (built_jaxlib, built_ffi) cannot run under the running jaxlib, or
    None. Handlers carry the FFI version of their headers; XLA accepts them from older headers of
    the same major version, not from newer ones (docs/jax.md, "Versions")."""
    rebuild = ("rebuild it against the running jaxlib (cmake -S out -B build -DWITH_JAX=ON, then cmake --build build --target {{target}}; "
               "CMake reads the FFI headers from jax.ffi.include_dir()), or install jaxlib==" + built_jaxlib)
    if built_ffi[0] != running_ffi[0]:
        return (f"{{package}}: the library was built against jaxlib {built_jaxlib} (XLA FFI API {built_ffi[0]}.{built_ffi[1]}), "
                f"but jaxlib {running_jaxlib} (XLA FFI API {running_ffi[0]}.{running_ffi[1]}) is running: the FFI major versions differ; {rebuild}")
    if built_ffi[1] > running_ffi[1] or _version_tuple(built_jaxlib) > _version_tuple(running_jaxlib):
        return (f"{{package}}: the library was built against jaxlib {built_jaxlib} (XLA FFI API {built_ffi[0]}.{built_ffi[1]}), "
                f"newer than the running jaxlib {running_jaxlib} (XLA FFI API {running_ffi[0]}.{running_ffi[1]}): its handlers would not load; {rebuild}")
    return None


def library_path() -> Optional[str]:
    """{{libraryEnv}}, else the library beside this package (a wheel built with `opforge package
    --jax`), else the first of build/jax/lib{{target}}.so (cmake -S out -B build) and
    build/jax/jax/lib{{target}}.so (what `opforge test` builds) beside the project (the directory
    above out/) or under the working directory; None when there is none."""
    env = os.environ.get("{{libraryEnv}}")
    if env:
        return env
    installed = Path(__file__).resolve().parent / LIBRARY_NAME
    if installed.is_file():
        return str(installed)
    here = Path(__file__).resolve().parent  # out/jax/{{package}}
    for base in (here.parent.parent.parent, Path.cwd()):
        for p in (base / "build" / "jax" / LIBRARY_NAME, base / "build" / "jax" / "jax" / LIBRARY_NAME):
            if p.is_file():
                return str(p)
    return None


def build_info(path: Optional[str] = None) -> Dict[str, Any]:
    """What a library was built against: jaxlib version, XLA FFI API version, CUDA handlers."""
    p = path or library_path()
    if p is None:
        raise FileNotFoundError("{{package}}: no " + LIBRARY_NAME + " (build it: cmake -S out -B build -DWITH_JAX=ON && "
                                "cmake --build build --target {{target}}; or set {{libraryEnv}})")
    lib = ctypes.CDLL(os.path.abspath(p))
    lib.opforge_jax_jaxlib_version.restype = ctypes.c_char_p
    return {"path": os.path.abspath(p), "jaxlib": lib.opforge_jax_jaxlib_version().decode(),
            "ffi_api": (int(lib.opforge_jax_ffi_api_major()), int(lib.opforge_jax_ffi_api_minor())), "cuda": bool(lib.opforge_jax_has_cuda())}


def load_library(path: Optional[str] = None) -> Dict[str, Any]:
    """Loads the compiled library (default: library_path()) after checking it was built for the
    running jaxlib, and registers every op's handlers (CPU; CUDA when built with them). Once per
    process: a second path is an error, the same one a no-op. Returns build_info()."""
    if _loaded:
        info = _loaded["info"]
        if path is not None and os.path.abspath(path) != info["path"]:
            raise RuntimeError(f"{{package}}: {info['path']} is already loaded; one library per process")
        return info
    import jaxlib

    info = build_info(path)
    why = version_mismatch(info["jaxlib"], info["ffi_api"], jaxlib.__version__, running_ffi_version())
    if why:
        raise JaxlibMismatchError(why)
    lib = ctypes.CDLL(info["path"])
    for op in sorted(_registry.values(), key=lambda o: o.snake):
        jax.ffi.register_ffi_target(op.target, jax.ffi.pycapsule(getattr(lib, op.symbols[0])), platform="cpu")
        if info["cuda"]:
            jax.ffi.register_ffi_target(op.target, jax.ffi.pycapsule(getattr(lib, op.symbols[1])), platform="CUDA")
    _loaded.update(lib=lib, info=info)
    return info


def export_disabled_checks(ops: Optional[Sequence[str]] = None) -> List[Any]:
    """jax.export's disabled_checks for the ops (default: every op, gradient ops included): one
    DisabledSafetyCheck.custom_call per target. jax.export refuses custom calls without a
    compatibility guarantee; disabling the check says the caller owns it: the exported artifact
    runs only where {{package}} has loaded a library with the same targets (docs/jax.md)."""
    from jax import export

    names = sorted(_registry) if ops is None else list(ops)
    by_name = {op.name: op for op in _registry.values()}
    out = []
    for n in names:
        op = _registry.get(n) or by_name.get(n)
        if op is None:
            raise KeyError(f"{{package}}: no op {n!r}")
        out.append(export.DisabledSafetyCheck.custom_call(op.target))
    return out


# ---- the custom call ---------------------------------------------------------------------

def _freeze(attrs: Dict[str, Any]) -> Tuple[Tuple[str, Any], ...]:
    """Attributes as a hashable key (custom_vjp's non-differentiable argument); lists as tuples."""
    return tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in attrs.items())


def _encode(op: OpInfo, attrs: Dict[str, Any], present: Sequence[bool]) -> Dict[str, Any]:
    """Attributes as ffi_call passes them: floats as f64, ints as i64, lists as int64/float64 arrays."""
    out: Dict[str, Any] = {}
    for a in op.attributes:
        v = attrs[a.name]
        if a.type == "float":
            out[a.name] = float(v)
        elif a.type == "int":
            out[a.name] = int(v)
        elif a.type == "ints":
            out[a.name] = np.asarray(list(v), dtype=np.int64)
        elif a.type == "floats":
            out[a.name] = np.asarray(list(v), dtype=np.float64)
        else:
            out[a.name] = v
    if any(i.optional for i in op.inputs):
        # One bit per input; a variadic input's members (after the inputs) are always present.
        out[PRESENT_ATTR] = sum(1 << i for i, p in enumerate(present[:len(op.inputs)]) if p)
    return out


def result_types(op: OpInfo, xs: Sequence[Optional[jax.Array]], attrs: Dict[str, Any]) -> List[jax.ShapeDtypeStruct]:
    """Output shapes (the spec's expressions) and dtypes (fixed, or the type variable's input's),
    after the checks of the input dims the spec constrains and of every output's byte size (XLA
    aborts the process on a size beyond int64): at trace time, so jit cannot drop them."""
    shapes = [None if x is None else tuple(int(d) for d in x.shape) for x in xs]
    check_shapes(op, shapes, attrs)
    dims = output_dims(op, shapes, attrs)
    dtypes = []
    for o in op.outputs:
        if o.dtype_choice is not None:
            dt = chosen_dtype(o.dtype_choice, attrs)
        elif o.dtype_member is not None:  # its heterogeneous input's member of the same index
            src = xs[o.dtype_member] if o.dtype_member < len(xs) else None
            dt = dtype_name(src) if src is not None else o.dtypes[0]
        elif o.dtype_from is None:
            dt = o.dtypes[0]
        else:
            var = op.inputs[o.dtype_from].type_var
            src = next((x for x, (i, _) in zip(xs, tensor_inputs(op, len(xs))) if x is not None and i.type_var == var), None)
            dt = dtype_name(src) if src is not None else o.dtypes[0]
        dtypes.append(jnp.dtype(dt))
    check_output_sizes(op, dims, [dt.itemsize for dt in dtypes])
    # The call has the outputs the attributes ask for (`present:`), which come first; then, for
    # the dims the kernel decides, their values (the outputs are padded to the bounds).
    return [jax.ShapeDtypeStruct(tuple(d), dt) for d, dt, o in zip(dims, dtypes, op.outputs)
            if o.present is None or evaluate(o.present, (), attrs)] + [jax.ShapeDtypeStruct((), jnp.int64)] * op.num_data_dims


def ffi(op: OpInfo, xs: Sequence[Optional[jax.Array]], attrs: Dict[str, Any]) -> Tuple[jax.Array, ...]:
    """The op's custom call on checked inputs (tensor order: its operands are the present ones, a
    variadic input's members last) and attributes: every output, as a tuple."""
    load_library()
    # Inside custom_vjp a Python-scalar primal arrives as a bare typed scalar, not an array.
    xs = [x if x is None or isinstance(x, jax.Array) else jnp.asarray(x) for x in xs]
    present = [x is not None for x in xs]
    call = jax.ffi.ffi_call(op.target, result_types(op, xs, attrs), vmap_method=op.vmap_method)
    return tuple(call(*[x for x in xs if x is not None], **_encode(op, attrs, present)))


def _is_float(x: Any) -> bool:
    return x is not None and jnp.issubdtype(x.dtype, jnp.floating)


def input_gradients(op: OpInfo, xs: Sequence[Optional[jax.Array]], outs: Sequence[jax.Array], cts: Sequence[Any],
                    attrs: Dict[str, Any]) -> List[Any]:
    """The cotangent of each input tensor (tensor order) from the spec's gradient ops (custom calls
    too): zeros for a float input no gradient reaches (a variadic input's members), float0 for the
    others (JAX's cotangent of an integer input)."""
    grads: List[Any] = [None if x is None else jnp.zeros_like(x) if _is_float(x) else np.zeros(x.shape, dtype=jax.dtypes.float0) for x in xs]
    wanted = [_is_float(x) and spec.differentiable for (spec, _), x in zip(tensor_inputs(op, len(xs)), xs)]
    if not any(wanted):
        return grads
    if op.backward is None:
        raise RuntimeError(no_backward_message(op))
    # The cotangent of an integer output is float0: the gradient ops take zeros of its dtype.
    gouts = [jnp.zeros(o.shape, o.dtype) if c is None or c.dtype == jax.dtypes.float0 else c for c, o in zip(cts, outs)]
    for g in op.backward:
        if not any(i is not None and wanted[i] for i in g.outputs):
            continue
        gop = _registry[g.op]
        args = [None if s is None else (port_value(op, xs, s[1]) if s[0] == "input" else outs[s[1]] if s[0] == "output" else gouts[s[1]])
                for s in g.inputs]
        try:
            gattrs = check_attrs(gop, {a.name: attrs[f] for a, f in zip(gop.attributes, g.attributes) if f is not None})
            res = ffi(gop, check_inputs(gop, args), gattrs)
        except (TypeError, ValueError) as e:
            # The op the user differentiated leads the message; the gradient op's words follow.
            raise type(e)(f"{op.name} (gradient): {e}") from e
        for j, i in enumerate(g.outputs):
            if i is not None and wanted[i]:
                grads[i] = res[j]
    return grads


@functools.lru_cache(maxsize=None)
def _differentiable(snake: str) -> Callable[..., Tuple[jax.Array, ...]]:
    """The op as a jax.custom_vjp function of (attribute key, *tensors in tensor order): forward and
    backward are custom calls."""
    op = _registry[snake]

    @functools.partial(jax.custom_vjp, nondiff_argnums=(0,))
    def f(key: Tuple[Tuple[str, Any], ...], *xs: Any) -> Tuple[jax.Array, ...]:
        return ffi(op, xs, dict(key))

    def fwd(key: Tuple[Tuple[str, Any], ...], *xs: Any) -> Any:
        outs = ffi(op, xs, dict(key))
        return outs, (xs, outs)

    def bwd(key: Tuple[Tuple[str, Any], ...], res: Any, cts: Any) -> Tuple[Any, ...]:
        xs, outs = res
        return tuple(input_gradients(op, xs, outs, cts, dict(key)))

    f.defvjp(fwd, bwd)
    return f


def call(op: OpInfo, inputs: Sequence[Any], attrs: Dict[str, Any]) -> Any:
    """The public functions' body: checks, then the differentiable custom call."""
    checked = check_attrs(op, attrs)
    xs = check_inputs(op, inputs)
    result_types(op, xs, checked)  # the dim and size checks, here where jit(grad(...)) cannot drop them
    try:
        outs = _differentiable(op.snake)(_freeze(checked), *xs)
    except Exception as e:
        raise named_error(op, e)
    return returned(outs, [o.of for o in op.outputs if o.present is None or evaluate(o.present, (), checked)])
