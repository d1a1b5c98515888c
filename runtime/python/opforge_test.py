"""The PyTorch side of `opforge test` (runtime/testing): runs the case files Node wrote.

For every case (<cases>/<snake>/<k>.json, inputs as raw little-endian bytes):
  - the spec's PyTorch reference on the CPU, with every attribute: <k>.reference.<output>.bin;
    and the package's shape function (output_shapes) against the reference's dims;
  - with --library, the compiled extension on each --device, with only the case's attributes
    (the wrapper fills in defaults): <k>.torch-<device>.<output>.bin;
  - with --export, the legacy exporter (and the dynamo one on torch >= 2.5 with onnxscript):
    <k>.legacy.onnx / <k>.dynamo.onnx, and the output shapes ONNX shape inference gives them.
Node compares every file with the baseline (one comparison for all backends). Prints one JSON
document: the environment, what was skipped and why, and per case what was written or the error.

Usage: python3 opforge_test.py --cases DIR --package OUT/python [--library SO] [--device cpu,cuda] [--export]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import io
import json
import os
import sys
import traceback
import warnings

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from opforge_harness import (  # noqa: E402  (the case files and reference gradients every side shares)
    as_tuple, case_docs, compare_gradients, cotangents, error, grad_inputs, import_package, read_inputs,
    reference_gradients, write)


class OpModule(torch.nn.Module):
    def __init__(self, fn, attrs):
        super().__init__()
        self.fn = fn
        self.attrs = attrs

    def forward(self, *inputs):
        return self.fn(*inputs, **self.attrs)


def onnx_shapes(model, names):
    """Output dims of the model's graph outputs after shape inference (None: unknown; str: symbolic)."""
    types = {vi.name: vi.type for vi in list(model.graph.value_info) + list(model.graph.output)}
    out = []
    for n in names:
        t = types.get(n)
        if t is None or not t.tensor_type.HasField("shape"):
            out.append(None)
            continue
        out.append([d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.tensor_type.shape.dim])
    return out


def check_no_backward(op, fn, inputs, given, dev):
    """An op without `backward`, on float inputs that require grad: its float outputs must be in
    the graph (a grad_fn, never a silent zero for the inputs' gradients), and asking for the
    gradient must raise the named error."""
    diff = grad_inputs(op, inputs)
    x = [None if t is None else t.to(dev).detach().requires_grad_(i in diff) for i, t in enumerate(inputs)]
    out = as_tuple(fn(*x, **given))
    carried = [(info, o) for info, o in zip(op.outputs, out) if info.differentiable and o.is_floating_point()]
    if not carried:
        return {"skip": "no output carries a gradient with this case's dtypes"}
    for info, o in carried:
        if not o.requires_grad or o.grad_fn is None:
            raise AssertionError(f"output {info.name} has no grad_fn although {', '.join(op.inputs[i].name for i in diff)} "
                                 "requires grad: a gradient through the op would silently be zero")
    try:
        torch.autograd.grad(sum(o.sum() for _, o in carried), [x[i] for i in diff], allow_unused=True)
    except RuntimeError as e:
        if f"{op.name}: a gradient was requested through" not in str(e):
            raise AssertionError(f"the backward raised another error than the op's no-backward one: {str(e)[:300]}") from e
        return {"maxError": 0.0, "noBackward": True}
    raise AssertionError("a gradient through the op was computed, but its spec declares no backward")


