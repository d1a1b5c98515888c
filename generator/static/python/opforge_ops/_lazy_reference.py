"""The specs' references, each imported at its first call rather than with the package: a
reference may import what this Python lacks (torchvision, say), and that must break its own op
alone, with an error naming the op and the module, never `import` of the package."""

from __future__ import annotations

import importlib
import threading
from typing import Any, Callable, List

_lock = threading.Lock()


def lazy_reference(package: str, snake: str, op: str, source: str) -> Callable[..., Any]:
    """A function that imports `.._reference.<snake>` (relative to `package`, the op module's) on
    its first call and calls its `reference`. An import that fails raises, at every call, an error
    naming the op, its reference file (`source`) and the module it could not import."""
    loaded: List[Callable[..., Any]] = []

    def reference(*args: Any, **kwargs: Any) -> Any:
        if not loaded:
            with _lock:
                if not loaded:
                    loaded.append(_import(package, snake, op, source))
        return loaded[0](*args, **kwargs)

    reference.__name__ = reference.__qualname__ = f"{snake}_reference"
    reference.__doc__ = f"The reference of {op} ({source}), imported at its first call."
    return reference


def _import(package: str, snake: str, op: str, source: str) -> Callable[..., Any]:
    try:
        module = importlib.import_module(f".._reference.{snake}", package)
    except ModuleNotFoundError as e:
        raise ModuleNotFoundError(
            f"{op}: its reference ({source}) imports the module `{e.name}`, which is not installed "
            f"in this Python: {e}", name=e.name) from e
    except Exception as e:  # noqa: BLE001 - whatever the reference raises on import, named
        raise ImportError(f"{op}: its reference ({source}) failed to import: {type(e).__name__}: {e}") from e
    return module.reference
