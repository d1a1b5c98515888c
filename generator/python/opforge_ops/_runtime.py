"""Shared runtime of the generated opforge_ops package.

Every generated op module describes its op with an OpInfo (facts from the spec) and an
output_shapes function (compiled from the spec's shape expressions); everything else -
argument checks, the legacy exporter's autograd.Function, torch.library registration for the
dynamo exporter, the ONNX OpSchema with its inference function and the ONNX shape pass -
lives here once, so the ops cannot drift apart.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch

# The dtype and attribute tables come from generator/spec/type-table.ts (the one table every backend
# reads), emitted as _types.py.
from ._types import ATTR_ONNX, DTYPE_OF_JIT, LEGACY_SUFFIX, ONNX_ELEM, ONNX_TYPE_STR, TORCH_DTYPES

#: torch.library namespace of every opforge op: torch.ops.opforge.<snake_name>.
TORCH_NAMESPACE = "opforge"

_DTYPE_OF_TORCH = {v: k for k, v in TORCH_DTYPES.items()}


def _torch_version() -> Tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


TORCH_VERSION = _torch_version()
#: torch.library.custom_op / register_fake exist from torch 2.4; older torch has only the legacy exporter.
HAS_CUSTOM_OP = TORCH_VERSION >= (2, 4) and hasattr(torch.library, "custom_op")


@dataclass(frozen=True)
class Input:
    name: str
    #: Allowed dtypes (spec names).
    dtypes: Tuple[str, ...]
    #: Type variable name, or None for a fixed dtype.
    type_var: Optional[str]
    rank: Optional[int]
    optional: bool
    #: Gradients flow to it (spec: a float input not marked differentiable: false).
    differentiable: bool = True


@dataclass(frozen=True)
class Output:
    name: str
    dtypes: Tuple[str, ...]
    type_var: Optional[str]
    #: Index of the first input bound to the same type variable (None for a fixed dtype).
    dtype_from: Optional[int]
    #: Its gradient reaches the backward (integer outputs and those marked false never do).
    differentiable: bool = True


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


@dataclass(frozen=True)
class Attr:
    name: str
    type: str  # bool | int | float | string | ints | floats
    required: bool
    default: Any
    enum: Optional[Tuple[Any, ...]]
    min: Optional[float]
    max: Optional[float]
    description: str


@dataclass(frozen=True)
class TestCase:
    #: Per input: (shape, explicit values or None, (low, high)); None for an absent optional input.
    inputs: Tuple[Optional[Tuple[Tuple[int, ...], Optional[Tuple[float, ...]], Tuple[float, float]]], ...]
    dtypes: Dict[str, str]
    attributes: Dict[str, Any]
    rtol: float
    atol: float
    seed: int


#: Every OpInfo by qualname ("opforge::<snake>"), filled as the op modules are imported.
_registry: Dict[str, "OpInfo"] = {}


@dataclass(frozen=True)
class OpInfo:
    name: str
    domain: str
    version: int
    snake: str
    doc: str
    inputs: Tuple[Input, ...]
    outputs: Tuple[Output, ...]
    attributes: Tuple[Attr, ...]
    #: (name, allowed dtypes) per type variable.
    type_vars: Tuple[Tuple[str, Tuple[str, ...]], ...]
    #: TORCH_LIBRARY schema without the name: "(Tensor x, float alpha=0.0) -> Tensor".
    torch_schema: str
    #: shapes (per input: a list of dims - int, SymInt, str symbol or None - or None) and
    #: attribute values -> one such list (or None) per output.
    output_shapes: Callable[[Sequence[Optional[Sequence[Any]]], Dict[str, Any]], List[Optional[List[Any]]]]
    #: The spec's PyTorch reference, or None.
    reference: Optional[Callable[..., Any]]
    tests: Tuple[TestCase, ...]
    #: Whether the spec names a CUDA kernel (kernels.cuda); without one the compiled op runs on the CPU only.
    has_cuda: bool
    #: The spec's `backward` (None: asking for a gradient through the op is an error).
    backward: Optional[Tuple[Gradient, ...]] = None
    #: The spec file, relative to the project root (named in errors).
    spec: str = ""

    def __post_init__(self) -> None:
        _registry[self.qualname] = self  # by name, for _register (which torch.compile runs by name)

    @property
    def qualname(self) -> str:
        return f"{TORCH_NAMESPACE}::{self.snake}"

    @property
    def onnx_op(self) -> str:
        return f"{self.domain}::{self.name}"


# ---- dim arithmetic shared by every shape function -------------------------------------
# A dim is an int, a torch.SymInt (fake tensors), a str (an ONNX dim_param) or None (unknown).
# Arithmetic on an unknown or symbolic-name dim gives None: ONNX cannot express it.

def _known(*xs: Any) -> bool:
    return all(x is not None and not isinstance(x, str) for x in xs)


def dim(shapes: Sequence[Optional[Sequence[Any]]], index: int, axis: int) -> Any:
    s = shapes[index] if index < len(shapes) else None
    if s is None or axis >= len(s):
        return None
    return s[axis]


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


# ---- argument checks -------------------------------------------------------------------

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


def output_dtypes(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]]) -> List[torch.dtype]:
    out = []
    for o in op.outputs:
        if o.dtype_from is None:
            out.append(TORCH_DTYPES[o.dtypes[0]])
        else:
            src = tensors[o.dtype_from]
            out.append(src.dtype if src is not None else TORCH_DTYPES[o.dtypes[0]])
    return out


def _first_present(tensors: Sequence[Optional[torch.Tensor]]) -> torch.Tensor:
    for t in tensors:
        if t is not None:
            return t
    raise TypeError("no input tensor given")


def empty_outputs(op: OpInfo, tensors: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any], zeros: bool = False) -> Any:
    """Outputs of the inferred shapes and dtypes (works on fake tensors with SymInts)."""
    # Under the legacy exporter's tracer, sizes are traced tensors; shape arithmetic on them (a
    # Python max() of two) leaves values torch 1.13's peephole pass fails on ("Argument passed to
    # at() was not in the map"). The exported node's shapes come from the symbolic: ints serve here.
    tracing = torch.jit.is_tracing()
    shapes = op.output_shapes([None if t is None else [int(d) for d in t.shape] if tracing else list(t.shape) for t in tensors], attrs)
    like_t = _first_present(tensors)
    outs = []
    for o, shape, dt in zip(op.outputs, shapes, output_dtypes(op, tensors)):
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"{op.name}: cannot infer the shape of output {o.name!r} from the inputs")
        outs.append(like_t.new_zeros(shape, dtype=dt) if zeros else like_t.new_empty(shape, dtype=dt))
    return outs[0] if len(outs) == 1 else tuple(outs)


# ---- the compiled extension ------------------------------------------------------------

_lock = threading.Lock()
_extension: Optional[str] = None
#: The extension's Python entry (opforge_torch_py, beside the library when it was built): its Op
#: calls a compiled op the way torch's own bindings do, instead of torch.ops' per-call matching.
_entry: Any = None
_python_defined: set = set()
_faked: set = set()


def default_library_paths() -> List[Path]:
    here = Path(__file__).resolve().parent
    env = os.environ.get("OPFORGE_TORCH_LIBRARY")
    paths = [Path(env)] if env else []
    # out/python/opforge_ops -> build/torch next to out/ (where the docs and `opforge test` build
    # it), then out/torch/build (a build inside out/torch).
    paths.append(here.parent.parent.parent / "build" / "torch" / "libopforge_torch.so")
    paths.append(here.parent.parent / "torch" / "build" / "libopforge_torch.so")
    return paths


def load_library(path: Optional[str] = None) -> str:
    """Loads the compiled extension (TORCH_LIBRARY ops with CPU and CUDA kernels). Call it
    before the first op call; without it, ops run their PyTorch reference."""
    global _extension, _entry
    with _lock:
        candidates = [Path(path)] if path else default_library_paths()
        for p in candidates:
            if p.is_file():
                if _extension == str(p.resolve()):
                    return _extension
                if _python_defined:
                    raise RuntimeError(
                        f"opforge_ops: {sorted(_python_defined)} were already registered from Python (reference); "
                        "load the extension before calling any op")
                torch.ops.load_library(str(p))
                _extension = str(p.resolve())
                _entry = _load_entry(p.parent)
                if _entry is not None:
                    for op in _registry.values():
                        _route_torch_ops(op)
                _filled.clear()  # ops first called before now ran the reference
                for slot in _slots.values():
                    slot[0] = None
                return _extension
        raise FileNotFoundError("opforge_ops: no compiled extension at " + ", ".join(str(p) for p in candidates))


def _load_entry(directory: Path) -> Any:
    """opforge_torch_py from the library's directory, for this Python (its file name carries the
    ABI tag); None when it was not built or $OPFORGE_TORCH_NO_ENTRY is set."""
    if os.environ.get("OPFORGE_TORCH_NO_ENTRY"):
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        f = directory / ("opforge_torch_py" + suffix)
        if f.is_file():
            spec = importlib.util.spec_from_file_location("opforge_torch_py", str(f))
            if spec is None or spec.loader is None:
                return None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            return module
    return None


def _route_torch_ops(op: "OpInfo") -> None:
    """torch.ops.<namespace>.<op>(...) through the Python entry too: OpOverloadPacket.__call__ calls
    the packet's _op, torch's builtin that matches the arguments against the schemas per call (1.3-1.6x
    torch.relu's own call where the entry is 1.0x). It becomes an entry Op that falls back to that
    builtin for whatever it does not take (tensor subclasses and fake tensors, torch function modes,
    other argument types), and reads the builtin's attributes where it has none. Done when the
    extension loads, before anyone could have hashed the packet (its hash is its _op's). TorchScript
    knows torch.ops' builtins by identity: the Op is registered as the same builtin."""
    if not _extension_has(op):
        return
    packet = getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)
    original = getattr(packet, "_op", None)
    if original is None or isinstance(original, _entry.Op):
        return
    fast = _entry.Op(op.qualname, original)
    if not fast.usable:
        return
    from torch.jit import _builtins

    _builtins._register_builtin(fast, op.qualname)
    packet._op = fast


def entry_path() -> Optional[str]:
    """The Python entry's file when opforge_ops calls the ops through it, else None."""
    return getattr(_entry, "__file__", None)


def try_load_default_library() -> None:
    if os.environ.get("OPFORGE_TORCH_NO_EXTENSION"):
        return
    for p in default_library_paths():
        if p.is_file():
            load_library(str(p))
            return


def extension_path() -> Optional[str]:
    return _extension


def _extension_has(op: OpInfo) -> bool:
    return _extension is not None and hasattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)


