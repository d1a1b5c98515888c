"""A mixed float/integer type variable on the gradient paths (test/fixtures/mixed-grad): a parameter
feeding an op, as in a model. Without `backward` the gradient request raises the op's named error
(never a silent zero through the op); with one, the float binding trains and the integer binding runs.
Prints one JSON line: {"ok": n, "failed": n, "backend": ...}."""
import json
import sys

import torch
import opforge_ops as oo

if len(sys.argv) > 1:
    oo.load_library(sys.argv[1])

ok = failed = 0


def check(name, cond, detail=""):
    global ok, failed
    if cond:
        ok += 1
    else:
        failed += 1
        print(f"FAIL {name}: {detail}", file=sys.stderr)


x = torch.arange(4, dtype=torch.float32)
z = torch.ones(4)

# No backward: y = op(x * w) + z * w. The op's path must not silently contribute zero to w.grad.
w = torch.tensor(2.0, requires_grad=True)
y = oo.mix_scale(x * w)
check("no-backward output is in the graph", y.requires_grad and y.grad_fn is not None, f"requires_grad={y.requires_grad}")
try:
    (y + z * w).sum().backward()
    check("no-backward raises", False, f"no error; w.grad = {w.grad}")
except RuntimeError as e:
    check("no-backward raises the named error", "MixScale: a gradient was requested through custom::MixScale" in str(e), str(e)[:300])
# Inference is unchanged, and the integer binding never asks for a gradient.
with torch.no_grad():
    check("no-backward inference", torch.equal(oo.mix_scale(x * w), x * 4))
yi = oo.mix_scale(torch.arange(3, dtype=torch.int32))
check("int binding value", torch.equal(yi, torch.tensor([0, 2, 4], dtype=torch.int32)), str(yi))
check("int binding has no graph", not yi.requires_grad)

# A backward over the float binding: d/dw sum(3 (x w) + 1 + z w) = 3 sum(x) + sum(z).
w = torch.tensor(2.0, requires_grad=True)
y = oo.mix_affine(x * w) + z * w
y.sum().backward()
want = 3 * float(x.sum()) + float(z.sum())
check("backward through the float binding", w.grad is not None and abs(float(w.grad) - want) < 1e-5, f"w.grad = {w.grad}, want {want}")
xi = torch.arange(3, dtype=torch.int32)
yi = oo.mix_affine(xi)
check("int binding of a trained op", torch.equal(yi, torch.tensor([1, 4, 7], dtype=torch.int32)) and not yi.requires_grad, str(yi))
xd = torch.rand(5, dtype=torch.float32, requires_grad=True)
(g,) = torch.autograd.grad(oo.mix_affine(xd).sum(), [xd])
check("gradient values", torch.allclose(g, torch.full((5,), 3.0)), str(g))

print(json.dumps({"ok": ok, "failed": failed, "backend": oo.backend("MixAffine"), "torch": torch.__version__}))
