"""What `opforge test` needs to know of a Python before it builds anything: the versions of the
packages its columns use, then torch's version, CMake prefix, CUDA availability and the CUDA
architectures torch was built for. Five lines on stdout (the first a JSON document); without
torch, only the first, and the import error on stderr.

Run alone (`python opforge_probe.py`) or imported first by opforge_session.py, so that the
interpreter that answers it goes on to run the PyTorch side.
"""

import importlib.metadata as m
import json
import sys

_versions = {}
for _d in ("onnx", "onnxruntime", "onnxscript", "paddlepaddle", "jax", "jaxlib"):
    try:
        _versions[_d] = m.version(_d)
    except Exception:  # noqa: BLE001  (not installed, or broken metadata: left out either way)
        pass
print(json.dumps({"packages": _versions, "executable": sys.executable}), flush=True)

import torch  # noqa: E402
import torch.utils  # noqa: E402

print(torch.__version__)
print(torch.utils.cmake_prefix_path)
print(torch.cuda.is_available())
print(";".join(sorted({a[3:] for a in torch.cuda.get_arch_list() if a.startswith("sm_")})), flush=True)
