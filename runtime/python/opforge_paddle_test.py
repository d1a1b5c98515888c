"""The Paddle side of `opforge test` (runtime/testing/backends/paddle/build.ts): runs the case files Node wrote
through the generated Paddle custom ops (out/paddle), in the op library CMake built against the
installed wheel, loaded with the generated package's opforge_paddle.load as users load it.

For every case (<cases>/<snake>/<k>.json):
  - paddle: the op in dygraph through the checked functions users call (out/paddle/opforge_paddle's
    load of the library), every attribute given:
    <k>.paddle.<output>.bin, compared by Node with the baseline like every backend;
  - paddle-grad: paddle.grad through the generated PD_BUILD_GRAD_OP against torch.autograd of the
    spec's reference in float64, within the case's tolerance; for an op without a backward, that
    paddle.grad and paddle.static.gradients raise the op's own error;
  - paddle-infer: a Layer calling the op, paddle.jit.save'd (static graph; PIR on Paddle 3) and run
    by paddle.inference's predictor on the CPU: equal to dygraph, and the static graph's output
    shapes (the generated InferShape) equal to the dims the kernel wrote.
Prints one JSON document: the environment and per case what was written, checked or the error.

Usage: python opforge_paddle_test.py --cases DIR --out OUT --library LIB [--infer] [--grad]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
import shutil
import tempfile
import traceback

from typing import Optional

import paddle
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opforge_harness import (  # noqa: E402  (the case files and reference gradients every side shares)
    DTYPES, as_tuple, case_docs, compare_gradients, cotangents, error, grad_inputs, import_package, package_in, read_inputs,
    reference_gradients, write)

PADDLE = {"float32": paddle.float32, "float16": paddle.float16, "bfloat16": paddle.bfloat16, "float64": paddle.float64,
          "int8": paddle.int8, "uint8": paddle.uint8, "int32": paddle.int32, "int64": paddle.int64, "bool": paddle.bool}


def to_paddle(t: torch.Tensor, stop_gradient: bool = True) -> paddle.Tensor:
    """A torch tensor as a Paddle one, bit for bit (bfloat16 through float32, which holds it exactly)."""
    if t.dtype == torch.bfloat16:
        p = paddle.to_tensor(t.float().numpy(), dtype=paddle.float32).astype(paddle.bfloat16)
    else:
        # The dtype explicitly: Paddle makes an empty array float32 otherwise.
        p = paddle.to_tensor(t.numpy(), dtype=PADDLE[str(t.dtype).replace("torch.", "")])
    p.stop_gradient = stop_gradient
    return p


def to_paddle_input(t, stop_gradient: bool = True):
    """A case's input for the op: None, a tensor, or (a variadic input) the list of its members'."""
    if t is None:
        return None
    return [to_paddle(m, stop_gradient) for m in t] if isinstance(t, list) else to_paddle(t, stop_gradient)


def tensors_of(inputs) -> list:
    """Every present tensor of a case's inputs, a variadic input's members each."""
    return [m for t in inputs if t is not None for m in (t if isinstance(t, list) else [t])]


def to_torch(p: paddle.Tensor) -> torch.Tensor:
    if p.dtype == paddle.bfloat16:
        return torch.from_numpy(p.astype(paddle.float32).numpy()).to(torch.bfloat16)
    return torch.from_numpy(p.numpy().copy())  # copy(), not ascontiguousarray: that makes a 0-D array 1-D


def torch_dtype(p: paddle.Tensor) -> torch.dtype:
    return DTYPES[str(p.dtype).replace("paddle.", "")]


def load_ops(out: str, library: str, name: Optional[str]) -> object:
    """The generated Paddle package's checked functions over the library (opforge_paddle.load):
    what is tested is what users call (every argument checked, attributes with the spec's
    defaults). `name`: the package's (the project's namespace; None: the one package in out/paddle)."""
    sys.path.insert(0, os.path.join(out, "paddle"))
    package = importlib.import_module(name or package_in(os.path.join(out, "paddle")))
    return package.load(library)


def builtin_ops() -> set:
    """The op types Paddle registers itself."""
    try:
        from paddle.base import core
        from paddle.base.proto import framework_pb2
        return {framework_pb2.OpProto.FromString(b).type for b in core.get_all_op_protos()}
    except Exception:  # noqa: BLE001  (another Paddle layout: nothing known to clash)
        return set()


def attr_args(op, attrs: dict) -> list:
    """Every attribute, positionally, in the spec's order (as Paddle's raw functions take them too)."""
    out = []
    for a in op.attributes:
        v = attrs[a.name]
        out.append([float(x) for x in v] if a.type == "floats" else [int(x) for x in v] if a.type == "ints" else v)
    return out


def check_grad(op, fn, inputs, attrs, doc) -> dict:
    """paddle.grad through the generated grad op against torch.autograd of the reference (float64)."""
    diff = grad_inputs(op, inputs)
    if not diff:
        return {"skip": "no input takes a gradient with this case's dtypes"}
    xs = [to_paddle_input(t, stop_gradient=i not in diff) for i, t in enumerate(inputs)]
    outs = fn(*xs, *attr_args(op, attrs))
    outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
    carry = [k for k, (o, info) in enumerate(zip(outs, op.outputs)) if info.differentiable and o.is_floating_point() and o.size > 0]
    if not carry:
        return {"skip": "no output carries a gradient with this case's dtypes"}
    ups = cotangents([(outs[k].shape, torch_dtype(outs[k])) for k in carry], doc.get("seed", 0))
    got = paddle.grad([outs[k] for k in carry], [xs[i] for i in diff],
                      [to_paddle(u.to(torch_dtype(outs[k]))) for u, k in zip(ups, carry)], allow_unused=True)
    want = reference_gradients(op, inputs, attrs, dict(zip(carry, ups)))
    worst = compare_gradients(op, {i: None if g is None else to_torch(g) for i, g in zip(diff, got)}, want, doc["rtol"], doc["atol"])
    typed = [u.to(torch_dtype(outs[k])) for u, k in zip(ups, carry)]
    if any(t.dtype == torch.bfloat16 for t in [*tensors_of(inputs), *typed]):
        return {"maxError": worst, "static": "skipped: bfloat16 (the executor's feeds are numpy arrays)"}
    if any(t is None for t in inputs):
        # Paddle 3.3.1's PIR builds a custom grad op with fewer gradient outputs than its forward's
        # covered inputs when an optional input of the forward is absent, then refuses the grad
        # op's own InferShapeFn ("The number of output shapes ... is wrong"): a Paddle limitation.
        return {"maxError": worst, "static": "skipped: an absent optional input (PIR miscounts the grad op's outputs)"}
    if any(inputs[i].dim() == 0 for i in diff):
        # Paddle 3.3.1's PIR cannot build a custom grad op for a rank-0 input: the checked functions
        # refuse it in static training (docs/paddle-popart.md, "Rank-0 inputs in static training").
        return {"maxError": worst, "static": "skipped: a rank-0 input takes a gradient (refused in PIR static training)"}
    check_static_grad(op, fn, inputs, attrs, diff, carry, typed, got)
    return {"maxError": worst, "static": "equal to dygraph"}


def static_inputs(inputs) -> list:
    """A static graph's placeholders for a case's inputs (inside a program_guard): `x<i>`, None for
    an absent one, and a variadic input's members one feed each (`x<i>_<m>`), passed on as a list."""
    def data(name, t):
        return paddle.static.data(name, list(t.shape), PADDLE[str(t.dtype).replace("torch.", "")])

    return [None if t is None else [data(f"x{i}_{m}", v) for m, v in enumerate(t)] if isinstance(t, list) else data(f"x{i}", t)
            for i, t in enumerate(inputs)]


