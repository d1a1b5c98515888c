"""opforge_paddle.load's checked functions under hostile calls (test/paddle-run.test.ts): in dygraph,
in a PIR static graph and in static training, each wrong argument raises TypeError or ValueError
naming the op and the argument (Paddle itself would abort or crash the process on most of them);
valid calls give the right values with defaults, keywords and positional attributes; load leaves
no temporary folder; the functions work under to_static and jit.save.

Usage: python paddle_checked_calls.py OUT_PADDLE_DIR LIBRARY
Prints `ok <label> | <message>` per check and `BAD <label> ...` for a failed one; `done <n>` last.
"""

import glob
import os
import sys
import tempfile

import numpy as np
import paddle
import torch

sys.path.insert(0, sys.argv[1])
import opforge_paddle  # noqa: E402

pattern = os.path.join(tempfile.gettempdir(), "opforge_paddle_*")
before = set(glob.glob(pattern))
ops = opforge_paddle.load(sys.argv[2])
assert opforge_paddle.load(sys.argv[2]) is ops  # once per library
checks = 0


def report(ok, label, text):
    global checks
    checks += 1
    print(("ok " if ok else "BAD ") + label + " | " + text)


left = sorted(set(glob.glob(pattern)) - before)
report(not left, "no temporary folder", repr(left))


def expect(label, f, kind, *words):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        msg = str(e).replace("\n", " ")
        report(type(e).__name__ == kind and all(w in msg for w in words), label, f"{type(e).__name__}: {msg[:400]}")
        return
    report(False, label, "no error")