def backend(op: OpInfo) -> str:
    """'extension' when the compiled kernels run, 'reference' when the PyTorch reference does, else 'none'."""
    if _extension_has(op):
        return "extension"
    return "reference" if op.reference is not None else "none"


def _no_impl(op: OpInfo) -> Callable[..., Any]:
    def run(*_args: Any) -> Any:
        raise NotImplementedError(
            f"{op.name}: the compiled extension is not loaded and the spec names no kernels.reference; "
            "build out/torch (see out/torch/README.md) or call opforge_ops.load_library(path)")
    return run


def eager_impl(op: OpInfo) -> Optional[Callable[..., Any]]:
    """What runs the op on real tensors: the extension's op, else the reference, else None."""
    if _extension_has(op):
        return getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)
    return op.reference


def ensure_registered(op: OpInfo) -> None:
    """torch >= 2.4: makes torch.ops.opforge.<op> exist (from the extension, else a custom_op over
    the reference) and gives it a fake (meta) implementation, so torch.export, torch.compile and
    the dynamo ONNX exporter trace it as one node with symbolic shapes."""
    # No `in _faked` test here: torch.compile may trace this twice (a restart) and the two passes
    # must take the same path, so the check lives in _register, which dynamo does not trace.
    if HAS_CUSTOM_OP:
        _register(op.qualname)


