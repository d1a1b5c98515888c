"""The JAX side of `opforge test` (runtime/testing/backends/jax/index.ts): runs the case files Node wrote
through the generated opforge_jax package (out/jax) and the library CMake built from it.

For every case (<cases>/<snake>/<k>.json):
  - jax: the op under jax.jit with only the case's attributes (the package fills in the defaults):
    <k>.jax.<output>.bin, compared by Node with the baseline like every backend; on each op's first
    case, the same call under jax.vmap (a batch of two copies of the inputs) must give the jit
    outputs within the case's tolerance ("vmap": true in the report);
  - jax-grad: jax.vjp through the op's custom_vjp (the spec's backward, gradient ops as custom calls
    too) against torch.autograd of the spec's reference in float64, within the case's tolerance;
    an op without `backward` must raise its named error when differentiated.
Prints one JSON document: the environment and per case what was written, checked or the error.

Usage: python opforge_jax_test.py --cases DIR --package OUT/jax --library SO [--grad] [--device cpu|cuda]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import traceback

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opforge_harness import (  # noqa: E402  (the case files and reference gradients every side shares)
    as_tuple, compare_gradients, cotangents, error, grad_inputs, import_package, package_in, read_inputs, reference_gradients,
    write)

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)  # the specs' float64/int64 cases
import jax.numpy as jnp  # noqa: E402

TORCH = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16, "float64": torch.float64,
         "int8": torch.int8, "uint8": torch.uint8, "int32": torch.int32, "int64": torch.int64, "bool": torch.bool}


def to_jax(t: torch.Tensor, device) -> jax.Array:
    """A torch tensor as a JAX array, bit for bit (bfloat16 through float32, which holds it exactly)."""
    if t.dtype == torch.bfloat16:
        return jax.device_put(jnp.asarray(t.float().numpy()).astype(jnp.bfloat16), device)
    return jax.device_put(jnp.asarray(t.numpy()), device)


def to_torch(a) -> torch.Tensor:
    a = jax.device_get(a)
    if a.dtype == jnp.bfloat16:
        return torch.from_numpy(np.asarray(a, dtype=np.float32)).to(torch.bfloat16)
    return torch.from_numpy(np.array(a))  # np.array copies (and keeps a 0-D array 0-D)


def run_jit(fn, xs, given):
    f = jax.jit(lambda *a: fn(*a, **given))
    return as_tuple(f(*xs))


def check_vmap(fn, xs, given, outs, rtol: float, atol: float) -> None:
    """The op under jax.vmap over a batch of two copies of every present input: each batch element
    equal to the jit call's outputs within the case's tolerance (not bit for bit: a CUDA kernel
    that accumulates with atomics, like DynamicTRTResizeGrad's scatter, rounds in a different
    order on every run)."""
    present = [i for i, x in enumerate(xs) if x is not None]

    def one(*ps):
        args = list(xs)
        for i, p in zip(present, ps):
            args[i] = p
        return as_tuple(fn(*args, **given))

    # A variadic input's members (a list) are batched each.
    batched = jax.jit(jax.vmap(one))(*[jax.tree_util.tree_map(lambda a: jnp.stack([a, a]), xs[i]) for i in present])
    for k, (b, o) in enumerate(zip(batched, outs)):
        for j in range(2):
            got, want = np.asarray(jax.device_get(b[j])), np.asarray(jax.device_get(o))
            if got.shape != want.shape or not np.allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol, equal_nan=True):
                raise AssertionError(f"under jax.vmap, batch element {j} of output {k} differs from the jit call")


def unpadded(op, outs):
    """The outputs at their actual dims: an op with dims the kernel decides returns its outputs
    padded to the bounds, then those dims' values; each output naming one is the leading part of
    its padding (written contiguously), and the rest must be zeros."""
    if not op.num_data_dims:
        return outs
    values = [int(v) for v in outs[len(outs) - op.num_data_dims:]]
    exact = []
    for o, t in zip(op.outputs, outs[:len(outs) - op.num_data_dims]):
        if o.data_dims:
            dims = list(t.shape)
            for axis, d in o.data_dims:
                dims[axis] = values[d]
            flat = np.asarray(jax.device_get(t)).reshape(-1)
            n = int(np.prod(dims))
            if np.any(flat[n:] != 0):
                raise AssertionError(f"output {o.name}: the padding past the kernel's {dims} is not all zeros")
            t = jnp.asarray(flat[:n].reshape(dims))
        exact.append(t)
    return tuple(exact)


def check_no_backward(op, fn, xs, given) -> dict:
    diff = [i for i, (info, x) in enumerate(zip(op.inputs, xs)) if x is not None and info.differentiable and jnp.issubdtype(x.dtype, jnp.floating)]
    if not diff:
        return {"skip": "no input takes a gradient with this case's dtypes"}
    outs = as_tuple(fn(*xs, **given))
    carried = [k for k, (info, o) in enumerate(zip(op.outputs, outs)) if info.differentiable and jnp.issubdtype(o.dtype, jnp.floating)]
    if not carried:
        return {"skip": "no output carries a gradient with this case's dtypes"}

    def loss(*d):
        args = list(xs)
        for i, v in zip(diff, d):
            args[i] = v
        o = as_tuple(fn(*args, **given))
        return sum(o[k].astype(jnp.float32).sum() for k in carried)

    try:
        jax.grad(loss, argnums=tuple(range(len(diff))))(*[xs[i] for i in diff])
    except RuntimeError as e:
        if f"{op.name}: a gradient was requested through" not in str(e):
            raise AssertionError(f"differentiating raised another error than the op's no-backward one: {str(e)[:300]}") from e
        return {"maxError": 0.0, "noBackward": True}
    raise AssertionError("a gradient through the op was computed, but its spec declares no backward")


def check_grad(ref, fn, inputs, xs, given, attrs, doc) -> dict:
    """jax.vjp through the op (jit) against torch.autograd of the spec's reference in float64, the
    upstream gradients and the comparison shared with the other sides (opforge_harness)."""
    diff = grad_inputs(ref, inputs)
    if not diff:
        return {"skip": "no input takes a gradient with this case's dtypes"}
    outs = as_tuple(fn(*xs, **given))
    carry = [k for k, (o, info) in enumerate(zip(outs, ref.outputs)) if info.differentiable and jnp.issubdtype(o.dtype, jnp.floating) and o.size > 0]
    if not carry:
        return {"skip": "no output carries a gradient with this case's dtypes"}
    ups = cotangents([(tuple(outs[k].shape), TORCH[jnp.dtype(outs[k].dtype).name]) for k in carry], doc.get("seed", 0))

    def f(*d):
        args = list(xs)
        for i, v in zip(diff, d):
            args[i] = v
        o = as_tuple(fn(*args, **given))
        return tuple(o[k] for k in carry)

    dev = list(xs[diff[0]].devices())[0]
    _, vjp = jax.vjp(f, *[xs[i] for i in diff])
    got = jax.jit(vjp)(tuple(to_jax(u.to(TORCH[jnp.dtype(outs[k].dtype).name]), dev) for u, k in zip(ups, carry)))
    if ref.reference is None:
        return {"skip": "the spec has no reference to hold the gradients to"}
    want = reference_gradients(ref, inputs, attrs, dict(zip(carry, ups)))
    return {"maxError": compare_gradients(ref, {i: to_torch(g) for i, g in zip(diff, got)}, want, doc["rtol"], doc["atol"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--package", required=True)
    ap.add_argument("--python-package", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--grad", action="store_true")
    ap.add_argument("--device", default="cpu")
    # The packages' names (the project's namespace; default: the one package in each folder).
    ap.add_argument("--package-name")
    ap.add_argument("--python-package-name")
    args = ap.parse_args(argv)
    sys.path.insert(0, args.package)
    import jaxlib

    oj = importlib.import_module(args.package_name or package_in(args.package))
    oo = import_package(args.python_package, args.python_package_name)  # the references only: this process runs the JAX library

    info = oj.load_library(args.library)
    device = jax.devices("cpu" if args.device == "cpu" else "gpu")[0]
    env = {"jax": jax.__version__, "jaxlib": jaxlib.__version__, "library": info, "device": str(device)}
    refs = {name: oo.OPS.get(name) for name in oj.OPS}
    by_snake = {op.snake: op for op in oj.OPS.values()}
    cases = []
    for snake in sorted(os.listdir(args.cases)):
        op = by_snake.get(snake)
        d = os.path.join(args.cases, snake)
        if op is None or not os.path.isdir(d):
            continue
        fn = getattr(oj, snake)
        ref = refs.get(op.name)
        names = sorted((f for f in os.listdir(d) if f.endswith(".json")), key=lambda f: int(f.split(".")[0]))
        first = int(names[0].split(".")[0]) if names else None
        for name in names:
            with open(os.path.join(d, name), encoding="utf-8") as fh:
                doc = json.load(fh)
            k = doc["index"]
            res = {"op": op.name, "case": k}
            cases.append(res)
            inputs = read_inputs(d, doc)
            given = doc["given"]
            # A variadic input: the list of its members.
            xs = [None if t is None else [to_jax(m, device) for m in t] if isinstance(t, list) else to_jax(t, device) for t in inputs]
            try:
                raw = run_jit(fn, xs, given)
                outs = unpadded(op, raw)
                res["jax"] = {o.name: write(d, f"{k}.jax.{o.name}.bin", to_torch(t)) for o, t in zip(op.outputs, outs)}
                try:
                    # jax.vmap on the op's first case: a sequential vmap compiles a loop (about 0.2 s a
                    # case, most of this harness's time if every case did it); the batching rule is per op.
                    if k == first:
                        check_vmap(fn, xs, given, raw, doc["rtol"], doc["atol"])
                        res["vmap"] = True
                except Exception as e:  # noqa: BLE001
                    traceback.print_exc(file=sys.stderr)
                    res["jax"] = error(e)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc(file=sys.stderr)
                res["jax"] = error(e)
            if not args.grad:
                continue
            try:
                if op.backward is None:
                    res["jax-grad"] = check_no_backward(op, fn, xs, given)
                else:
                    res["jax-grad"] = check_grad(ref, fn, inputs, xs, given, doc["attributes"], doc)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc(file=sys.stderr)
                res["jax-grad"] = error(e)
    print(json.dumps({"env": env, "cases": cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