def static(build, feed=None, run=True):
    """Builds a PIR program with build() (it returns the values to fetch) and runs it."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            outs = build()
        if run:
            exe = paddle.static.Executor(paddle.CPUPlace())
            exe.run(startup)
            return exe.run(main, feed=feed or {}, fetch_list=list(outs))
        return None
    finally:
        paddle.disable_static()


mode = "dygraph"
names = iter(range(10**6))


def t(shape=(2, 3), dtype="float32", grad=False):
    """A tensor of the current mode: a dygraph Tensor of ones, or a static data Value."""
    if mode == "dygraph":
        x = paddle.ones(list(shape), dtype)
    else:
        x = paddle.static.data(f"v{next(names)}", list(shape), dtype)
    x.stop_gradient = not grad
    return x


x2 = np.array([[-2.0, -1.0, 0.0], [1.0, 2.0, 3.0]], "float32")
HOSTILE = [
    ("str attribute", lambda: ops.custom_relu(t(), "0.5"), "TypeError", "CustomRelu: attribute 'alpha' must be a float, got str"),
    ("huge int for a float", lambda: ops.custom_relu(t(), 10**400), "ValueError", "CustomRelu: attribute 'alpha'", "float32"),
    ("nan attribute", lambda: ops.custom_relu(t(), float("nan")), "ValueError", "CustomRelu: attribute 'alpha' must be finite"),
    ("unknown keyword", lambda: ops.custom_relu(t(), beta=1.0), "TypeError", "custom_relu()", "'beta'"),
    ("numpy input", lambda: ops.custom_relu(x2), "TypeError", "CustomRelu: input 'x' must be a", "got numpy.ndarray"),
    ("torch input", lambda: ops.custom_relu(torch.ones(2)), "TypeError", "CustomRelu: input 'x' must be a", "got torch.Tensor"),
    ("float input", lambda: ops.custom_relu(1.5), "TypeError", "CustomRelu: input 'x' must be a", "got builtins.float"),
    ("list input", lambda: ops.custom_relu([1.0]), "TypeError", "CustomRelu: input 'x' must be a", "got builtins.list"),
    ("None input", lambda: ops.custom_relu(None), "TypeError", "CustomRelu: input 'x' is required", "got None"),
    ("wrong dtype", lambda: ops.custom_relu(t(dtype="int32")), "TypeError", "CustomRelu: input 'x' has dtype int32"),
    ("type variable", lambda: ops.my_add(t(), t(dtype="float64")), "TypeError", "MyAdd: inputs 'a' and 'b' share type"),
    ("int for a bool", lambda: ops.dynamic_trt_resize(t((1, 1, 2, 2)), t((1, 1, 4, 4)), 1), "TypeError",
     "DynamicTRTResize: attribute 'align_corners' must be a bool, got int"),
    ("np.int64 for a bool", lambda: ops.dynamic_trt_resize(t((1, 1, 2, 2)), t((1, 1, 4, 4)), np.int64(1)), "TypeError",
     "DynamicTRTResize: attribute 'align_corners' must be a bool"),
    ("wrong rank", lambda: ops.dynamic_trt_resize(t(), t((1, 1, 4, 4)), True), "ValueError",
     "DynamicTRTResize: input 'input' must have rank 4, got 2"),
    ("nsample 2**31", lambda: ops.knn_query(t((4, 3)), t((1,), "int32"), t((4, 3)), t((1,), "int32"), 2**31), "ValueError",
     "KNNQuery: attribute 'nsample' must be within int32"),
    ("nsample 2**63", lambda: ops.knn_query(t((4, 3)), t((1,), "int32"), t((4, 3)), t((1,), "int32"), 2**63), "ValueError",
     "KNNQuery: attribute 'nsample' must be within int32"),
    ("nsample -1", lambda: ops.knn_query(t((4, 3)), t((1,), "int32"), t((4, 3)), t((1,), "int32"), -1), "ValueError",
     "KNNQuery: attribute 'nsample' must be >= 1"),
    ("constrained dim", lambda: ops.knn_query(t((4, 2)), t((1,), "int32"), t((4, 3)), t((1,), "int32"), 2), "ValueError",
     "KNNQuery: dim 1 of input 'xyz' must equal 3, got 2"),
    ("shaped like", lambda: ops.knn_query(t((4, 3)), t((1,), "int32"), t((4, 3)), t((2,), "int32"), 2), "ValueError",
     "KNNQuery: input 'new_offset' must have the shape of 'offset'"),
    ("required attribute", lambda: ops.knn_query(t((4, 3)), t((1,), "int32"), t((4, 3)), t((1,), "int32")), "TypeError",
     "knn_query()", "'nsample'"),
]

for label, f, kind, *words in HOSTILE:
    expect(f"dygraph {label}", f, kind, *words)
mode = "static"
for label, f, kind, *words in HOSTILE:
    expect(f"static {label}", lambda: static(lambda: [f()], run=False), kind, *words)
xd = paddle.to_tensor(x2)
expect("static dygraph tensor", lambda: static(lambda: [ops.custom_relu(xd)], run=False), "TypeError",
       "CustomRelu: input 'x' must be a paddle.pir.Value in a PIR static graph, got paddle.Tensor")
expect("static rank-0 training", lambda: static(lambda: [ops.custom_relu(t((), grad=True))], run=False), "ValueError",
       "CustomRelu: input 'x' has rank 0 and takes a gradient")
mode = "dygraph"
expect("dygraph static value", lambda: ops.custom_relu(paddle.pir.Value()), "TypeError",
       "CustomRelu: input 'x' must be a paddle.Tensor in dygraph, got paddle.base.libpaddle.pir.Value")


def same(label, got, want):
    report(np.array_equal(np.asarray(got), np.asarray(want)), label, repr(np.asarray(got).tolist()))


xd = paddle.to_tensor(x2)
relu = lambda a: np.where(x2 > 0, x2, a * x2)  # noqa: E731
same("default attribute", ops.custom_relu(xd).numpy(), relu(0.0))
same("keyword attribute", ops.custom_relu(xd, alpha=0.5).numpy(), relu(0.5))
same("positional attribute", ops.custom_relu(xd, 0.5).numpy(), relu(0.5))
same("numpy scalar attribute", ops.custom_relu(xd, np.float32(0.5)).numpy(), relu(0.5))
same("keyword input", ops.custom_relu(x=xd, alpha=0.25).numpy(), relu(0.25))
mode = "static"
y, = static(lambda: [ops.custom_relu(paddle.static.data("x", [-1, 3], "float32"), alpha=0.25)], feed={"x": x2})
same("static graph, unknown dim", y, relu(0.25))
r0, = static(lambda: [ops.custom_relu(paddle.static.data("x", [], "float32"), alpha=0.25)], feed={"x": np.array(-4.0, "float32")})
same("static rank-0 inference", r0, np.array(-1.0, "float32"))


def train():
    x = paddle.static.data("x", [2, 3], "float32")
    x.stop_gradient = False
    y = ops.custom_relu(x, 0.25)
    g, = paddle.static.gradients([y], [x])
    return [y, g]


y, g = static(train, feed={"x": x2})
same("static training forward", y, relu(0.25))
same("static training gradient", g, np.where(x2 > 0, 1.0, 0.25).astype("float32"))
mode = "dygraph"


class Layer(paddle.nn.Layer):
    def forward(self, x):
        return ops.custom_relu(x, alpha=0.5)


layer = paddle.jit.to_static(Layer(), input_spec=[paddle.static.InputSpec([-1, 3], "float32", "x")], full_graph=True)
same("to_static", layer(xd).numpy(), relu(0.5))
saved = tempfile.mkdtemp()
paddle.jit.save(layer, os.path.join(saved, "model"))
same("jit.save and jit.load", paddle.jit.load(os.path.join(saved, "model"))(xd).numpy(), relu(0.5))
print("done", checks)