def _assume_constant_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    compiler = getattr(torch, "compiler", None)
    return compiler.assume_constant_result(fn) if hasattr(compiler, "assume_constant_result") else fn


@_assume_constant_result
def _register(qualname: str) -> bool:
    """Registers on the first call. Under torch.compile, dynamo runs this at trace time instead of
    tracing it (it cannot trace the lock or torch.library calls), so an op first called inside a
    compiled region still compiles with fullgraph=True."""
    if qualname in _faked:
        return True
    op = _registry[qualname]
    with _lock:
        if qualname in _faked:
            return True
        from_python = not _extension_has(op)
        if from_python:
            impl = op.reference if op.reference is not None else _no_impl(op)
            torch.library.custom_op(op.qualname, impl, mutates_args=(), schema=op.torch_schema)
            _python_defined.add(op.qualname)

        def fake(*args: Any, **kwargs: Any) -> Any:
            n = len(op.inputs)
            attrs = {a.name: a.default for a in op.attributes}
            attrs.update(zip((a.name for a in op.attributes), args[n:]))
            attrs.update(kwargs)
            return empty_outputs(op, list(args[:n]), attrs)

        torch.library.register_fake(op.qualname)(fake)
        if from_python:
            # The extension registers its own Autograd kernels in C++ (a Python one would cost
            # every call, gradient or not, ~10 us).
            _register_autograd(op)
        _faked.add(op.qualname)
    # The extension's backward calls the gradient ops through the dispatcher, not through this
    # module: they need their fake implementations before torch.compile traces a backward.
    for g in op.backward or ():
        _register(f"{TORCH_NAMESPACE}::{g.op}")
    return True