def check_no_backward(op, fn, inputs, attrs) -> dict:
    """An op whose spec declares no backward: paddle.grad in dygraph and paddle.static.gradients in
    a static graph both raise the op's own error (its refusing grad op), not Paddle's "has no grad op"."""
    diff = grad_inputs(op, inputs)
    if not diff:
        return {"skip": "no input takes a gradient with this case's dtypes"}
    expected = f"{op.name}: a gradient was requested through"

    def refused(what, run) -> None:
        try:
            run()
        except Exception as e:  # noqa: BLE001 - Paddle wraps the kernel's error in its own types
            if expected not in str(e):
                raise AssertionError(f"{what}: another error than the op's no-backward one: {str(e)[:300]}") from e
            return
        raise AssertionError(f"{what}: a gradient through the op was computed, but its spec declares no backward")

    def carried(outs) -> list:
        outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
        return [o for o, info in zip(outs, op.outputs) if info.differentiable and o.is_floating_point()]

    xs = [to_paddle_input(t, stop_gradient=i not in diff) for i, t in enumerate(inputs)]
    outs = carried(fn(*xs, *attr_args(op, attrs)))
    if not outs:
        return {"skip": "no output carries a gradient with this case's dtypes"}
    refused("paddle.grad (dygraph)", lambda: paddle.grad(outs, [xs[i] for i in diff], allow_unused=True))
    if any(t.dtype == torch.bfloat16 for t in tensors_of(inputs)) or any(inputs[i].dim() == 0 for i in diff):
        return {"maxError": 0.0, "noBackward": "dygraph; the static graph skipped: bfloat16 or a rank-0 input"}
    paddle.enable_static()
    try:
        with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
            sx = static_inputs(inputs)
            for i in diff:
                sx[i].stop_gradient = False
            souts = carried(fn(*sx, *attr_args(op, attrs)))
            refused("paddle.static.gradients", lambda: paddle.static.gradients(souts, [sx[i] for i in diff]))
    finally:
        paddle.disable_static()
    return {"maxError": 0.0, "noBackward": "dygraph and static graph"}


