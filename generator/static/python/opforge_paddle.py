"""Loads the opforge Paddle custom-op library built with CMake (out/paddle/CMakeLists.txt against the
paddlepaddle wheel or a paddle_inference library) into Python:

    import opforge_paddle
    ops = opforge_paddle.load("build/paddle/libopforge_paddle_ops.so")
    y = ops.custom_relu(x, 0.5)       # dygraph, to_static and static graphs, as paddle.utils.cpp_extension.load gives

Each op is a function named by its Paddle op type, taking its inputs and then every attribute in the
spec's order (Paddle's custom ops have no attribute defaults). Ops that fail a check raise ValueError
naming the op.

Paddle registers the ops with `load_op_meta_info_and_register_op` and writes their Python API with
the generator paddle.utils.cpp_extension.load uses (a private function of Paddle's, present from
Paddle 2.x to 3.x); a Paddle without it gets a clear error here instead of a missing attribute.
"""

from __future__ import annotations

import os
import tempfile
import types

__all__ = ["load"]

_loaded: dict[str, types.ModuleType] = {}


def load(library: str, name: str = "opforge_paddle_ops", build_directory: str | None = None) -> types.ModuleType:
    """Registers the custom ops of `library` with Paddle (once per path) and returns a module with one
    function per op. `build_directory` receives the generated Python API (default: a temporary one)."""
    path = os.path.abspath(library)
    if path in _loaded:
        return _loaded[path]
    if not os.path.isfile(path):
        raise FileNotFoundError(f"opforge_paddle.load: no library at {path} (build out/paddle with CMake: cmake -S out -B build -DWITH_PADDLE=ON)")
    from paddle.utils.cpp_extension import load_op_meta_info_and_register_op

    try:
        from paddle.utils.cpp_extension.extension_utils import _generate_python_module
    except ImportError as e:  # pragma: no cover - a Paddle outside the supported window
        raise ImportError("opforge_paddle.load: this Paddle has no paddle.utils.cpp_extension.extension_utils._generate_python_module; "
                          "load the ops with paddle.utils.cpp_extension.load (the JIT loader) instead") from e
    ops = load_op_meta_info_and_register_op(path)
    if not ops:
        raise ValueError(f"opforge_paddle.load: {path} registers no custom op")
    module = _generate_python_module(name, ops, build_directory or tempfile.mkdtemp(prefix="opforge_paddle_"))
    _loaded[path] = module
    return module
