"""The package's functions over every op: the export options and tables, ONNX schemas and shape
inference, what runs an op. The generated __init__.py re-exports them; they read its registry
(OPS, and _TRANSLATIONS: each op's onnxscript translation) when called."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

from ._export import export_options as _export_options
from ._library import HAS_CUSTOM_OP
from ._library import backend as _backend
from ._onnx import infer_model_shapes, register_onnx_schema
from ._register import torch_op
from ._spec import OpInfo


def _ops() -> Dict[str, OpInfo]:
    from . import OPS  # the generated package's registry, complete once the package is imported

    return OPS


def custom_opsets() -> Dict[str, int]:
    """The custom_opsets argument of torch.onnx.export(dynamo=False): each domain's opset version
    (the highest among its ops: ONNX imports a domain once)."""
    opsets: Dict[str, int] = {}
    for op in _ops().values():
        if op.domain:  # the default domain is imported at the export's opset_version
            opsets[op.domain] = max(opsets.get(op.domain, 0), op.version)
    return dict(sorted(opsets.items()))


def register_onnx_schemas() -> None:
    """Registers every op's onnx.defs.OpSchema (with its shape inference) once; idempotent.
    Needs onnx >= 1.16; onnx.checker, ONNX shape inference and onnxscript then know the ops."""
    for op in _ops().values():
        if not register_onnx_schema(op):
            raise RuntimeError("{{package}}.register_onnx_schemas needs onnx >= 1.16 (onnx.defs.register_schema)")


def custom_translation_table() -> Dict[Any, Callable[..., Any]]:
    """The custom_translation_table argument of torch.onnx.export(dynamo=True) (torch >= 2.5)."""
    from . import _TRANSLATIONS

    if not HAS_CUSTOM_OP:
        raise RuntimeError("the dynamo exporter needs torch >= 2.4 (torch.library.custom_op); use dynamo=False")
    register_onnx_schemas()
    ops = _ops()
    return {torch_op(ops[name]).default: fn for name, fn in _TRANSLATIONS.items()}


def export_options(dynamo: Optional[bool] = None) -> Dict[str, Any]:
    """Keyword arguments for torch.onnx.export that write each op as one node, on any torch:
    torch.onnx.export(model, args, f, **{{package}}.export_options()). The dynamo exporter where it
    is torch's default (torch >= 2.9, with onnxscript), else the TorchScript one; dynamo=True or
    False chooses."""
    return _export_options(custom_opsets(), custom_translation_table, dynamo)


def infer_shapes(model: Any) -> Any:
    """ONNX shape inference that also covers opforge nodes (from the specs), on any onnx version."""
    return infer_model_shapes({(op.domain, op.name): op for op in _ops().values()}, model)


def backend(op_name: str) -> str:
    """What runs an op: 'extension', 'reference' or 'none'."""
    return _backend(_ops()[op_name])
