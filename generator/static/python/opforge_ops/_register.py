"""torch.library registration (torch >= 2.4): torch.ops.{{torchNamespace}}.<op> from the extension or as a
custom_op over the reference, with a fake implementation and, for the reference, the spec's
backward, so torch.export, torch.compile and the dynamo exporter trace each op as one node."""

from __future__ import annotations

import sys
from typing import Any, Callable

import torch

from ._autograd import _register_autograd
from ._library import (HAS_CUSTOM_OP, _extension_has, _faked, _lock, _no_impl, _python_defined, call_attrs,
                       reference_impl)
from ._shapes import empty_outputs
from ._spec import TORCH_NAMESPACE, OpInfo, _registry


def ensure_registered(op: OpInfo) -> None:
    """torch >= 2.4: makes torch.ops.{{torchNamespace}}.<op> exist (from the extension, else a custom_op over
    the reference) and gives it a fake (meta) implementation, so torch.export, torch.compile and
    the dynamo ONNX exporter trace it as one node with symbolic shapes."""
    # No `in _faked` test here: torch.compile may trace this twice (a restart) and the two passes
    # must take the same path, so the check lives in _register, which dynamo does not trace.
    if HAS_CUSTOM_OP:
        _register(op.qualname)


def _assume_constant_result(fn: Callable[..., Any]) -> Callable[..., Any]:
    compiler = getattr(torch, "compiler", None)
    if not hasattr(compiler, "assume_constant_result"):
        return fn
    if "torch._dynamo" in sys.modules:
        return compiler.assume_constant_result(fn)
    # torch.compiler.assume_constant_result imports all of dynamo (2.5 s, on every import of this
    # package) to set the one attribute dynamo reads when it meets the function
    # (torch/_dynamo/decorators.py); set here while dynamo is not loaded. test/torch.test.ts checks
    # that the torch under test still marks a function so.
    setattr(fn, "_dynamo_marked_constant", True)
    return fn


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
            impl = reference_impl(op) or _no_impl(op)
            torch.library.custom_op(op.qualname, impl, mutates_args=(), schema=op.torch_schema)
            _python_defined.add(op.qualname)

        def fake(*args: Any, **kwargs: Any) -> Any:
            # A Tensor[] argument comes as a list of fake tensors: the shapes read its members.
            return empty_outputs(op, op.tensors(args[:len(op.inputs)]), call_attrs(op, args, kwargs), dynamic=True)

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
    """The OpOverloadPacket torch.ops.{{torchNamespace}}.<op> (registering it first)."""
    ensure_registered(op)
    return getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)
