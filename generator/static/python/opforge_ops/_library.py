"""The compiled extension: finding and loading it (and its Python entry, {{entry}}), routing
torch.ops through that entry, and what runs an op - the extension's kernels or the spec's
reference."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import torch

from ._spec import TORCH_NAMESPACE, OpInfo, _registry


def _torch_version() -> Tuple[int, int]:
    m = re.match(r"(\d+)\.(\d+)", torch.__version__)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


TORCH_VERSION = _torch_version()
#: torch.library.custom_op / register_fake exist from torch 2.4; older torch has only the legacy exporter.
HAS_CUSTOM_OP = TORCH_VERSION >= (2, 4) and hasattr(torch.library, "custom_op")

_lock = threading.Lock()
_extension: Optional[str] = None
#: The extension's Python entry ({{entry}}, beside the library when it was built): its Op
#: calls a compiled op the way torch's own bindings do, instead of torch.ops' per-call matching.
_entry: Any = None
_python_defined: set = set()
_faked: set = set()
#: The direct path's per-op cache (see _runtime.py): emptied when the extension loads, as ops
#: called before then ran the reference.
_filled: Set[str] = set()
_slots: Dict[str, List[Any]] = {}


def default_library_paths() -> List[Path]:
    here = Path(__file__).resolve().parent
    env = os.environ.get("{{libraryEnv}}")
    paths = [Path(env)] if env else []
    # Installed from a wheel (opforge package): the library beside the package.
    paths.append(here / "{{library}}")
    # out/python/{{package}} -> build/torch next to out/ (where the docs and `opforge test` build
    # it), then out/torch/build (a build inside out/torch).
    paths.append(here.parent.parent.parent / "build" / "torch" / "{{library}}")
    paths.append(here.parent.parent / "torch" / "build" / "{{library}}")
    return paths


def _base_version(v: str) -> str:
    return v.split("+", 1)[0]


def check_built_against() -> None:
    """A wheel's library works only under the torch it was built against (its C++ ABI changes
    between releases: another torch gives an undefined symbol, or worse, a library that runs
    wrong). The wheel records that torch in _build_info.py; out/python has none (it loads what
    was built beside it, in the same environment)."""
    try:
        from . import _build_info  # type: ignore[attr-defined]
    except ImportError:
        return
    try:
        import importlib.metadata

        version = importlib.metadata.version("{{package}}")
    except Exception:  # not installed as a distribution (a copied folder)
        version = "(no version)"
    built, running = _build_info.TORCH_VERSION, torch.__version__
    if _base_version(built) != _base_version(running):
        raise ImportError(
            f"{{package}} {version} was built against torch {built}, but torch {running} is running: "
            f"install torch=={_base_version(built)}, or build the wheel again under this torch (opforge package)")
    if _build_info.WITH_CUDA:
        running_cuda = torch.version.cuda or ""
        if not running_cuda:
            raise ImportError(
                f"{{package}} {version} holds CUDA kernels (built against torch {built}, CUDA {_build_info.TORCH_CUDA}), "
                f"but torch {running} has no CUDA: install a CUDA build of torch {_base_version(built)}, or a CPU wheel of {{package}}")
        if running_cuda.split(".")[0] != _build_info.TORCH_CUDA.split(".")[0]:
            raise ImportError(
                f"{{package}} {version} was built against CUDA {_build_info.TORCH_CUDA} (torch {built}), "
                f"but torch {running} runs CUDA {running_cuda}: the CUDA major versions differ")


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
                        f"{{package}}: {sorted(_python_defined)} were already registered from Python (reference); "
                        "load the extension before calling any op")
                if p.resolve().parent == Path(__file__).resolve().parent:
                    check_built_against()
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
        raise FileNotFoundError("{{package}}: no compiled extension at " + ", ".join(str(p) for p in candidates))


def _load_entry(directory: Path) -> Any:
    """{{entry}} from the library's directory, for this Python (its file name carries the
    ABI tag); None when it was not built or $OPFORGE_TORCH_NO_ENTRY is set."""
    if os.environ.get("OPFORGE_TORCH_NO_ENTRY"):
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        f = directory / ("{{entry}}" + suffix)
        if f.is_file():
            spec = importlib.util.spec_from_file_location("{{entry}}", str(f))
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
    """The Python entry's file when {{package}} calls the ops through it, else None."""
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
            "build out/torch (see out/torch/README.md) or call {{package}}.load_library(path)")
    return run


def eager_impl(op: OpInfo) -> Optional[Callable[..., Any]]:
    """What runs the op on real tensors, with every output of the schema: the extension's op, else
    the reference, else None."""
    if _extension_has(op):
        return getattr(getattr(torch.ops, TORCH_NAMESPACE), op.snake)
    return reference_impl(op)


def call_attrs(op: OpInfo, args: Sequence[Any], kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """Every attribute of a call through the operator's schema (inputs, then attributes
    positionally or by name): the given values over the spec's defaults."""
    attrs = {a.name: a.default for a in op.attributes}
    attrs.update(zip((a.name for a in op.attributes), args[len(op.inputs):]))
    attrs.update(kwargs)
    return attrs


def reference_impl(op: OpInfo) -> Optional[Callable[..., Any]]:
    """The reference as the operator: it returns the present outputs, the schema every output."""
    ref = op.reference
    if ref is None or all(o.present is None for o in op.outputs):
        return ref
    from ._shapes import full_outputs

    def run(*args: Any, **kwargs: Any) -> Any:
        tensors = op.tensors(args[:len(op.inputs)])
        return full_outputs(op, ref(*args, **kwargs), tensors, call_attrs(op, args, kwargs))
    return run
