"""torch >= 2.4 (the GPU machine): the spec's backward through torch.library — opcheck with its
autograd tests on every op with a backward, and a training step compiled with
torch.compile(fullgraph=True) against the same step in eager mode.

    PYTHONPATH=out/python python3 test/python/grad_compile_check.py [--library LIB] [--device cpu|cuda]

One line per check, a JSON summary last; exit 1 on any failure.
"""
import argparse
import json
import os
import sys

import torch

ok = 0
failed = 0


def check(name, cond, detail=""):
    global ok, failed
    ok, failed = (ok + 1, failed) if cond else (ok, failed + 1)
    print(f"{'ok  ' if cond else 'FAIL'} {name}{': ' + detail if detail else ''}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"
    import opforge_ops as oo
    if args.library:
        oo.load_library(args.library)
    dev = args.device
    print(f"torch {torch.__version__}, backend {oo.backend('LeakyRelu')}, device {dev}")
    gen = torch.Generator().manual_seed(0)

    def rand(*shape, dtype=torch.float32):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1).to(dtype).to(dev)

    samples = {
        "CustomRelu": ((rand(3, 7, dtype=torch.float64),), {"alpha": 0.25}),
        "LeakyRelu": ((rand(4, 5, dtype=torch.float64),), {"alpha": 0.1}),
        "MyAdd": ((rand(2, 6, dtype=torch.float64), rand(2, 6, dtype=torch.float64)), {}),
        # size_tensor is shape-only (not differentiable): only the image takes a gradient.
        "DynamicTRTResize": ((rand(1, 2, 5, 6, dtype=torch.float64), rand(1, 1, 9, 7, dtype=torch.float64)), {"align_corners": True}),
    }
    differentiable = {"DynamicTRTResize": (0,)}
    from opforge_ops import _runtime as rt
    for snake, (xs, kw) in samples.items():
        opdef = rt.torch_op(oo.OPS[snake]).default  # registers it (and its autograd) first
        for requires_grad in (True, False):
            inputs = tuple(x.clone().requires_grad_(requires_grad and k in differentiable.get(snake, range(len(xs)))) for k, x in enumerate(xs))
            try:
                torch.library.opcheck(opdef, inputs, kw)
                check(f"opcheck {snake} (requires_grad={requires_grad}, autograd tests included)", True)
            except Exception as e:  # noqa: BLE001
                check(f"opcheck {snake} (requires_grad={requires_grad})", False, str(e)[:2000])

    # A training step compiled with fullgraph=True equals eager, step for step.
    def make():
        torch.manual_seed(0)
        return torch.nn.Linear(8, 16).to(dev), torch.nn.Linear(16, 1).to(dev)

    data = torch.randn(32, 8, generator=gen).to(dev)
    target = torch.randn(32, 1, generator=gen).to(dev)

    def loss_fn(l1, l2, x, y):
        h = oo.leaky_relu(l1(x), alpha=0.1)
        h = oo.custom_relu(oo.my_add(h, h), alpha=0.05)
        return torch.nn.functional.mse_loss(l2(h), y)

    # The compiled graph covers forward and (AOTAutograd) backward through the ops' register_autograd.
    eager = make()
    compiled = make()
    closs = torch.compile(loss_fn, fullgraph=True)
    try:
        le = loss_fn(*eager, data, target)
        le.backward()
        lc = closs(*compiled, data, target)
        lc.backward()
        params = lambda m: [p for l in m for p in l.parameters()]  # noqa: E731
        worst = max(float((a.grad - b.grad).abs().max()) for a, b in zip(params(eager), params(compiled)))
        check("torch.compile(fullgraph=True) training step (forward + backward) = eager", abs(float(le) - float(lc)) < 1e-5 and worst < 1e-5,
              f"loss {float(le):.6f} vs {float(lc):.6f}, max grad diff {worst:.3g}")
        opt = torch.optim.SGD(params(compiled), lr=0.05)
        first = float(lc)
        for _ in range(10):
            opt.zero_grad()
            loss = closs(*compiled, data, target)
            loss.backward()
            opt.step()
        check("10 compiled SGD steps lower the loss", float(loss) < first, f"{first:.5f} -> {float(loss):.5f}")
    except Exception as e:  # noqa: BLE001
        check("torch.compile(fullgraph=True) training step", False, str(e)[:3000])
    print(json.dumps({"ok": ok, "failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