def check_static_grad(op, fn, inputs, attrs, diff, carry, ups, dygraph) -> None:
    """The same gradients from a static graph (PIR on Paddle 3: the grad op's InferShapeFn and
    InferDtypeFn build it), run by the executor: equal to dygraph's. bfloat16 cases are left to
    dygraph (the executor's feeds are numpy arrays)."""
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            xs = static_inputs(inputs)
            for i in diff:
                xs[i].stop_gradient = False
            outs = fn(*xs, *attr_args(op, attrs))
            outs = tuple(outs) if isinstance(outs, (list, tuple)) else (outs,)
            us = [paddle.static.data(f"u{j}", list(u.shape), PADDLE[str(u.dtype).replace("torch.", "")]) for j, u in enumerate(ups)]
            grads = paddle.static.gradients([outs[k] for k in carry], [xs[i] for i in diff], target_gradients=us)
        feed = {f"x{i}": t.numpy() for i, t in enumerate(inputs) if t is not None and not isinstance(t, list)}
        feed.update({f"x{i}_{m}": v.numpy() for i, t in enumerate(inputs) if isinstance(t, list) for m, v in enumerate(t)})
        feed.update({f"u{j}": u.numpy() for j, u in enumerate(ups)})
        fetch = [g for g in grads if g is not None]
        exe = paddle.static.Executor(paddle.CPUPlace())
        exe.run(startup)
        values = iter(exe.run(main, feed=feed, fetch_list=fetch))
    finally:
        paddle.disable_static()
    for i, g, d in zip(diff, grads, dygraph):
        name = op.inputs[i].name
        v = None if g is None else torch.from_numpy(next(values).copy())
        if v is None or d is None:
            if (v is None) != (d is None):
                raise AssertionError(f"gradient of {name}: the static graph gives {'none' if v is None else 'one'}, dygraph {'none' if d is None else 'one'}")
            continue
        dy = to_torch(d)
        if tuple(v.shape) != tuple(dy.shape) or not torch.equal(v, dy):
            raise AssertionError(f"gradient of {name} from a static graph ({'PIR' if paddle.framework.use_pir_api() else 'old IR'}) differs from dygraph's: dims {list(v.shape)} vs {list(dy.shape)}")