def check_grad(op, fn, inputs, attrs, given, doc, dev):
    """The spec's backward on one case: (1) the gradients it gives (through opforge_ops, in the
    case's dtypes, on `dev`) against autograd of the reference in float64, within the case's
    tolerance; (2) torch.autograd.gradcheck in float64 where the op takes float64."""
    diff = grad_inputs(op, inputs)
    outs_diff = [k for k, o in enumerate(op.outputs) if o.differentiable]
    if not diff or not outs_diff:
        return {"skip": "no differentiable input or output"}
    x = [None if t is None else t.to(dev).detach().requires_grad_(i in diff) for i, t in enumerate(inputs)]
    out = as_tuple(fn(*x, **given))
    # The upstream gradient as the op sees it (rounded to each output's dtype) goes to both sides.
    ups = cotangents([(out[k].shape, out[k].dtype) for k in outs_diff], doc.get("seed", 0))
    live = [j for j, k in enumerate(outs_diff) if out[k].requires_grad]  # empty outputs may carry no graph
    ours = torch.autograd.grad([out[outs_diff[j]] for j in live], [x[i] for i in diff],
                               [ups[j].to(out[outs_diff[j]].dtype).to(dev) for j in live], allow_unused=True) if live else [None] * len(diff)
    result = {"maxError": 0.0}
    if op.reference is not None:
        want = reference_gradients(op, inputs, attrs, dict(zip(outs_diff, ups)))
        result["maxError"] = compare_gradients(op, dict(zip(diff, ours)), want, doc["rtol"], doc["atol"])
    # gradcheck in float64: every differentiable input's dtype must allow it.
    if all("float64" in op.inputs[i].dtypes for i in diff):
        # Every float input that shares a dtype with them goes to float64 too (e.g. a shape_only size tensor).
        base = [None if t is None else (t.double() if t.is_floating_point() and "float64" in op.inputs[i].dtypes else t).to(dev)
                for i, t in enumerate(inputs)]

        def f(*d):
            args = list(base)
            for i, v in zip(diff, d):
                args[i] = v
            res = as_tuple(fn(*args, **given))
            return tuple(res[k] for k in outs_diff)

        leaves = [base[i].detach().requires_grad_(True) for i in diff]
        probe = f(*leaves)
        if all(o.dtype == torch.float64 for o in probe):
            result["gradcheck"] = bool(torch.autograd.gradcheck(f, leaves, eps=1e-6, atol=1e-5, rtol=1e-3))
        else:
            result["gradcheck"] = "skipped: an output is not float64 when the inputs are"
    else:
        result["gradcheck"] = "skipped: an input has no float64"
    return result


def keep_exporter_tables() -> None:
    """The dynamo exporter rebuilds three tables on every export that cannot change between this
    process's exports (the ops are all registered before the first): onnxscript's torchlib function
    list (it parses each function's source again), the ONNX registry built from it (a signature per
    function, about 11,000), and torch.export's set of CompositeImplicitAutograd ops (a walk over
    every op namespace). Together most of an export's time; each is kept after its first build.
    Every export still gets a registry of its own (the custom translations are added to it), and the
    CIA set is rebuilt when the dispatcher's CIA registrations or the op namespaces change. Private
    API: each is left alone where it is not as expected (the exports are then only slower), and the
    exported models are the same either way."""
    try:
        from torch.onnx._internal import _lazy_import

        mod = importlib.import_module(_lazy_import.onnxscript_apis.__name__)
        f = getattr(mod, "get_torchlib_ops", None)
        if callable(f) and not hasattr(f, "cache_info"):
            mod.get_torchlib_ops = functools.lru_cache(maxsize=None)(f)
    except Exception:  # noqa: BLE001
        pass
    _keep_registry()
    _keep_cia_ops()


def _keep_registry() -> None:
    try:
        from torch.onnx._internal.exporter import _registration

        cls = _registration.ONNXRegistry
        build = cls.from_torchlib.__func__
        if getattr(build, "_opforge_kept", False) or not isinstance(getattr(cls(), "functions", None), dict):
            return
    except Exception:  # noqa: BLE001
        return
    built: dict = {}

    def from_torchlib(klass, *args, **kwargs):
        key = (klass, args, tuple(sorted(kwargs.items())))
        if key not in built:
            built[key] = build(klass, *args, **kwargs)
        first = built[key]
        registry = klass.__new__(klass)
        registry.__dict__.update(first.__dict__)
        registry.functions = {k: list(v) for k, v in first.functions.items()}
        return registry

    from_torchlib._opforge_kept = True
    cls.from_torchlib = classmethod(from_torchlib)