def torch_op(op: OpInfo) -> Any:
    """The OpOverloadPacket torch.ops.opforge.<op> (registering it first)."""
    ensure_registered(op)
    return getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)


# ---- ONNX export on any torch ------------------------------------------------------------

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


# ---- gradients (the spec's `backward`) --------------------------------------------------

def no_backward_message(op: OpInfo) -> str:
    return (f"{op.name}: a gradient was requested through {op.onnx_op}, but its spec ({op.spec or op.snake + '.yaml'}) "
            "declares no `backward`: add one (docs/spec.md, \"backward\"), or mark the inputs `differentiable: false` "
            "if the op is constant in them")


def _as_tuple(x: Any) -> Tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def input_gradients(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], outputs: Sequence[torch.Tensor],
                    grad_outputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any],
                    needs: Sequence[bool]) -> List[Optional[torch.Tensor]]:
    """The gradient of each input (None where not needed or not differentiable), by running the
    spec's gradient ops through opforge_ops (so the compiled extension runs them when loaded)."""
    n = len(op.inputs)
    wanted = [bool(needs[i]) and op.inputs[i].differentiable for i in range(n)]
    grads: List[Optional[torch.Tensor]] = [None] * n
    if not any(wanted):
        return grads
    if op.backward is None:
        raise RuntimeError(no_backward_message(op))
    # Gradients autograd did not materialize (unused outputs) are zeros, as the gradient ops expect tensors.
    gouts = [torch.zeros_like(o) if g is None else g.contiguous() for g, o in zip(grad_outputs, outputs)]
    for g in op.backward:
        if not any(i is not None and wanted[i] for i in g.outputs):
            continue
        gop = _registry[f"{TORCH_NAMESPACE}::{g.op}"]
        args = [None if s is None else (inputs[s[1]] if s[0] == "input" else outputs[s[1]] if s[0] == "output" else gouts[s[1]])
                for s in g.inputs]
        gattrs = {a.name: attrs[f] for a, f in zip(gop.attributes, g.attributes) if f is not None}
        res = _as_tuple(call(gop, args, gattrs))
        for j, i in enumerate(g.outputs):
            if i is not None and wanted[i]:
                grads[i] = res[j]
    return grads


def _save_for_backward(ctx: Any, op: OpInfo, inputs: Sequence[Any], outs: Tuple[Any, ...], attrs: Dict[str, Any]) -> None:
    """What a backward needs, saved the same way by both autograd paths below."""
    ctx.opforge_attrs = attrs
    ctx.opforge_absent = [x is None for x in inputs]
    ctx.save_for_backward(*[x for x in inputs if x is not None], *outs)
    ctx.mark_non_differentiable(*[o for o, info in zip(outs, op.outputs) if not info.differentiable])


def _saved_gradients(ctx: Any, op: OpInfo, grads: Sequence[Any]) -> List[Optional[torch.Tensor]]:
    """The input gradients from what _save_for_backward kept."""
    saved = list(ctx.saved_tensors)
    split = len(saved) - len(op.outputs)
    it = iter(saved[:split])
    inputs = [None if absent else next(it) for absent in ctx.opforge_absent]
    return input_gradients(op, inputs, saved[split:], grads, ctx.opforge_attrs, ctx.needs_input_grad[:len(op.inputs)])


def _register_autograd(op: OpInfo) -> None:
    """torch >= 2.4: the op's backward for torch.library (eager, torch.compile, opcheck)."""
    n = len(op.inputs)
    names = [a.name for a in op.attributes]

    def setup_context(ctx: Any, inputs: Tuple[Any, ...], output: Any, keyword_only_inputs: Optional[Dict[str, Any]] = None) -> None:
        attrs = dict(zip(names, inputs[n:]))
        attrs.update(keyword_only_inputs or {})
        _save_for_backward(ctx, op, inputs[:n], _as_tuple(output), attrs)

    def backward(ctx: Any, *grads: Any) -> Any:
        return tuple(_saved_gradients(ctx, op, grads))

    torch.library.register_autograd(op.qualname, backward, setup_context=setup_context)


