"""opforge_jax on the seed ops, beyond `opforge test`'s columns: jit, vmap (batched and unbatched
arguments), grad through custom_vjp, jax.export (refused without the disabled checks, a serialized
round trip with them), and the errors: wrong dtype and rank (Python's checks and the C++ handler's
own, through the raw custom call), bad attributes, no backward, a library built for another jaxlib.
Prints one line per check; exits nonzero on the first failure.

Usage: python jax_api_check.py OUT/jax LIBRARY FAKE_NEWER_LIBRARY
"""

import sys

sys.path.insert(0, sys.argv[1])
import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import export  # noqa: E402

import opforge_jax as oj  # noqa: E402
from opforge_jax import _runtime as rt  # noqa: E402


def raises(fn, exc, *needles):
    try:
        fn()
    except exc as e:
        for n in needles:
            assert n in str(e), f"{type(e).__name__} without {n!r}: {e}"
        return str(e)
    raise AssertionError(f"no {exc.__name__} (expected one mentioning {needles})")


# A library built for a newer jaxlib than the running one: the clear error, before any handler loads.
msg = raises(lambda: oj.load_library(sys.argv[3]), oj.JaxlibMismatchError, "built against jaxlib 99.0.0", "newer than the running jaxlib", "rebuild it")
print("mismatch:", msg[:120])
assert rt.version_mismatch("0.10.2", (0, 3), "0.10.2", (0, 3)) is None
assert rt.version_mismatch("0.10.2", (0, 3), "0.11.2", (0, 4)) is None  # newer jaxlib, same FFI major: accepted
assert "FFI major versions differ" in rt.version_mismatch("0.10.2", (0, 3), "1.0.0", (1, 0))
assert "newer than the running" in rt.version_mismatch("0.10.2", (0, 4), "0.10.2", (0, 3))

info = oj.load_library(sys.argv[2])
assert info["jaxlib"] == __import__("jaxlib").__version__ and info["ffi_api"] == rt.running_ffi_version(), info
print("loaded:", info["jaxlib"], info["ffi_api"])

x = jnp.linspace(-2, 2, 1000, dtype=jnp.float32)
want = jnp.where(x > 0, x, 0.25 * x)
f = jax.jit(lambda v: oj.custom_relu(v, alpha=0.25))
assert bool((f(x) == want).all())
assert bool((oj.custom_relu(x.astype(jnp.float64), alpha=0.25) == want.astype(jnp.float64)).all())
print("jit: ok")

xs = jnp.stack([x, -x, 2 * x])
assert bool((jax.vmap(lambda v: oj.custom_relu(v, alpha=0.25))(xs) == jnp.where(xs > 0, xs, 0.25 * xs)).all())
a = jnp.arange(12, dtype=jnp.float32).reshape(3, 4) - 5
b = jnp.ones((4,), jnp.float32) * 0.5
# vmap over one argument, the other unbatched (broadcast into each sequential call)
got = jax.vmap(lambda r: oj.my_add(r, b), in_axes=0)(a)
assert got.shape == (3, 4) and bool((got == jax.vmap(lambda r: oj.my_add(r, b))(a)).all())
print("vmap: ok")

g = jax.grad(lambda v: oj.custom_relu(v, alpha=0.25).sum())(x)
assert bool((g == jnp.where(x > 0, 1.0, 0.25)).all()), g
g2 = jax.jit(jax.vmap(jax.grad(lambda v: (oj.custom_relu(v, alpha=0.25) ** 2).sum())))(xs)
assert bool(jnp.allclose(g2, jax.vmap(jax.grad(lambda v: (jnp.where(v > 0, v, 0.25 * v) ** 2).sum()))(xs)))
print("grad: ok")

# An op without `backward`: differentiating raises opforge_ops' message.
raises(lambda: jax.grad(lambda v: oj.custom_relu_grad(v, v).sum())(x), RuntimeError, "CustomReluGrad: a gradient was requested through custom::CustomReluGrad", "declares no `backward`")
print("no backward: ok")

