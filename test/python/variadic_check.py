"""A variadic input through opforge_ops (test/fixtures/variadic's WeightedSum): the members in order
(a weight per member), their count, the checks' messages per member, torch.compile over a list of
fake tensors, and both exporters' node: the fixed input, then one input per member, valid to
onnx.checker with the op's schema. Usage: variadic_check.py [LIBRARY]; prints a JSON summary last."""

from __future__ import annotations

import io
import json
import sys
import traceback
import warnings

import torch

import opforge_ops as oo

results = {"ok": 0, "failed": 0, "skipped": []}


def check(name, fn):
    try:
        fn()
        results["ok"] += 1
    except Exception:  # noqa: BLE001
        results["failed"] += 1
        print(f"FAIL {name}", file=sys.stderr)
        traceback.print_exc()


if len(sys.argv) > 1:
    oo.load_library(sys.argv[1])
results["backend"] = oo.backend("WeightedSum")
WEIGHTS = [1.0, 2.0, -1.0]
bias = torch.randn(3, 4)
xs = [torch.randn(3, 4) for _ in WEIGHTS]
want = bias + xs[0] + 2 * xs[1] - xs[2]


def values():
    for given in (xs, tuple(xs)):
        for _ in range(2):  # the first call fills the direct slot, the second goes through it
            y, counts = oo.weighted_sum(bias, given, weights=WEIGHTS)
            torch.testing.assert_close(y, want)
            assert counts.tolist() == [1, 2, 3], counts
    if len(sys.argv) > 1:
        assert oo._runtime.direct_slot(oo.OPS["WeightedSum"])[0].usable, "the Python entry does not take Tensor[]"


def refused():
    cases = [
        (lambda: oo.weighted_sum(bias, xs[:1]), "input 'xs' has 1 members; it takes 2 to 32"),
        (lambda: oo.weighted_sum(bias, xs * 11), "input 'xs' has 33 members; it takes 2 to 32"),
        (lambda: oo.weighted_sum(bias, xs[0]), "input 'xs' is variadic: give a list or tuple of tensors"),
        (lambda: oo.weighted_sum(bias, [xs[0], xs[1].double()]), "inputs 'bias' and 'xs' (member 1) share type T"),
        (lambda: oo.weighted_sum(bias, [xs[0], xs[1], torch.randn(3, 5)]),
         "input 'xs' (member 2) must have the shape of 'bias' [3, 4], got [3, 5]"),
        (lambda: oo.weighted_sum(bias, xs, weights=[1.0]), "count(xs) = 3"),
    ]
    for call, message in cases:
        try:
            call()
        except (TypeError, ValueError) as e:
            assert message in str(e), f"{message!r} not in {e}"
            continue
        raise AssertionError(f"no error: {message}")


def compiled():
    if not hasattr(torch, "compile") or not oo._runtime.HAS_CUSTOM_OP:
        results["skipped"].append("torch.compile")
        return
    f = torch.compile(lambda b, m: oo.weighted_sum(b, m, weights=WEIGHTS), fullgraph=True)
    y, counts = f(bias, xs)
    torch.testing.assert_close(y, want)
    assert counts.tolist() == [1, 2, 3]


class Model(torch.nn.Module):
    def forward(self, b, members):
        return oo.weighted_sum(b, members, weights=WEIGHTS)


NAMES = ["bias", "xs.0", "xs.1", "xs.2"]


def check_model(model):
    import onnx

    nodes = [n for n in model.graph.node if n.op_type == "WeightedSum"]
    assert len(nodes) == 1 and nodes[0].domain == "test.variadic", [n.op_type for n in model.graph.node]
    assert list(nodes[0].input) == NAMES, list(nodes[0].input)
    assert [i.name for i in model.graph.input] == NAMES
    if hasattr(onnx.defs, "register_schema"):
        oo.register_onnx_schemas()
        onnx.checker.check_model(model, full_check=True)
    inferred = oo.infer_shapes(model)
    dims = {v.name: [d.dim_value for d in v.type.tensor_type.shape.dim] for v in inferred.graph.output}
    assert dims == {"y": [3, 4], "counts": [3]}, dims


def legacy_export():
    import onnx

    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Model(), (bias, xs), f, input_names=NAMES, output_names=["y", "counts"], opset_version=17,
                          **oo.export_options(dynamo=False))
    check_model(onnx.load_from_string(f.getvalue()))


def dynamo_export():
    try:
        import onnxscript  # noqa: F401
    except ImportError:
        results["skipped"].append("dynamo export (no onnxscript)")
        return
    if oo._runtime.TORCH_VERSION < (2, 5):
        results["skipped"].append("dynamo export (torch < 2.5)")
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        prog = torch.onnx.export(Model(), (bias, xs), input_names=NAMES, output_names=["y", "counts"],
                                 **oo.export_options(dynamo=True))
    check_model(prog.model_proto)


for name, fn in [("values", values), ("refused", refused), ("compiled", compiled), ("legacy export", legacy_export),
                 ("dynamo export", dynamo_export)]:
    check(name, fn)
print(json.dumps(results))