def training_function(op: OpInfo) -> type:
    """torch < 2.4 (no torch.library.register_autograd): an autograd.Function around the op."""
    fn = _trainers.get(op.qualname)
    if fn is not None:
        return fn
    n = len(op.inputs)
    names = [a.name for a in op.attributes]

    def forward(ctx: Any, *args: Any) -> Any:
        impl = eager_impl(op)
        attrs = dict(zip(names, args[n:]))
        out = (impl if impl is not None else _no_impl(op))(*args[:n], **attrs)
        _save_for_backward(ctx, op, args[:n], _as_tuple(out), attrs)
        return out

    def backward(ctx: Any, *grads: Any) -> Any:
        return (*_saved_gradients(ctx, op, grads), *([None] * len(names)))

    fn = _trainers[op.qualname] = type(f"{op.name}Training", (torch.autograd.Function,), {
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
        "__doc__": f"{op.onnx_op} with the spec's backward (torch < 2.4).",
    })
    return fn


_trainers: Dict[str, type] = {}


# ---- calling an op ---------------------------------------------------------------------

_functions: Dict[str, type] = {}


def legacy_function(op: OpInfo) -> type:
    fn = _functions.get(op.qualname)
    if fn is None:
        fn = _functions[op.qualname] = make_function(op)
    return fn


# ---- the direct path: generated functions call the compiled op itself ------------------------
# The extension's op core checks inputs, dtypes, ranks and attribute values itself, so on success
# the Python checks would only repeat them; on failure they run (`checked`), so the error is still
# the wrapper's own message. Each generated function reads its op's slot, tests what only Python
# can see (attribute *types*: the dispatcher would take True for a float; torch.compile; tracing)
# inline, and calls the slot's callable, which trains through the extension's C++ Autograd kernel
# on any torch version: the work per op is done once, at its first call through `call`.

_filled: Set[str] = set()
_slots: Dict[str, List[Any]] = {}
_SEQUENCES = (list, tuple)

#: torch.compile traces the checked path: the dynamo-only test where there is one (a plain
#: `return False` in eager), torch.compiler's otherwise; torch < 2.0 has no compiler, and
#: bool() is a C call that returns False.
compiling: Callable[[], bool] = (getattr(getattr(torch, "compiler", None), "is_dynamo_compiling", None)
                                 or getattr(getattr(torch, "compiler", None), "is_compiling", None) or bool)
#: What torch.jit.is_tracing() reads (the legacy exporter traces, through the checked path).
tracing: Callable[[], bool] = getattr(torch._C, "_is_tracing", None) or (lambda: torch._C._get_tracing_state() is not None)


def direct_slot(op: OpInfo) -> List[Any]:
    """The one-element list a generated function calls through: the compiled op's C++ entry once
    the extension has the op (filled at the op's first call), else None."""
    slot = _slots.get(op.qualname)
    if slot is None:
        slot = _slots[op.qualname] = [None]
    return slot


def is_ints(v: Any) -> bool:
    return type(v) in _SEQUENCES and all(type(x) is int for x in v)


def is_floats(v: Any) -> bool:
    return type(v) in _SEQUENCES and all(type(x) is float or type(x) is int for x in v)


def _fill_slot(op: OpInfo) -> None:
    """Once per op (again after load_library): the direct callable when the extension has the op."""
    if _extension_has(op):
        ensure_registered(op)  # torch >= 2.4: its fake and autograd registrations first
        overload = getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake).default
        # OpOverload.__call__ is a Python frame around _op: call _op itself, or the Python entry's
        # Op, which falls back to _op for whatever it does not take.
        target = getattr(overload, "_op", overload)
        direct_slot(op)[0] = _entry.Op(op.qualname, target) if _entry is not None else target
    _filled.add(op.qualname)


