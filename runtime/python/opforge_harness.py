"""What every Python side of `opforge test` shares (opforge_test.py for torch, opforge_paddle_test.py
for Paddle, and any other harness): the case files Node writes and reads back, the generated
opforge_ops package (for its OpInfo and the spec's references), and the reference's gradients.

The case files: <cases>/<snake>/<k>.json per case (inputs as raw little-endian bytes, each named by
{"file", "dtype", "dims"}); a harness writes each output it computes the same way, and Node
compares every file with the baseline.

Gradients: a harness computes its backend's input gradients for the upstream gradients
`cotangents` gives, then checks them with `compare_gradients` against `reference_gradients`
(torch.autograd of the spec's reference in float64) - one definition of the expected values for
every backend.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import torch

DTYPES = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
          "int8": torch.int8, "uint8": torch.uint8, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}
NAMES = {v: k for k, v in DTYPES.items()}


def import_package(python_dir: str, name: Optional[str] = None) -> Any:
    """The generated PyTorch package `name` (opforge_ops, or the project's namespace; None: the one
    package `python_dir` holds) from `python_dir`, importing no compiled extension by itself (the
    torch side then loads exactly its --library; the other sides run only the references)."""
    sys.path.insert(0, python_dir)
    os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"
    return importlib.import_module(name or package_in(python_dir))


def package_in(python_dir: str) -> str:
    """The one generated package in `python_dir` (out/python holds only the project's)."""
    found = sorted(n for n in os.listdir(python_dir)
                   if os.path.isfile(os.path.join(python_dir, n, "_runtime.py")))
    if len(found) != 1:
        raise RuntimeError(f"{python_dir} holds {len(found)} generated packages ({', '.join(found) or 'none'}), not one: "
                           "pass the package's name")
    return found[0]


def read(d: str, f: dict) -> torch.Tensor:
    with open(os.path.join(d, f["file"]), "rb") as fh:
        raw = bytearray(fh.read())
    dtype = DTYPES[f["dtype"]]
    if not raw:
        return torch.empty(f["dims"], dtype=dtype)
    store = torch.int16 if dtype == torch.bfloat16 else dtype
    t = torch.frombuffer(raw, dtype=store).reshape(f["dims"]).clone()
    return t.view(torch.bfloat16) if dtype == torch.bfloat16 else t


def write(d: str, name: str, t: torch.Tensor) -> dict:
    t = t.detach().cpu().contiguous()
    raw = t.view(torch.int16) if t.dtype == torch.bfloat16 else t
    with open(os.path.join(d, name), "wb") as fh:
        fh.write(raw.numpy().tobytes())
    return {"dtype": NAMES[t.dtype], "dims": list(t.shape), "file": name}


def read_inputs(d: str, doc: dict) -> List[Any]:
    """A case's inputs in the op's order (None for an absent optional input; a variadic input: the
    list of its members)."""
    return [None if f is None else [read(d, m) for m in f] if isinstance(f, list) else read(d, f)
            for f in doc["inputs"].values()]


def case_docs(cases_dir: str, ops: Sequence[Any]) -> Iterator[Tuple[Any, str, dict]]:
    """(op, its case directory, the case document) for every case file of the given ops, in op
    and case order."""
    by_snake = {op.snake: op for op in ops}
    for snake in sorted(os.listdir(cases_dir)):
        op = by_snake.get(snake)
        d = os.path.join(cases_dir, snake)
        if op is None or not os.path.isdir(d):
            continue
        for name in sorted((f for f in os.listdir(d) if f.endswith(".json")), key=lambda f: int(f.split(".")[0])):
            with open(os.path.join(d, name), encoding="utf-8") as fh:
                yield op, d, json.load(fh)


def as_tuple(x):
    """What a function or reference returned, one value per output: a variadic output's list as
    its members, each in its place."""
    xs = x if isinstance(x, (tuple, list)) else (x,)
    return tuple(m for v in xs for m in (v if isinstance(v, (tuple, list)) else (v,)))


def error(e: BaseException) -> dict:
    msg = str(e).strip().split("\n")
    return {"error": f"{type(e).__name__}: {' | '.join(m for m in msg[:4] if m)}"[:1500]}


def each(x: Any, f: Callable[[torch.Tensor], Any]) -> Any:
    """f of an input: None stays None, a variadic input's list is f of each member."""
    return None if x is None else [f(m) for m in x] if isinstance(x, list) else f(x)


def tensor_names(op, inputs: Sequence[Any]) -> List[str]:
    """The graph input names of an exported case: each present input's, and for a variadic input's
    members `name.m` (spec names are identifiers: no dot), in the node's order."""
    names: List[str] = []
    for info, x in zip(op.inputs, inputs):
        if isinstance(x, list):
            names.extend(f"{info.name}.{m}" for m in range(len(x)))
        elif x is not None:
            names.append(info.name)
    return names


def grad_inputs(op, inputs: Sequence[Optional[torch.Tensor]]) -> List[int]:
    """The inputs that take a gradient in this case: declared differentiable and, in the case's
    binding, a float tensor (an integer binding of a mixed type variable never takes one)."""
    return [i for i, (info, t) in enumerate(zip(op.inputs, inputs))
            if t is not None and info.differentiable and t.is_floating_point()]


def cotangents(outputs: Sequence[Tuple[Sequence[int], torch.dtype]], seed: int) -> List[torch.Tensor]:
    """The upstream gradients of a case for the given outputs ((dims, dtype) each), uniform in
    [-1, 1) from the case's seed: rounded to each output's dtype (as the backend sees them) and held
    in float64 (as the reference gets them)."""
    gen = torch.Generator().manual_seed(seed + 7)
    ups = [torch.rand(list(dims), generator=gen, dtype=torch.float64) * 2 - 1 for dims, _ in outputs]
    return [u.to(dtype).double() for u, (_, dtype) in zip(ups, outputs)]


def reference_gradients(op, inputs: Sequence[Optional[torch.Tensor]], attrs: Dict[str, Any],
                        cotangents: Dict[int, torch.Tensor]) -> Dict[int, Optional[torch.Tensor]]:
    """The reference's input gradients for one case: torch.autograd of the spec's reference in
    float64 (every float input converted), given the upstream gradient (float64) of each output
    index in `cotangents`. Per input index of grad_inputs(op, inputs): its gradient, or None where
    no output reaches it (the inputs themselves are left untouched)."""
    diff = grad_inputs(op, inputs)
    if not diff:
        return {}
    xr = [each(t, lambda x, i=i: (x.double() if x.is_floating_point() else x).detach().clone().requires_grad_(i in diff))
          for i, t in enumerate(inputs)]
    ref = as_tuple(op.reference(*xr, **attrs))
    live = [k for k in cotangents if ref[k].requires_grad]  # e.g. an empty input reaches no output
    want = (torch.autograd.grad([ref[k] for k in live], [xr[i] for i in diff], [cotangents[k] for k in live], allow_unused=True)
            if live else [None] * len(diff))
    return dict(zip(diff, want))


def compare_gradients(op, got: Dict[int, Optional[torch.Tensor]], want: Dict[int, Optional[torch.Tensor]],
                      rtol: float, atol: float) -> float:
    """A backend's input gradients (torch tensors in their own dtype, any device) against the
    reference's, per input index of `want`; the largest absolute error. No gradient and an all-zero
    one are the same gradient. The case's tolerance is the forward output's; the gradient has the
    input's dtype, so its rounding (2 ulp, relative to the largest gradient) is allowed too.
    Raises AssertionError naming the input and the first element out of tolerance."""
    worst = 0.0
    for i, w in want.items():
        g = got.get(i)
        name = op.inputs[i].name
        if g is None or w is None:
            if (g is None) != (w is None) and not (w is not None and not w.any()) and not (g is not None and not g.any()):
                raise AssertionError(f"gradient of {name}: {'none' if g is None else 'given'}, the reference's {'none' if w is None else 'given'}")
            continue
        g64 = g.detach().double().cpu()
        if tuple(g64.shape) != tuple(w.shape):
            raise AssertionError(f"gradient of {name} has dims {list(g64.shape)}, the reference's {list(w.shape)}")
        eps = torch.finfo(g.dtype).eps if g.dtype.is_floating_point else 0.0
        case_rtol = max(rtol, 2 * eps)
        case_atol = max(atol, 2 * eps * float(w.abs().max()) if w.numel() else 0.0)
        err = (g64 - w).abs()
        worst = max(worst, float(err.max()) if err.numel() else 0.0)
        bad = err > case_atol + case_rtol * w.abs()
        if bool(bad.any()):
            j = int(bad.flatten().nonzero()[0])
            raise AssertionError(f"gradient of {name}[{j}] = {g64.flatten()[j].item()}, autograd of the reference gives "
                                 f"{w.flatten()[j].item()} (rtol {case_rtol:.3g}, atol {case_atol:.3g})")
    return worst