def _keep_cia_ops() -> None:
    try:
        import torch._export.utils as utils
        import torch.export.decomp_utils as decomp_utils
        import torch.export.exported_program as exported_program

        collect = utils._collect_all_valid_cia_ops
        users = [m for m in (utils, decomp_utils, exported_program) if getattr(m, "_collect_all_valid_cia_ops", None) is collect]
        if getattr(collect, "_opforge_kept", False) or len(users) != 3:
            return
    except Exception:  # noqa: BLE001
        return
    kept: dict = {}

    def collect_kept():
        key = (tuple(torch.ops._dir), tuple(torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")))
        if kept.get("key") != key:
            kept["key"], kept["ops"] = key, collect()
        return kept["ops"]

    collect_kept._opforge_kept = True
    for m in users:
        m._collect_all_valid_cia_ops = collect_kept


def parse_args(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", required=True)
    ap.add_argument("--package", required=True, help="directory holding the generated package (OUT/python)")
    ap.add_argument("--package-name", help="the generated package's name (default: the one package in --package)")
    ap.add_argument("--library", help="compiled extension (libopforge_torch.so)")
    ap.add_argument("--device", default="cpu", help="comma-separated devices for the extension")
    ap.add_argument("--export", action="store_true", help="export every case with the legacy (and dynamo) exporter")
    ap.add_argument("--grad", action="store_true", help="check the spec's backward of every case (gradcheck, and against autograd of the reference)")
    return ap.parse_args(argv)


def exporters(env: dict):
    """The onnx module (None without it) and whether the dynamo exporter runs; the skips say why not."""
    try:
        import onnx
        env["onnx"] = onnx.__version__
    except ImportError:
        env["skipped"]["ort-legacy"] = env["skipped"]["ort-dynamo"] = "the onnx Python package is not installed"
        return None, False
    major_minor = tuple(int(x) for x in torch.__version__.split("+")[0].split(".")[:2])
    if major_minor < (2, 5):
        env["skipped"]["ort-dynamo"] = f"torch {torch.__version__} < 2.5 has no dynamo exporter with custom translations"
        return onnx, False
    try:
        import onnxscript  # noqa: F401
    except ImportError:
        env["skipped"]["ort-dynamo"] = "onnxscript is not installed (the dynamo exporter needs it)"
        return onnx, False
    keep_exporter_tables()
    return onnx, True


def present(oo, op, attrs) -> list:
    """The outputs a call with these attributes returns (the spec's `present:`), in order."""
    return [o for o, p in zip(op.outputs, oo._runtime.present_flags(op, attrs)) if p]


def named(outs, got, what) -> dict:
    """{output: tensor} of what a call returned; a count other than the present outputs' is an error."""
    if len(got) != len(outs):
        raise ValueError(f"{what} returned {len(got)} outputs, the attributes ask for {len(outs)} "
                         f"({', '.join(o.name for o in outs)})")
    return dict(zip((o.name for o in outs), got))


def run_reference(oo, op, res, d, k, inputs, attrs) -> None:
    """The spec's reference on the CPU with every attribute, and the package's output shapes."""
    try:
        want = named(present(oo, op, attrs), as_tuple(op.reference(*inputs, **attrs)), "the reference")
        res["reference"] = {n: write(d, f"{k}.reference.{n}.bin", w) for n, w in want.items()}
        # A variadic input's members in its place, one shape each, as output_shapes reads them.
        shapes = [None if t is None else list(t.shape) for i in inputs for t in (i if isinstance(i, list) else [i])]
        res["python-shapes"] = op.output_shapes(shapes, attrs)
    except Exception as e:  # noqa: BLE001
        res["reference"] = error(e)


def run_extension(oo, op, fn, res, d, k, inputs, attrs, given, devices) -> None:
    """The compiled extension on each device, with only the case's attributes."""
    for dev in devices:
        tag = f"torch-{dev}"
        if dev == "cuda" and not op.has_cuda:
            res[tag] = {"skip": "the spec names no kernels.cuda"}
            continue
        try:
            got = as_tuple(fn(*[None if t is None else t.to(dev) for t in inputs], **given))
            if dev == "cuda":
                torch.cuda.synchronize()
            res[tag] = {n: write(d, f"{k}.{tag}.{n}.bin", g)
                        for n, g in named(present(oo, op, attrs), got, f"torch:{dev}").items()}
        except Exception as e:  # noqa: BLE001
            res[tag] = error(e)


def run_grads(op, fn, res, doc, inputs, attrs, given, devices) -> None:
    """The spec's backward on each device (or, without one, the named error)."""
    for dev in devices:
        tag = "grad-cpu" if dev == "cpu" else "grad-cuda"
        if not any(i.differentiable for i in op.inputs):
            res[tag] = {"skip": "not differentiable (no differentiable input)"}
        elif not grad_inputs(op, inputs):
            res[tag] = {"skip": "no input takes a gradient with this case's dtypes (integer or bool)"}
        elif dev == "cuda" and not op.has_cuda:
            res[tag] = {"skip": "the spec names no kernels.cuda"}
        else:
            try:
                res[tag] = (check_grad(op, fn, inputs, attrs, given, doc, dev) if op.backward is not None
                            else check_no_backward(op, fn, inputs, given, dev))
            except Exception as e:  # noqa: BLE001
                traceback.print_exc(file=sys.stderr)
                res[tag] = error(e)


def run_exports(oo, onnx, dynamo, op, fn, res, d, k, inputs, attrs, given) -> None:
    """The case exported with the legacy exporter (and the dynamo one), and ONNX's output shapes."""
    names = [i.name for i, t in zip(op.inputs, inputs) if t is not None]
    outs = [o.name for o in present(oo, op, attrs)]
    try:
        f = io.BytesIO()
        kwargs = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(OpModule(fn, given), tuple(inputs), f, input_names=names, output_names=outs,
                              opset_version=17, custom_opsets=oo.custom_opsets(), **kwargs)
        model = onnx.load_from_string(f.getvalue())
        path = os.path.join(d, f"{k}.legacy.onnx")
        onnx.save(model, path)
        res["ort-legacy"] = {"model": os.path.basename(path), "shapes": onnx_shapes(oo.infer_shapes(model), outs)}
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        res["ort-legacy"] = error(e)
    if dynamo:
        try:
            prog = torch.onnx.export(OpModule(fn, given), tuple(inputs), dynamo=True,
                                     custom_translation_table=oo.custom_translation_table(),
                                     input_names=names, output_names=outs)
            model = prog.model_proto
            path = os.path.join(d, f"{k}.dynamo.onnx")
            onnx.save(model, path)
            inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
            res["ort-dynamo"] = {"model": os.path.basename(path), "shapes": onnx_shapes(inferred, outs)}
        except Exception as e:  # noqa: BLE001
            traceback.print_exc(file=sys.stderr)
            res["ort-dynamo"] = error(e)


def entry_bypassed(oo) -> list:
    """Ops the Python entry does not serve, through the generated function or through
    torch.ops.<ns>.<op> (its schema has a kind the entry does not convert): correct through
    torch's builtin, but slower; the tests want none."""
    rt = oo._runtime
    return sorted(
        op.name for op in oo.OPS.values()
        if rt.direct_slot(op)[0] is not None and not (
            getattr(rt.direct_slot(op)[0], "usable", False)
            and type(getattr(rt.torch_op(op), "_op", None)) is type(rt.direct_slot(op)[0])))


def main(argv=None) -> int:
    args = parse_args(argv)
    oo = import_package(args.package, args.package_name)  # then loads exactly --library, or nothing

    env = {"torch": torch.__version__, "cuda": torch.cuda.is_available(), "skipped": {}}
    if args.library:
        oo.load_library(args.library)
        env["extension"] = oo.extension_path()
        env["entry"] = oo.entry_path()  # the Python entry the generated functions call the ops through
    devices = [d for d in args.device.split(",") if d]
    if "cuda" in devices and not torch.cuda.is_available():
        env["skipped"]["torch:cuda"] = "torch sees no CUDA device"
        devices.remove("cuda")
    onnx, dynamo = exporters(env) if args.export else (None, False)

    cases = []
    for op, d, doc in case_docs(args.cases, list(oo.OPS.values())):
        fn = getattr(oo, op.snake)
        k = doc["index"]
        res = {"op": op.name, "case": k}
        cases.append(res)
        try:
            inputs = read_inputs(d, doc)
        except Exception as e:  # noqa: BLE001
            res["inputs"] = error(e)
            continue
        attrs, given = doc["attributes"], doc["given"]
        if op.reference is not None:
            run_reference(oo, op, res, d, k, inputs, attrs)
        if args.library:
            run_extension(oo, op, fn, res, d, k, inputs, attrs, given, devices)
        if args.grad:
            run_grads(op, fn, res, doc, inputs, attrs, given, devices)
        if onnx is not None:
            if not args.library and op.reference is None:
                res["ort-legacy"] = res["ort-dynamo"] = {"skip": "no reference and no compiled extension to trace"}
            else:
                run_exports(oo, onnx, dynamo, op, fn, res, d, k, inputs, attrs, given)
    if env.get("entry"):
        env["entry_bypassed"] = entry_bypassed(oo)
    print(json.dumps({"env": env, "cases": cases}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
