"""A variadic input through JAX and Paddle against values computed by hand (test/jax.test.ts,
test/paddle-run.test.ts), on the fixture test/fixtures/variadic-grad: MemberMix(bias, shift, xs, *,
weights) with y = bias * (1 + sum of w[m] * xs[m]) + shift, w[m] = m + 1 by default, and firsts[m]
= xs[m][0]. Member m's weight depends on its place, so a reordered, dropped or repeated member
changes y; firsts has one entry per member, in order. Also the errors: too few and too many
members, a tensor where the list belongs, a member of another dtype or shape (named by its index),
and the op core's count check behind the Python one (the raw custom call or Paddle function).

Usage: python variadic_members_check.py jax OUT/jax LIBRARY | paddle OUT/paddle LIBRARY
Prints one line per check ("<name>: ..."); exits non-zero at the first failure.
"""

from __future__ import annotations

import sys

import numpy as np

BIAS = [1.0, 2.0]
SHIFT = [0.5, -0.5]
XS = [[10.0, 20.0], [100.0, 200.0], [1000.0, 2000.0]]
# factor = 1 + 1 * xs[0] + 2 * xs[1] + 3 * xs[2]: [3211, 6421].
FACTOR = [3211.0, 6421.0]
Y = [1.0 * 3211.0 + 0.5, 2.0 * 6421.0 - 0.5]
FIRSTS = [10.0, 100.0, 1000.0]
# With weights [0.5, -1, 2]: 1 + 5 - 100 + 2000 = 1906 and 1 + 10 - 200 + 4000 = 3811.
Y_WEIGHTED = [1.0 * 1906.0 + 0.5, 2.0 * 3811.0 - 0.5]


def expect_error(name: str, kind: type, text: str, fn) -> None:
    try:
        fn()
    except kind as e:
        if text not in str(e):
            raise AssertionError(f"{name}: {kind.__name__} without {text!r}: {str(e)[:400]}") from e
        print(f"{name}: {kind.__name__}: {str(e).splitlines()[0][:200]}")
        return
    raise AssertionError(f"{name}: no {kind.__name__} raised")


def close(got, want) -> bool:
    return np.allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64), rtol=1e-6, atol=1e-6)


def check_jax(package: str, library: str) -> None:
    sys.path.insert(0, package)
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import opforge_jax as oj

    oj.load_library(library)
    bias, shift = jnp.asarray(BIAS), jnp.asarray(SHIFT)
    xs = [jnp.asarray(x) for x in XS]

    y, firsts = jax.jit(lambda b, s, m: oj.member_mix(b, s, m))(bias, shift, xs)
    assert close(y, Y) and close(firsts, FIRSTS) and firsts.shape == (3,), (y, firsts)
    print("jit: y and firsts as computed by hand")
    y, _ = oj.member_mix(bias, shift, tuple(xs), weights=[0.5, -1.0, 2.0])
    assert close(y, Y_WEIGHTED), y
    print("weights: one per member, in order")
    y, firsts = oj.member_mix(bias, shift, xs[::-1])
    assert close(firsts, FIRSTS[::-1]) and not close(y, Y), (y, firsts)
    print("order: reversed members give another y")

    # vmap: every member batched, and a batched member beside unbatched ones.
    batch = [jnp.stack([x, 2 * x]) for x in xs]
    yb, fb = jax.vmap(lambda m: oj.member_mix(bias, shift, m))(batch)
    assert close(yb[0], Y) and close(fb[1], [2 * f for f in FIRSTS]), (yb, fb)
    yb, fb = jax.vmap(lambda x1: oj.member_mix(bias, shift, [xs[0], x1, xs[2]]))(jnp.stack([xs[1], xs[1]]))
    assert close(yb[1], Y) and close(fb[1], FIRSTS), (yb, fb)
    print("vmap: batched members")

    # grad: the other inputs take one (members none): d sum(y) / d bias = factor, / d shift = 1.
    gb, gs = jax.jit(jax.grad(lambda b, s: oj.member_mix(b, s, xs)[0].sum(), argnums=(0, 1)))(bias, shift)
    assert close(gb, FACTOR) and close(gs, [1.0, 1.0]), (gb, gs)
    gm = jax.grad(lambda m: oj.member_mix(bias, shift, m)[0].sum())(xs)
    assert all(close(g, [0.0, 0.0]) for g in gm), gm
    print("grad: bias and shift through MemberMixGrad, zeros for the members")

    expect_error("one member", ValueError, "MemberMix: input 'xs' has 1 members; it takes 2 to 32",
                 lambda: oj.member_mix(bias, shift, xs[:1]))
    expect_error("33 members", ValueError, "has 33 members; it takes 2 to 32", lambda: oj.member_mix(bias, shift, [xs[0]] * 33))
    expect_error("a tensor for the list", TypeError, "input 'xs' is variadic: pass a list of tensors",
                 lambda: oj.member_mix(bias, shift, jnp.stack(xs)))
    expect_error("member dtype", TypeError, "inputs 'bias' and 'xs' (member 2) share type T",
                 lambda: oj.member_mix(bias, shift, [xs[0], xs[1], xs[2].astype(jnp.float32)]))
    expect_error("member shape", ValueError, "input 'xs' (member 1) must have the shape of 'bias'",
                 lambda: oj.member_mix(bias, shift, [xs[0], jnp.zeros(3), xs[2]]))
    expect_error("weights per member", ValueError, "check 'len(weights) == 0 or len(weights) == count(xs)' failed",
                 lambda: oj.member_mix(bias, shift, xs, weights=[1.0, 2.0]))
    # The op core's own count check, behind the package's: the custom call with one member.
    op = oj.OPS["MemberMix"]
    raw = jax.ffi.ffi_call(op.target, (jax.ShapeDtypeStruct((2,), jnp.float64), jax.ShapeDtypeStruct((1,), jnp.float64)))
    expect_error("handler: one member", Exception, "MemberMix: input xs has 1 members; it takes 2 to 32",
                 lambda: jax.block_until_ready(raw(bias, shift, xs[0], weights=np.zeros(0))))