def op_layer(fn, present, attrs, d: str) -> paddle.nn.Layer:
    """A Layer whose forward takes the present inputs by name (to_static's input_spec needs named
    parameters, not *args) and calls the op with None for the absent ones and every attribute. It
    is written to a file: dy2static reads the forward's source. present[i]: False (absent), True,
    or a variadic input's member count (its members are parameters x<i>_<m>, passed as a list)."""
    def params(i, p):
        return [f"x{i}_{m}" for m in range(p)] if not isinstance(p, bool) else [f"x{i}"] if p else []

    names = [n for i, p in enumerate(present) for n in params(i, p)]
    args = ", ".join(("[" + ", ".join(params(i, p)) + "]") if not isinstance(p, bool) else f"x{i}" if p else "None"
                     for i, p in enumerate(present))
    path = os.path.join(d, f"layer_{'_'.join(str(int(p)) if isinstance(p, bool) else f'v{p}' for p in present)}.py")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("import paddle\n\n\nclass OpLayer(paddle.nn.Layer):\n"
                 f"    def forward(self, {', '.join(names)}):\n        return self.fn({args}, *self.attrs)\n")
    spec = importlib.util.spec_from_file_location(f"opforge_layer_{abs(hash(path))}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    layer = module.OpLayer()
    layer.fn, layer.attrs = fn, attrs
    return layer


def check_infer(op, fn, inputs, attrs, dygraph, d: str, k: int) -> dict:
    """jit.save of a Layer calling the op, run by the inference predictor: outputs equal to dygraph,
    and the saved graph's output shapes (the generated InferShape) equal to the kernel's dims."""
    if any(t.dtype == torch.bfloat16 for t in [*tensors_of(inputs), *dygraph]):
        return {"skip": "bfloat16: the inference predictor's tensors go through numpy, which has no bfloat16"}
    present = [len(t) if isinstance(t, list) else t is not None for t in inputs]
    # The graph's inputs by name: a variadic input's members as <name>__<m> (no spec name has a
    # double underscore), in order.
    feeds = [(f"{op.inputs[i].name}__{m}", v) for i, t in enumerate(inputs) if isinstance(t, list) for m, v in enumerate(t)]
    feeds = [(op.inputs[i].name, t) for i, t in enumerate(inputs) if t is not None and not isinstance(t, list)] + feeds
    # An inference graph takes no gradients: stop_gradient says so (a rank-0 input that takes one is
    # refused in a static graph, docs/paddle-popart.md).
    specs = [paddle.static.InputSpec(shape=list(t.shape), dtype=PADDLE[str(t.dtype).replace("torch.", "")], name=name, stop_gradient=True)
             for name, t in feeds]
    # The saved model is read once, by the predictor: removed after, so the case folder holds only
    # outputs (what opforge test keeps and hashes).
    tmp = tempfile.mkdtemp(dir=d)
    try:
        layer = paddle.jit.to_static(op_layer(fn, present, attr_args(op, attrs), tmp), input_spec=specs, full_graph=True)
        # The static graph's output dims come from the generated InferShape (-1 where unknown): they
        # must hold the dims the kernel writes in dygraph.
        declared = [list(v.shape) for v in as_tuple(layer.forward.concrete_program.outputs)]
        for o, dims, want in zip(op.outputs, declared, dygraph):
            if len(dims) != len(want.shape) or any(a >= 0 and a != b for a, b in zip(dims, want.shape)):
                raise AssertionError(f"output {o.name}: the static graph (InferShape) gives dims {dims}, the kernel wrote {list(want.shape)}")
        prefix = os.path.join(tmp, "model")
        paddle.jit.save(layer, prefix)
        model = prefix + ".json" if os.path.exists(prefix + ".json") else prefix + ".pdmodel"
        config = paddle.inference.Config(model, prefix + ".pdiparams")
        config.disable_gpu()
        config.disable_glog_info()
        predictor = paddle.inference.create_predictor(config)
        for name, t in feeds:
            h = predictor.get_input_handle(name)
            h.reshape(list(t.shape))
            h.copy_from_cpu(t.numpy())
        predictor.run()
        written = {}
        for j, (name, o) in enumerate(zip(predictor.get_output_names(), op.outputs)):
            h = predictor.get_output_handle(name)
            arr = h.copy_to_cpu()
            want = dygraph[j]
            if list(arr.shape) != list(want.shape):
                raise AssertionError(f"output {o.name}: the predictor gives dims {list(arr.shape)}, dygraph {list(want.shape)}")
            written[o.name] = write(d, f"{k}.paddle-infer.{o.name}.bin", torch.from_numpy(arr.copy()).to(want.dtype))
        return written
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--grad", action="store_true")
    ap.add_argument("--infer", action="store_true")
    # The packages' names (the project's namespace; default: the one package in each folder).
    ap.add_argument("--package-name")
    ap.add_argument("--python-package-name")
    args = ap.parse_args(argv)
    oo = import_package(os.path.join(args.out, "python"), args.python_package_name)  # the references only: this process runs Paddle's kernels

    env = {"paddle": paddle.__version__, "skipped": {}}
    ops = list(oo.OPS.values())
    # Each op's Paddle op type, from the specs.
    with open(os.path.join(args.cases, "paddle-ops.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    paddle.set_device("cpu")
    # A custom op cannot take the name of one of Paddle's own ops (top_k, leaky_relu, ...): it
    # overrides the built-in (Paddle warns so) and its Python API is generated from the built-in's
    # signature. Such ops are not called, by name.
    builtin = builtin_ops()
    clashes = sorted(op.name for op in ops if meta[op.name]["type"] in builtin)
    env["builtin_clashes"] = clashes
    mod = load_ops(args.out, args.library, args.package_name) if len(clashes) < len(ops) else None
    env["module"] = getattr(getattr(mod, "raw", None), "__file__", None)
    cases = []
    for op, d, doc in case_docs(args.cases, ops):
        fn = None if op.name in clashes else getattr(mod, meta[op.name]["type"])
        k = doc["index"]
        res = {"op": op.name, "case": k}
        cases.append(res)
        if fn is None:
            for col in ("paddle", "paddle-grad", "paddle-infer"):
                res[col] = {"skip": f"Paddle has a built-in op {meta[op.name]['type']}: a custom op cannot take its name"}
            continue
        inputs = read_inputs(d, doc)
        attrs = doc["attributes"]
        if any(t.numel() == 0 for t in tensors_of(inputs)):
            # Paddle 3.3 hands a custom op an empty tensor without its dtype and dims (float32,
            # rank 0): the op core then refuses it. Not an op's fault; said by name.
            for col in ("paddle", "paddle-grad", "paddle-infer"):
                res[col] = {"skip": "an empty input: Paddle passes it to custom ops without its dtype and dims"}
            continue
        dygraph = None
        try:
            outs = fn(*[to_paddle_input(t) for t in inputs], *attr_args(op, attrs))
            outs = as_tuple(outs)
            dygraph = [to_torch(o) for o in outs]
            res["paddle"] = {o.name: write(d, f"{k}.paddle.{o.name}.bin", t) for o, t in zip(op.outputs, dygraph)}
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            res["paddle"] = error(e)
        if args.grad:
            try:
                res["paddle-grad"] = check_grad(op, fn, inputs, attrs, doc) if op.backward is not None else check_no_backward(op, fn, inputs, attrs)
            except Exception as e:  # noqa: BLE001
                traceback.print_exc(file=sys.stderr)
                res["paddle-grad"] = error(e)
        if args.infer:
            if dygraph is None:
                res["paddle-infer"] = {"skip": "the dygraph call failed"}
            else:
                try:
                    res["paddle-infer"] = check_infer(op, fn, inputs, attrs, dygraph, d, k)
                except Exception as e:  # noqa: BLE001
                    traceback.print_exc(file=sys.stderr)
                    res["paddle-infer"] = error(e)
    print(json.dumps({"env": env, "cases": cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
