"""Shared runtime of the generated {{package}} package: what the generated modules call.

Every generated op module describes its op with an OpInfo (facts from the spec) and an
output_shapes function (compiled from the spec's shape expressions); everything else lives once
in the modules beside this one, so the ops cannot drift apart:

    _spec.py      the OpInfo model and the registry of ops
    _shapes.py    the dim helpers of the shape functions; outputs of the inferred shapes
    _checks.py    attribute, input and device checks and their messages
    _library.py   finding and loading the compiled extension; what runs an op
    _lazy_reference.py  each spec's reference, imported at its first call
    _register.py  torch.library registration (custom_op, fake kernels) for torch >= 2.4
    _autograd.py  gradients from the spec's `backward`, on any torch
    _export.py    torch.onnx.export options; the legacy exporter's autograd.Function and symbolic
    _onnx.py      the ONNX OpSchema and its inference, onnxscript helpers, the ONNX shape pass
    _api.py       the package's functions over every op (export options, schemas, backend())

This module holds the call path itself (the checked call and the direct slot) and re-exports
what the generated code, opforge test and users read as _runtime.<name>: the generated modules
import this one module, whatever moves between the others.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence

import torch

from . import _library
# Re-exported (this module's interface), not all used here.
from ._attrs import INT_MAX, INT_MIN, MAX_LIST, MAX_STRING
from ._autograd import input_gradients, no_backward_message, training_function
from ._checks import check_attrs, check_device, check_inputs, checked, no_cuda_kernel_message
from ._dims import named_error
from ._export import export_options, legacy_function, legacy_symbolic, make_function
from ._lazy_reference import lazy_reference
from ._library import (HAS_CUSTOM_OP, TORCH_VERSION, _extension_has, _filled, _no_impl, _slots, backend,
                       default_library_paths, eager_impl, entry_path, extension_path, load_library,
                       try_load_default_library)
from ._onnx import (infer_model_shapes, onnx_infer_types, onnx_list_attr, onnx_schema, onnxscript_opset,
                    register_onnx_schema)
from ._register import ensure_registered, torch_op
from ._shapes import (add, and_, ceil_div, ceil_scaled, compare, dim, empty_outputs, floor_scaled, floordiv, if_, like, max_,
                      min_, mod, mul, node_outputs, not_, or_, output_dtypes, present_flags, present_outputs, rank, slice_of,
                      splice, sub)
from ._spec import TORCH_NAMESPACE, Attr, Gradient, Input, OpInfo, Output, TestCase, _registry
# The dtype and attribute tables come from generator/model/type-table.ts (the one table every backend
# reads), emitted as _types.py.
from ._types import ATTR_ONNX, DTYPE_OF_JIT, LEGACY_SUFFIX, ONNX_ELEM, ONNX_TYPE_STR, TORCH_DTYPES


# ---- the direct path: generated functions call the compiled op itself ------------------------
# The extension's op core checks inputs, dtypes, ranks and attribute values itself, so on success
# the Python checks would only repeat them; on failure they run (`checked`), so the error is still
# the wrapper's own message. Each generated function reads its op's slot, tests what only Python
# can see (attribute *types*: the dispatcher would take True for a float; torch.compile; tracing)
# inline, and calls the slot's callable, which trains through the extension's C++ Autograd kernel
# on any torch version: the work per op is done once, at its first call through `call`.

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


# The direct tests take only what the op core holds as given (the limits of _attrs.py); anything
# else goes the checked way, whose checks convert it or say what is wrong.

def is_ints(v: Any) -> bool:
    return type(v) in _SEQUENCES and len(v) <= MAX_LIST and all(type(x) is int and INT_MIN <= x <= INT_MAX for x in v)


def is_floats(v: Any) -> bool:
    return type(v) in _SEQUENCES and len(v) <= MAX_LIST and all(type(x) is float or type(x) is int for x in v)


def is_str(v: Any) -> bool:
    return type(v) is str and len(v) <= MAX_STRING and "\0" not in v


def _fill_slot(op: OpInfo) -> None:
    """Once per op (again after load_library): the direct callable when the extension has the op."""
    if _extension_has(op):
        ensure_registered(op)  # torch >= 2.4: its fake and autograd registrations first
        overload = getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake).default
        # OpOverload.__call__ is a Python frame around _op: call _op itself, or the Python entry's
        # Op, which falls back to _op for whatever it does not take.
        target = getattr(overload, "_op", overload)
        entry = _library._entry  # rebound by load_library: read at the call
        direct_slot(op)[0] = entry.Op(op.qualname, target) if entry is not None else target
    _filled.add(op.qualname)


def call(op: OpInfo, inputs: Sequence[Any], attrs: Dict[str, Any]) -> Any:
    """The checked path: every call the generated direct test turns away (and each op's first).
    `inputs` has one entry per input: a tensor, None (absent) or, for a variadic input, a list."""
    # Not while torch.compile traces: dynamo cannot trace making the entry's Op; the op's first
    # eager call fills the slot (registration itself is done by _call_checked, which dynamo can trace).
    if compiling():
        return _call_checked(op, inputs, attrs)
    if op.qualname not in _filled:
        _fill_slot(op)
    try:
        return _call_checked(op, inputs, attrs)
    except Exception as e:
        raise named_error(op, e)


def _call_checked(op: OpInfo, inputs: Sequence[Any], attrs: Dict[str, Any]) -> Any:
    values = checked(op, inputs, attrs)
    # An autograd.Function sees only tensor arguments: it takes a variadic input's members one by one.
    tensors = op.tensors(inputs)
    if torch.jit.is_tracing() and torch.onnx.is_in_onnx_export():
        # The legacy (TorchScript) exporter: the autograd.Function's symbolic emits the node.
        return legacy_function(op).apply(*tensors, *(values[a.name] for a in op.attributes))
    if HAS_CUSTOM_OP:
        return torch_op(op)(*inputs, **values)
    if torch.is_grad_enabled() and any(x is not None and x.requires_grad for x in tensors):
        # Training on torch < 2.4: the spec's backward through an autograd.Function.
        return training_function(op).apply(*tensors, *(values[a.name] for a in op.attributes))
    impl = eager_impl(op)
    if impl is None:
        return _no_impl(op)()
    return impl(*inputs, **values)