def check_paddle(package: str, library: str) -> None:
    sys.path.insert(0, package)
    import paddle
    import opforge_paddle

    ops = opforge_paddle.load(library)
    t = lambda v, grad=False: paddle.to_tensor(np.asarray(v, "float64"), stop_gradient=not grad)  # noqa: E731
    bias, shift = t(BIAS, True), t(SHIFT, True)
    xs = [t(x) for x in XS]

    y, firsts = ops.member_mix(bias, shift, xs)
    assert close(y.numpy(), Y) and close(firsts.numpy(), FIRSTS) and list(firsts.shape) == [3], (y, firsts)
    print("dygraph: y and firsts as computed by hand")
    y, _ = ops.member_mix(bias, shift, tuple(xs), [0.5, -1.0, 2.0])
    assert close(y.numpy(), Y_WEIGHTED), y
    print("weights: one per member, in order")
    y, firsts = ops.member_mix(bias, shift, xs[::-1])
    assert close(firsts.numpy(), FIRSTS[::-1]) and not close(y.numpy(), Y), (y, firsts)
    print("order: reversed members give another y")

    y, _ = ops.member_mix(bias, shift, xs)
    gb, gs = paddle.grad([y], [bias, shift], [t([1.0, 1.0])])
    assert close(gb.numpy(), FACTOR) and close(gs.numpy(), [1.0, 1.0]), (gb, gs)
    print("paddle.grad: bias and shift through MemberMixGrad")

    # A PIR static training graph: the members are graph inputs of their own, passed as a list.
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            b = paddle.static.data("bias", [2], "float64")
            s = paddle.static.data("shift", [2], "float64")
            b.stop_gradient = s.stop_gradient = False
            ms = [paddle.static.data(f"x{m}", [2], "float64") for m in range(3)]
            ys, fs = ops.member_mix(b, s, ms)
            assert list(fs.shape) == [3], fs.shape  # InferShape: count(xs)
            gb, gs = paddle.static.gradients([ys], [b, s])
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        feed = {"bias": np.asarray(BIAS), "shift": np.asarray(SHIFT), **{f"x{m}": np.asarray(x) for m, x in enumerate(XS)}}
        yv, fv, gbv, gsv = exe.run(main, feed=feed, fetch_list=[ys, fs, gb, gs])
        assert close(yv, Y) and close(fv, FIRSTS) and close(gbv, FACTOR) and close(gsv, [1.0, 1.0]), (yv, fv, gbv, gsv)
        print("static: forward and gradients in a PIR graph")
    finally:
        paddle.disable_static()

    expect_error("one member", ValueError, "MemberMix: input 'xs' has 1 members; it takes 2 to 32",
                 lambda: ops.member_mix(bias, shift, xs[:1]))
    expect_error("a tensor for the list", TypeError, "input 'xs' is variadic: pass a list of tensors",
                 lambda: ops.member_mix(bias, shift, xs[0]))
    expect_error("member dtype", TypeError, "inputs 'bias' and 'xs' (member 2) share type T",
                 lambda: ops.member_mix(bias, shift, [xs[0], xs[1], xs[2].astype("float32")]))
    expect_error("member shape", ValueError, "input 'xs' (member 1) must have the shape of 'bias'",
                 lambda: ops.member_mix(bias, shift, [xs[0], t([1.0, 2.0, 3.0]), xs[2]]))
    # The op core's own count check, behind the package's: Paddle's raw function with one member.
    expect_error("kernel: one member", ValueError, "MemberMix: input xs has 1 members; it takes 2 to 32",
                 lambda: ops.raw.member_mix(bias, shift, xs[:1], []))


def main() -> int:
    backend, package, library = sys.argv[1:4]
    {"jax": check_jax, "paddle": check_paddle}[backend](package, library)
    print("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