def call(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> Any:
    """The checked path: every call the generated direct test turns away (and each op's first)."""
    if op.qualname not in _filled:
        _fill_slot(op)
    return _call_checked(op, inputs, attrs)


def checked(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> Dict[str, Any]:
    """The wrapper's checks (its own messages); the attribute values with defaults filled in."""
    values = check_attrs(op, attrs)
    check_inputs(op, inputs)
    check_device(op, inputs)
    return values


def _call_checked(op: OpInfo, inputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any]) -> Any:
    values = checked(op, inputs, attrs)
    if torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        # The legacy (TorchScript) exporter: the autograd.Function's symbolic emits the node.
        return legacy_function(op).apply(*inputs, *(values[a.name] for a in op.attributes))
    if HAS_CUSTOM_OP:
        return torch_op(op)(*inputs, **values)
    if torch.is_grad_enabled() and any(x is not None and x.requires_grad for x in inputs):
        # Training on torch < 2.4: the spec's backward through an autograd.Function.
        return training_function(op).apply(*inputs, *(values[a.name] for a in op.attributes))
    impl = eager_impl(op)
    if impl is None:
        return _no_impl(op)()
    return impl(*inputs, **values)


def make_function(op: OpInfo) -> type:
    """The torch.autograd.Function the legacy exporter turns into one `domain::Name` node."""
    n = len(op.inputs)

    def forward(ctx: Any, *args: Any) -> Any:
        impl = eager_impl(op)
        if impl is not None and not torch.onnx.is_in_onnx_export():
            return impl(*args[:n], **dict(zip((a.name for a in op.attributes), args[n:])))
        # Exporting needs only shapes and dtypes: no kernel runs (or needs to exist) to export a model.
        return empty_outputs(op, list(args[:n]), dict(zip((a.name for a in op.attributes), args[n:])), zeros=True)

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
    n = len(op.inputs)
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
    outs = g.op(op.onnx_op, *onnx_inputs, outputs=len(op.outputs), **kwargs)
    outs_t = outs if isinstance(outs, (tuple, list)) else (outs,)
    shapes = op.output_shapes([None if v is None else _value_dims(v) for v in args[:n]], attrs)
    for o, value, shape in zip(op.outputs, outs_t, shapes):
        if o.dtype_from is None:
            dt: Optional[torch.dtype] = TORCH_DTYPES[o.dtypes[0]]
        else:
            src = args[o.dtype_from]
            dt = _value_dtype(src) if src is not None else None
        if dt is None:
            continue
        t = torch._C.TensorType.create_from_tensor(torch.empty(0, dtype=dt))
        if shape is not None:
            t = t.with_sizes([d if isinstance(d, int) else None for d in shape])
        value.setType(t)
    return outs


# ---- ONNX: schema, inference, translation -------------------------------------------------

def onnx_infer_types(op: OpInfo, elem_types: Sequence[Optional[int]], shapes: Sequence[Optional[Sequence[Any]]],
                     attrs: Dict[str, Any]) -> List[Tuple[Optional[int], Optional[List[Any]]]]:
    """(elem_type, dims) per output from input elem types and dims (int, dim_param str or None)."""
    out_shapes = op.output_shapes(shapes, attrs)
    result = []
    for o, shape in zip(op.outputs, out_shapes):
        elem = ONNX_ELEM[o.dtypes[0]] if o.dtype_from is None else elem_types[o.dtype_from]
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


def _infer_in_context(op: OpInfo, ctx: Any) -> None:
    elems, shapes = [], []
    for i in range(len(op.inputs)):
        tp = ctx.get_input_type(i) if i < ctx.get_num_inputs() else None
        e, s = _type_dims(tp)
        elems.append(e)
        shapes.append(s)
    attrs = _onnx_attr_values(op, ctx.get_attribute)
    for i, (elem, dims) in enumerate(onnx_infer_types(op, elems, shapes, attrs)):
        ctx.set_output_type(i, _make_type(elem, dims))


def onnx_schema(op: OpInfo) -> Any:
    """The onnx.defs.OpSchema of the op (onnx >= 1.16), with a type-and-shape inference function."""
    import onnx
    from onnx.defs import OpSchema

    def param(name: str, type_str: str, optional: bool = False) -> Any:
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
    schema = OpSchema(
        op.name, op.domain, op.version, op.doc,
        inputs=[param(i.name, type_str(i.dtypes, i.type_var), i.optional) for i in op.inputs],
        outputs=[param(o.name, type_str(o.dtypes, o.type_var)) for o in op.outputs],
        type_constraints=[(name, [ONNX_TYPE_STR[d] for d in dts], "") for name, dts in op.type_vars],
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
            for i in range(len(op.inputs)):
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