# jax.export: refused without the disabled checks, a serialized round trip with them.
fn = jax.jit(lambda v: oj.custom_relu(v, alpha=0.25) * 2)
spec = jax.ShapeDtypeStruct(x.shape, x.dtype)
raises(lambda: export.export(fn)(spec), ValueError, "custom calls")
checks = oj.export_disabled_checks()
assert len(checks) == len(oj.OPS), checks
blob = export.export(fn, disabled_checks=checks)(spec).serialize()
back = export.deserialize(blob)
assert bool((back.call(x) == want * 2).all())
assert "opforge.custom.CustomRelu" in back.mlir_module()
gexp = export.export(jax.jit(jax.grad(lambda v: oj.custom_relu(v, alpha=0.25).sum())), disabled_checks=oj.export_disabled_checks(["CustomRelu", "CustomReluGrad"]))(spec)
assert bool((export.deserialize(gexp.serialize()).call(x) == jnp.where(x > 0, 1.0, 0.25)).all())
print("export: ok")

# Errors from Python's checks (the messages of opforge_ops)...
raises(lambda: oj.custom_relu(x.astype(jnp.int32)), TypeError, "CustomRelu: input 'x' has dtype int32, expected one of")
raises(lambda: oj.knn_query(jnp.ones((4,), jnp.float32), jnp.array([4], jnp.int32), jnp.ones((2, 3), jnp.float32), jnp.array([2], jnp.int32), nsample=2), ValueError, "KNNQuery: input 'xyz' must have rank 2, got 1")
raises(lambda: oj.custom_relu(x, alpha="a"), TypeError, "CustomRelu: attribute 'alpha' must be a float, got str")
raises(lambda: oj.custom_relu(x, beta=1.0), TypeError, "unexpected keyword argument 'beta'")
raises(lambda: oj.knn_query(jnp.ones((4, 3), jnp.float32), jnp.array([4], jnp.int32), jnp.ones((2, 3), jnp.float32), jnp.array([2], jnp.int32), nsample=0), ValueError, "KNNQuery: attribute 'nsample' must be >= 1")
# ... and from the C++ handler (the op core's checks), calling the custom call directly.
relu = rt._registry["custom_relu"]
raw = lambda v, out: jax.ffi.ffi_call(relu.target, out, vmap_method="sequential")(v, alpha=0.0)  # noqa: E731
raises(lambda: raw(x.astype(jnp.int32), jax.ShapeDtypeStruct(x.shape, jnp.int32)).block_until_ready(), Exception, "CustomRelu: input x has dtype int32; T allows float32, float16, float64")
raises(lambda: raw(x, jax.ShapeDtypeStruct((3,), jnp.float32)).block_until_ready(), Exception, "CustomRelu: output y was declared float32[3], the op core infers float32[1000]")
knn = rt._registry["knn_query"]
raises(lambda: jax.block_until_ready(jax.ffi.ffi_call(knn.target, (jax.ShapeDtypeStruct((2, 2), jnp.int32), jax.ShapeDtypeStruct((2, 2), jnp.float32)))(
    jnp.ones((4,), jnp.float32), jnp.array([4], jnp.int32), jnp.ones((2, 3), jnp.float32), jnp.array([2], jnp.int32), nsample=2)), Exception, "KNNQuery: input xyz")
raises(lambda: jax.block_until_ready(jax.ffi.ffi_call(knn.target, (jax.ShapeDtypeStruct((2, 2000), jnp.int32), jax.ShapeDtypeStruct((2, 2000), jnp.float32)))(
    jnp.ones((4, 3), jnp.float32), jnp.array([4], jnp.int32), jnp.ones((2, 3), jnp.float32), jnp.array([2], jnp.int32), nsample=2000)), Exception, "KNNQuery: attribute nsample must be >= 1 and <= 1024, got 2000")
# An attribute of the wrong width: XLA's decoder refuses it (opforge_jax always passes f64).
raises(lambda: raw(x, jax.ShapeDtypeStruct(x.shape, x.dtype)) if False else jax.ffi.ffi_call(relu.target, jax.ShapeDtypeStruct(x.shape, x.dtype))(x, alpha=np.float32(0)).block_until_ready(), Exception, "F64")
print("errors: ok")
