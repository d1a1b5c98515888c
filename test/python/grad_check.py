"""Training through the seed ops (the spec's `backward`): their gradients against PyTorch's own ops,
gradcheck in float64, what happens without a backward, and a few optimizer steps of a small model.

    PYTHONPATH=out/python python3 test/python/grad_check.py [--library build/torch/libopforge_torch.so] [--device cpu|cuda]

Prints one line per check and a JSON summary last; exit 1 on any failure.
"""
import argparse
import json
import sys

import torch
import torch.nn.functional as F

ok = 0
failed = 0


def check(name, cond, detail=""):
    global ok, failed
    if cond:
        ok += 1
    else:
        failed += 1
    print(f"{'ok  ' if cond else 'FAIL'} {name}{': ' + detail if detail else ''}")


def grads(fn, *xs):
    xs = [x.detach().clone().requires_grad_(True) for x in xs]
    out = fn(*xs)
    g = torch.linspace(-1, 1, out.numel(), dtype=out.dtype, device=out.device).reshape(out.shape)
    return torch.autograd.grad(out, xs, g)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library")
    ap.add_argument("--device", default="cpu")
    args = ap.parse_args()
    import os
    os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"
    import opforge_ops as oo
    if args.library:
        oo.load_library(args.library)
    dev = args.device
    print(f"torch {torch.__version__}, backend {oo.backend('CustomRelu')}, device {dev}")
    gen = torch.Generator().manual_seed(0)

    def rand(*shape, dtype=torch.float32):
        return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1).to(dtype).to(dev)

    # float attributes are float32 (ONNX's, and the op core's): alpha = 0.2 is 0.2000000030 in the
    # compiled kernels, so float64 gradients differ from torch's by ~1e-8 relative.
    for dtype, tol in ((torch.float32, 1e-6), (torch.float64, 1e-7)):
        x = rand(4, 33, dtype=dtype)
        a, b = rand(3, 7, dtype=dtype), rand(3, 7, dtype=dtype)
        pairs = [
            ("CustomRelu (alpha 0) vs torch.relu", lambda t: oo.custom_relu(t), lambda t: torch.relu(t), (x,)),
            ("CustomRelu (alpha 0.2) vs F.leaky_relu", lambda t: oo.custom_relu(t, alpha=0.2), lambda t: F.leaky_relu(t, 0.2), (x,)),
            ("LeakyRelu vs F.leaky_relu", lambda t: oo.leaky_relu(t, alpha=0.3), lambda t: F.leaky_relu(t, 0.3), (x,)),
            ("MyAdd vs torch.add(2a, b)", lambda p, q: oo.my_add(p, q), lambda p, q: torch.add(2 * p, q), (a, b)),
        ]
        for name, ours, theirs, xs in pairs:
            g1, g2 = grads(ours, *xs), grads(theirs, *xs)
            worst = max(float((u - v).abs().max()) for u, v in zip(g1, g2))
            check(f"{name} ({str(dtype)[6:]})", worst <= tol, f"max |ours - torch| = {worst:.3g}")

    # gradcheck in float64 through the package (the extension when loaded).
    d = torch.float64
    x = rand(5, 6, dtype=d).requires_grad_(True)
    y = rand(5, 6, dtype=d).requires_grad_(True)
    check("gradcheck CustomRelu", torch.autograd.gradcheck(lambda t: oo.custom_relu(t, alpha=-0.5), (x,)))
    check("gradcheck LeakyRelu", torch.autograd.gradcheck(lambda t: oo.leaky_relu(t, alpha=0.1), (x,)))
    check("gradcheck MyAdd", torch.autograd.gradcheck(lambda p, q: oo.my_add(p, q), (x, y)))

    # DynamicTRTResize: bicubic's gradient = F.interpolate's (PyTorch's upsample_bicubic2d_backward).
    for align in (False, True):
        for dtype, tol in ((torch.float32, 1e-5), (torch.float64, 1e-12)):
            img = rand(2, 3, 6, 7, dtype=dtype)
            size = torch.empty(1, 1, 11, 5, device=dev, dtype=dtype)
            g1 = grads(lambda t: oo.dynamic_trt_resize(t, size, align_corners=align), img)[0]
            g2 = grads(lambda t: F.interpolate(t, size=(11, 5), mode="bicubic", align_corners=align), img)[0]
            worst = float((g1 - g2).abs().max())
            check(f"DynamicTRTResize vs F.interpolate(bicubic, align_corners={align}) ({str(dtype)[6:]})", worst <= tol, f"max |ours - torch| = {worst:.3g}")
    img = rand(1, 2, 5, 4, dtype=d).requires_grad_(True)
    size = torch.empty(1, 1, 9, 7, device=dev, dtype=d)
    check("gradcheck DynamicTRTResize", torch.autograd.gradcheck(lambda t: oo.dynamic_trt_resize(t, size), (img,)))

    # KNNQuery is declared non-differentiable: its outputs do not require grad, even from points that do.
    pts = torch.rand(12, 3, generator=gen).to(dev).requires_grad_(True)
    off = torch.tensor([12], dtype=torch.int32, device=dev)
    idx, dist2 = oo.knn_query(pts, off, pts, off, nsample=3)
    check("KNNQuery outputs need no gradient", not idx.requires_grad and not dist2.requires_grad)

    # A few optimizer steps of a small model through the custom ops: the loss goes down.
    torch.manual_seed(0)
    lin1, lin2 = torch.nn.Linear(8, 16).to(dev), torch.nn.Linear(16, 1).to(dev)
    opt = torch.optim.SGD(list(lin1.parameters()) + list(lin2.parameters()), lr=0.1)
    data = torch.randn(64, 8, generator=gen).to(dev)
    target = (data[:, :1] > 0).float()
    losses = []
    for _ in range(20):
        h = oo.leaky_relu(lin1(data), alpha=0.1)
        pred = lin2(oo.my_add(h, h))[:, :1]
        loss = F.mse_loss(pred, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss))
    check("20 SGD steps through LeakyRelu and MyAdd lower the loss", losses[-1] < 0.7 * losses[0], f"{losses[0]:.4f} -> {losses[-1]:.4f}")
    print(json.dumps({"ok": ok, "failed": failed}))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
