"""Checks the generated opforge_ops package against real PyTorch and ONNX.

For every op and every spec test case: the compiled extension (when loaded) against the spec's
PyTorch reference; the legacy exporter's node (domain, op type, attribute names, types and values,
output count), the opset import and the inferred output shapes; with --dynamo, the dynamo
exporter (custom node present, attributes, symbolic shapes, onnx.checker full check); with
--compile (torch >= 2.4), torch.library.opcheck on the registered op (schema, fake tensor,
autograd registration, AOT dispatch with dynamic shapes) and torch.compile(fullgraph=True,
dynamic=True) against eager.
Prints one line per check and a JSON summary last; exits 1 on any failure.

Usage: PYTHONPATH=out/python python3 test/python/torch_ops_check.py [--library PATH] [--dynamo]
       [--compile] [--device cuda] [--save-models DIR] [--ops DIR] [--out DIR]
--ops DIR checks another project's ops: their package is imported from <out>/python (--out, default
build/gpu/<project>/out, generated there first when Node and dist/ are at hand). With --device cuda
and --library, an op whose extension has no CUDA kernel (no kernels.cuda) is skipped on the device
with a `skip` line (counted), its export checks still run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import traceback
import warnings

import numpy as np
import onnx
import torch

ATTR_ONNX_TYPE = {"bool": onnx.AttributeProto.INT, "int": onnx.AttributeProto.INT, "float": onnx.AttributeProto.FLOAT,
                  "string": onnx.AttributeProto.STRING, "ints": onnx.AttributeProto.INTS,
                  "floats": onnx.AttributeProto.FLOATS}
TORCH_DTYPE = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16,
               "float64": torch.float64, "int8": torch.int8, "uint8": torch.uint8, "int32": torch.int32,
               "int64": torch.int64, "bool": torch.bool}
ONNX_ELEM = {torch.float32: 1, torch.uint8: 2, torch.int8: 3, torch.int32: 6, torch.int64: 7, torch.bool: 9,
             torch.float16: 10, torch.float64: 11, torch.bfloat16: 16}

SEED_OPS = {"KNNQuery", "CustomRelu", "MyAdd", "DynamicTRTResize"}
results = {"ok": 0, "failed": 0, "skipped": 0, "checks": {}}
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def record(name: str, ok: bool, detail: str = "") -> None:
    results["ok" if ok else "failed"] += 1
    kind = name.split(" ")[0]
    results["checks"][kind] = results["checks"].get(kind, 0) + (1 if ok else 0)
    print(f"{'ok  ' if ok else 'FAIL'} {name}{(': ' + detail) if detail else ''}", flush=True)


def skip(name: str, why: str) -> None:
    results["skipped"] += 1
    print(f"skip {name}: {why}", flush=True)


def use_ops(ops, out):
    """Puts <out>/python (the generated opforge_ops of --ops) first on sys.path, generating it first
    when --out is not given and Node can run this repo's generator."""
    if ops is None and out is None:
        return
    if out is None:
        out = os.path.join(REPO, "build", "gpu", os.path.basename(os.path.dirname(os.path.abspath(ops))), "out")
        cli = os.path.join(REPO, "dist", "generator", "cli.js")
        if shutil.which("node") and os.path.isfile(cli):
            subprocess.run(["node", cli, "gen", "--ops", ops, "--out", out], check=True, stdout=sys.stderr)
    pkg = os.path.join(out, "python")
    if not os.path.isdir(os.path.join(pkg, "opforge_ops")):
        sys.exit(f"no generated opforge_ops in {pkg}: run `opforge gen --ops {ops} --out {out}`")
    sys.path.insert(0, pkg)


def has_device_kernel(op, device: str) -> bool:
    """Whether the loaded extension registered a kernel of the op for the device's dispatch key
    (ops without kernels.cuda register only a CUDA kernel that raises the "no CUDA kernel" error)."""
    if torch.device(device).type == "cuda" and not getattr(op, "has_cuda", True):
        return False
    try:
        return bool(torch._C._dispatch_has_kernel_for_dispatch_key(op.qualname, torch.device(device).type.upper()))
    except (AttributeError, RuntimeError, TypeError):
        return True  # cannot tell: run it and let a failure show


def symbolic_outputs(op, inputs, attrs):
    """Per output, whether its dims read an input dim the dynamo export makes dynamic (dim 0 of
    each present input, Dim.AUTO; torch specializes sizes 0 and 1): only those must come out
    symbolic; the others are static."""
    shapes = [None if t is None else ([f"{i.name}_0" if t.shape[0] > 1 else t.shape[0]] + list(t.shape[1:]) if t.dim() > 0 else [])
              for i, t in zip(op.inputs, inputs)]
    outs = op.output_shapes(shapes, attrs)
    return [o is None or any(not isinstance(d, int) for d in o) for o in outs]


def reads_input_dims(op, inputs, attrs):
    """Per output, whether its shape reads any input dim at all (a dim tied to a dynamic one by the
    op's shape constraints may come out symbolic); those that read none must be static."""
    shapes = [None if t is None else [f"{i.name}_{d}" for d in range(t.dim())] for i, t in zip(op.inputs, inputs)]
    return [o is None or any(not isinstance(d, int) for d in o) for o in op.output_shapes(shapes, attrs)]


def make_inputs(op, case, device: str, grow_batch: bool = False):
    g = torch.Generator().manual_seed(case.seed)
    tensors = []
    for spec, given in zip(op.inputs, case.inputs):
        if given is None:
            tensors.append(None)
            continue
        shape, values, (lo, hi) = given
        dtype = TORCH_DTYPE[spec.dtypes[0] if spec.type_var is None else case.dtypes.get(spec.type_var, spec.dtypes[0])]
        if values is not None:
            t = torch.tensor(values, dtype=torch.float64).reshape(shape)
        else:
            shape = tuple(shape)
            if grow_batch and len(shape) > 0 and shape[0] == 1:
                shape = (2,) + shape[1:]  # a dim of 1 would be specialized by torch.export
            t = torch.rand(shape, generator=g, dtype=torch.float64) * (hi - lo) + lo
        tensors.append(t.to(dtype).to(device))
    return tensors


def as_tuple(x):
    """One value per output: a variadic output's list as its members, each in its place."""
    xs = x if isinstance(x, (tuple, list)) else (x,)
    return tuple(m for v in xs for m in (v if isinstance(v, (tuple, list)) else (v,)))


def close(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if not a.dtype.is_floating_point:
        return bool(torch.equal(a.cpu(), b.cpu()))
    return bool(torch.allclose(a.cpu().double(), b.cpu().double(), rtol=rtol, atol=atol, equal_nan=True))


class OpModule(torch.nn.Module):
    def __init__(self, fn, attrs):
        super().__init__()
        self.fn = fn
        self.attrs = attrs

    def forward(self, *inputs):
        return self.fn(*inputs, **self.attrs)


def attr_value(a, p):
    v = onnx.helper.get_attribute_value(p)
    if a.type == "string":
        return v.decode()
    if a.type in ("ints", "floats"):
        return list(v)
    return v


def expected_attr(a, v):
    if a.type == "bool":
        return int(v)
    if a.type == "float":
        return float(np.float32(v))
    if a.type == "floats":
        return [float(np.float32(x)) for x in v]
    return v


def check_node(tag, op, model, attrs, oo):
    nodes = [n for n in model.graph.node if n.domain == op.domain and n.op_type == op.name]
    record(f"node {tag}", len(nodes) == 1, f"{len(nodes)} {op.domain}::{op.name} nodes; ops: {[n.op_type for n in model.graph.node]}")
    if len(nodes) != 1:
        return None
    node = nodes[0]
    got = {p.name: p for p in node.attribute}
    names_ok = sorted(got) == sorted(a.name for a in op.attributes)
    record(f"attr-names {tag}", names_ok, f"{sorted(got)}")
    for a in op.attributes:
        p = got.get(a.name)
        if p is None:
            continue
        want = expected_attr(a, attrs[a.name])
        record(f"attr {tag} {a.name}", p.type == ATTR_ONNX_TYPE[a.type] and attr_value(a, p) == want,
               f"type {p.type}, value {attr_value(a, p)!r}, want {want!r}")
    record(f"outputs {tag}", len(node.output) == len(output_names(op, attrs)), f"{len(node.output)}")
    imports = {i.domain: i.version for i in model.opset_import}
    # The legacy exporter imports the domain at custom_opsets() (its ops' highest version); the dynamo
    # one at the op's own version (torch takes it from the op's schema). Both are valid for this
    # one-node model; a model mixing ops of one domain at several versions is not (docs/torch.md).
    want = {oo.custom_opsets()[op.domain]} | ({op.version} if tag.startswith("dynamo") else set())
    record(f"opset {tag}", imports.get(op.domain) in want, f"{imports}")
    return node


def check_shapes(tag, model, node, expected, symbolic_ok: bool):
    types = {vi.name: vi.type for vi in list(model.graph.value_info) + list(model.graph.output)}
    for name, want in zip(node.output, expected):
        t = types.get(name)
        if t is None or not t.tensor_type.HasField("shape"):
            record(f"shape {tag} {name}", False, "no inferred shape")
            continue
        dims = [d.dim_value if d.HasField("dim_value") else d.dim_param for d in t.tensor_type.shape.dim]
        ok = t.tensor_type.elem_type == ONNX_ELEM[want.dtype] and len(dims) == want.dim() and all(
            (isinstance(d, int) and d == w) or (symbolic_ok and isinstance(d, str) and d != "")
            for d, w in zip(dims, want.shape))
        record(f"shape {tag} {name}", ok, f"{t.tensor_type.elem_type} {dims}, want {ONNX_ELEM[want.dtype]} {list(want.shape)}")


def output_names(op, attrs):
    """The outputs a node with these attributes has (`present:`, a variadic output's members)."""
    full = {a.name: attrs.get(a.name, a.default) for a in op.attributes}
    flags = __import__("opforge_ops")._runtime.present_flags(op, full)
    return [o.name for o, p in zip(op.outputs, flags) if p]


def legacy_export(op, fn, inputs, attrs, path=None):
    names = [i.name for i, t in zip(op.inputs, inputs) if t is not None]
    present = [t for t in inputs if t is not None]
    dyn = {n: {0: f"{n}_0"} for n, t in zip(names, present) if t.dim() > 0}
    f = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kwargs = {"dynamo": False} if "dynamo" in torch.onnx.export.__code__.co_varnames else {}
        torch.onnx.export(OpModule(fn, attrs), tuple(inputs), f, input_names=names,
                          output_names=output_names(op, attrs), dynamic_axes=dyn, opset_version=17,
                          custom_opsets=__import__("opforge_ops").custom_opsets(), **kwargs)
    missing = [str(w.message) for w in caught if "shape inference of" in str(w.message)]
    # torch < 2 warns for every custom-domain node whatever the symbolic sets (docs/torch.md);
    # from torch 2 the types set from the spec must silence it.
    if int(torch.__version__.split(".")[0]) >= 2:
        record(f"legacy-no-shape-warning {op.name}", not missing, "; ".join(missing[:1]))
    model = onnx.load_from_string(f.getvalue())
    if path:
        onnx.save(model, path)
    return model


def dynamo_export(op, fn, inputs, attrs, oo):
    from torch.export import Dim

    shapes = tuple(None if t is None or t.dim() == 0 else {0: Dim.AUTO} for t in inputs)
    prog = torch.onnx.export(OpModule(fn, attrs), tuple(inputs), dynamo=True,
                             custom_translation_table=oo.custom_translation_table(), dynamic_shapes={"inputs": shapes},
                             input_names=[i.name for i in op.inputs], output_names=output_names(op, attrs))
    return prog.model_proto


def grown_or_plain(op, case, device, run):
    """run(inputs) with dims of 1 grown to 2 (torch.export specializes 1), or with the case's own
    inputs when growing breaks a dim constraint between the op's inputs (the op says "must equal")."""
    try:
        return run(make_inputs(op, case, device, grow_batch=True))
    except (RuntimeError, ValueError) as e:
        if "must equal" not in str(e) and "must have the shape" not in str(e):
            raise
        print(f"note {op.name}: grown dims break its shape constraints; checked at the case's dims", flush=True)
        return run(make_inputs(op, case, device))


def compile_checks(tag, op, fn, case, attrs, full_attrs, device, oo):
    grown_or_plain(op, case, device, lambda inputs: compile_checks_on(tag, op, fn, case, attrs, full_attrs, device, oo, inputs))


def compile_checks_on(tag, op, fn, case, attrs, full_attrs, device, oo, inputs):
    """opcheck on torch.ops.opforge.<op>, then the op inside torch.compile(fullgraph=True) vs eager."""
    # Compiled first: without the extension an op's first call may be inside the compiled region.
    torch._dynamo.reset()
    compiled = torch.compile(OpModule(fn, attrs), fullgraph=True, dynamic=True)
    got = as_tuple(compiled(*inputs))
    eager = as_tuple(fn(*inputs, **attrs))
    ok = len(got) == len(eager) and all(close(g, w, case.rtol, case.atol) for g, w in zip(got, eager))
    record(f"compile {tag} ({device})", ok, "fullgraph, dynamic; outputs equal eager" if ok else "outputs differ")
    overload = oo._runtime.torch_op(op).default
    kwargs = {k: v for k, v in full_attrs.items() if v is not None}
    report = torch.library.opcheck(overload, tuple(inputs), kwargs, raise_exception=False)
    bad = {k: v for k, v in report.items() if v != "SUCCESS"}
    record(f"opcheck {tag} ({device})", not bad, str(bad) if bad else ", ".join(sorted(report)))


def error_checks(oo):
    cases = [
        ("missing-required", lambda: oo.knn_query(torch.zeros(4, 3), torch.tensor([4], dtype=torch.int32),
                                                 torch.zeros(2, 3), torch.tensor([2], dtype=torch.int32)),
         TypeError, "knn_query() missing 1 required keyword-only argument: 'nsample'"),
        ("range", lambda: oo.knn_query(torch.zeros(4, 3), torch.tensor([4], dtype=torch.int32), torch.zeros(2, 3),
                                      torch.tensor([2], dtype=torch.int32), nsample=0),
         ValueError, "KNNQuery: attribute 'nsample' must be >= 1"),
        ("attr-type", lambda: oo.custom_relu(torch.zeros(2), alpha="x"), TypeError,
         "CustomRelu: attribute 'alpha' must be a float"),
        ("unknown-attr", lambda: oo.custom_relu(torch.zeros(2), beta=1.0), TypeError, "unexpected keyword argument 'beta'"),
        ("dtype", lambda: oo.my_add(torch.zeros(2, dtype=torch.int32), torch.zeros(2, dtype=torch.int32)), TypeError,
         "MyAdd: input 'a' has dtype torch.int32"),
        ("type-var", lambda: oo.my_add(torch.zeros(2), torch.zeros(2, dtype=torch.float16)), TypeError,
         "MyAdd: inputs 'a' and 'b' share type T"),
        ("rank", lambda: oo.dynamic_trt_resize(torch.zeros(2, 2), torch.zeros(1, 1, 2, 2)), ValueError,
         "DynamicTRTResize: input 'input' must have rank 4"),
    ]
    for name, fn, exc, msg in cases:
        try:
            fn()
            record(f"error {name}", False, "no exception")
        except exc as e:
            record(f"error {name}", msg in str(e), str(e))
        except Exception as e:  # noqa: BLE001
            record(f"error {name}", False, f"{type(e).__name__}: {e}")


def entry_case(tag, op, fn, case, attrs, device):
    """The Python entry (opforge_torch_py.Op, what the generated function calls) against torch.ops'
    own entry on the same inputs: bit for bit, with the case's attributes and with the defaults."""
    entry = oo_runtime().direct_slot(op)[0]
    if entry is None or not hasattr(entry, "usable"):
        record(f"entry {tag}", False, f"the generated function calls {entry!r}, not the Python entry")
        return
    plain = getattr(getattr(torch.ops, "opforge"), op.snake).default._op
    inputs = make_inputs(op, case, device)
    required = {a.name: attrs[a.name] for a in op.attributes if a.default is None and a.name in attrs}
    # Bit for bit on the CPU; on CUDA within the case's tolerances, since a kernel that accumulates
    # with atomics (DynamicTRTResizeGrad's) differs between two calls through the same entry.
    exact = device == "cpu"
    agree = (lambda a, b: torch.equal(a, b)) if exact else (lambda a, b: close(a, b, case.rtol, case.atol))
    same = all(agree(a, b) for a, b in zip(as_tuple(entry(*inputs, **attrs)), as_tuple(plain(*inputs, **attrs))))
    defaults = all(agree(a, b) for a, b in zip(as_tuple(entry(*inputs, **required)), as_tuple(plain(*inputs, **required))))
    # torch.ops.opforge.<op>(...) goes through an entry Op too (the packet's _op), with the same values.
    packet = getattr(torch.ops.opforge, op.snake)
    routed = type(packet._op) is type(entry) and packet._op.usable
    via_ops = all(agree(a, b) for a, b in zip(as_tuple(packet(*inputs, **attrs)), as_tuple(plain(*inputs, **attrs))))
    record(f"entry {tag}", entry.usable and same and defaults and routed and via_ops,
           f"usable {entry.usable}, same {same}, defaults {defaults}, torch.ops routed {routed} same {via_ops}{'' if exact else ' (within tolerance)'}")


def oo_runtime():
    import opforge_ops._runtime as rt
    return rt


_PACKET = None


def _scripted_packet(y: torch.Tensor) -> torch.Tensor:
    return _PACKET(y)  # a captured torch.ops packet: TorchScript resolves it by the builtin's identity


def entry_fallback_checks(oo):
    """What the entry does not take goes to torch.ops' entry, with its behaviour and messages."""
    x = torch.linspace(-1, 1, 8)
    oo.custom_relu(x)  # fills the op's slot
    entry = oo_runtime().direct_slot(oo.OPS["CustomRelu"])[0]
    plain = torch.ops.opforge.custom_relu.default._op

    def outcome(f):
        try:
            r = f()
            return ("ok", type(r).__name__, r.detach().clone())
        except Exception as e:  # noqa: BLE001
            return ("raise", type(e).__name__, str(e).split("\n")[0])

    def same(a, b):
        return a[:2] == b[:2] and (torch.equal(a[2], b[2]) if a[0] == "ok" else a[2] == b[2])

    class Sub(torch.Tensor):
        pass

    cases = {
        "subclass": lambda f: f(x.as_subclass(Sub), alpha=0.5),
        "string-attr": lambda f: f(x, alpha="s"),
        "bool-attr": lambda f: f(x, alpha=True),
        "unknown-kwarg": lambda f: f(x, beta=1.0),
        "repeated": lambda f: f(x, x),
        "missing": lambda f: f(),
        "int-attr": lambda f: f(x, alpha=2),
        "positional-attr": lambda f: f(x, 0.5),
    }
    for name, call in cases.items():
        a, b = outcome(lambda: call(entry)), outcome(lambda: call(plain))
        record(f"entry-fallback {name}", same(a, b), f"entry {a[:2]} {a[2] if a[0] == 'raise' else ''} / torch.ops {b[:2]} {b[2] if b[0] == 'raise' else ''}")
    mode_cls = getattr(torch.overrides, "TorchFunctionMode", None)
    if mode_cls is not None:
        class Count(mode_cls):
            seen = 0

            def __torch_function__(self, func, types, args=(), kwargs=None):
                Count.seen += 1
                return func(*args, **(kwargs or {}))

        counts = []
        for f in (entry, plain):
            Count.seen = 0
            with Count():
                f(x, alpha=0.5)
            counts.append(Count.seen)
        record("entry-fallback torch-function-mode", counts[0] == counts[1], f"calls the mode saw: entry {counts[0]}, torch.ops {counts[1]}")
    xg = x.clone().requires_grad_()
    entry(xg, alpha=0.25).sum().backward()
    g1 = xg.grad.clone()
    xg.grad = None
    plain(xg, alpha=0.25).sum().backward()
    record("entry-fallback autograd", torch.equal(g1, xg.grad), f"{g1} / {xg.grad}")
    with torch.inference_mode():
        y = entry(x, alpha=0.5)
    record("entry-fallback inference-mode", y.is_inference(), "the output of a call in inference mode is an inference tensor")
    # torch.ops' packet calls an entry Op that falls back to the packet's own builtin; it answers for
    # that builtin's attributes, its hash is stable, and TorchScript still knows it as the builtin.
    packet = torch.ops.opforge.custom_relu
    fast = packet._op
    builtin = fast.fallback
    sub_a, sub_b = outcome(lambda: packet(x.as_subclass(Sub), alpha=0.5)), outcome(lambda: builtin(x.as_subclass(Sub), alpha=0.5))
    bad_a, bad_b = outcome(lambda: packet(x, alpha="s")), outcome(lambda: builtin(x, alpha="s"))
    attrs_same = all(getattr(fast, k) == getattr(builtin, k) for k in ("__name__", "__qualname__"))
    global _PACKET
    _PACKET = packet
    scripted = outcome(lambda: torch.jit.script(_scripted_packet)(x))
    script_ok = scripted[0] == "ok" and torch.equal(scripted[2], plain(x))
    record("entry-fallback torch.ops", type(fast) is type(entry) and builtin is not plain and same(sub_a, sub_b) and same(bad_a, bad_b)
           and attrs_same and hash(packet) == hash(fast) and script_ok,
           f"routed {type(fast).__name__}, subclass {sub_a[:2]} / {sub_b[:2]}, bad attr {bad_a[:2]} / {bad_b[:2]}, attributes {attrs_same}, script {scripted[:2]}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", help="compiled extension (libopforge_torch.so) to load and check")
    ap.add_argument("--dynamo", action="store_true", help="also check the dynamo exporter (torch >= 2.5, onnx >= 1.16)")
    ap.add_argument("--compile", action="store_true", help="also torch.library.opcheck and torch.compile (torch >= 2.4)")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--save-models", help="directory for the exported legacy models with inputs and outputs (.npz)")
    ap.add_argument("--no-legacy", action="store_true")
    ap.add_argument("--ops", help="specs dir of the ops to check (default: whatever opforge_ops is on PYTHONPATH)")
    ap.add_argument("--out", help="generated out/ dir of --ops (its python/ holds opforge_ops)")
    args = ap.parse_args()
    use_ops(args.ops, args.out)

    os.environ.setdefault("OPFORGE_TORCH_NO_EXTENSION", "1")  # load only what --library names
    import opforge_ops as oo

    if args.library:
        oo.load_library(args.library)
    print(f"torch {torch.__version__}, onnx {onnx.__version__}, extension {oo.extension_path()}, entry {oo.entry_path()}", flush=True)
    want_entry = bool(args.library) and not os.environ.get("OPFORGE_TORCH_NO_ENTRY")
    if want_entry:  # a build that could not make it says why in its CMake output
        record("entry-built", oo.entry_path() is not None, oo.entry_path() or "no opforge_torch_py beside the library")
    if args.save_models:
        os.makedirs(args.save_models, exist_ok=True)

    for name, op in oo.OPS.items():
        fn = getattr(oo, op.snake)
        record(f"backend {name}", oo.backend(name) == ("extension" if args.library else "reference"), oo.backend(name))
        if any(i.variadic for i in op.inputs):
            # This checker builds one tensor per input; opforge test's torch, ort-legacy and
            # ort-dynamo columns run the members (test/torch.test.ts, its variadic fixture).
            skip(name, "a variadic input: its members are checked by opforge test's torch and export columns")
            continue
        for k, case in enumerate(op.tests):
            tag = f"{name}#{k}"
            try:
                attrs = dict(case.attributes)
                full_attrs = {a.name: attrs.get(a.name, a.default) for a in op.attributes}
                cpu_inputs = make_inputs(op, case, "cpu")
                want = as_tuple(op.reference(*cpu_inputs, **full_attrs))
                on_device = not (args.library and args.device != "cpu" and not has_device_kernel(op, args.device))
                if not on_device:
                    skip(f"{tag} ({args.device})", "the extension has no kernel for this device (no kernels.cuda): parity and compile checks skipped")
                if args.library and on_device:
                    got = as_tuple(fn(*make_inputs(op, case, args.device), **attrs))
                    for o, g, w in zip(op.outputs, got, want):
                        record(f"parity {tag} {o.name} ({args.device})", close(g, w, case.rtol, case.atol),
                               f"max abs diff {float((g.cpu().double() - w.double()).abs().max()) if g.shape == w.shape and g.numel() else 'n/a'}")
                    if want_entry:
                        entry_case(tag, op, fn, case, attrs, args.device)
                if args.compile and on_device:
                    compile_checks(tag, op, fn, case, attrs, full_attrs, args.device, oo)
                # numpy (the .npz next to a saved model) has no bfloat16: such cases are exported, not saved.
                savable = args.save_models and not any(t is not None and t.dtype == torch.bfloat16 for t in cpu_inputs + list(want))
                if args.save_models and not savable:
                    skip(f"save-models {tag}", "bfloat16 tensors cannot be saved in .npz (numpy has no bfloat16)")
                if not args.no_legacy:
                    path = os.path.join(args.save_models, f"{op.snake}.case{k}.onnx") if savable else None
                    model = legacy_export(op, fn, cpu_inputs, attrs, path)
                    if path:
                        np.savez(path[:-5] + ".npz",
                                 **{f"in_{i.name}": t.numpy() for i, t in zip(op.inputs, cpu_inputs) if t is not None},
                                 **{f"out_{o.name}": w.numpy() for o, w in zip(op.outputs, want)},
                                 rtol=case.rtol, atol=case.atol)
                    node = check_node(f"legacy {tag}", op, model, full_attrs, oo)
                    onnx.checker.check_model(model)
                    if node is not None:
                        check_shapes(f"legacy {tag}", oo.infer_shapes(model), node, want, symbolic_ok=True)
                if args.dynamo:
                    dyn_inputs, model = grown_or_plain(op, case, "cpu", lambda ins: (ins, dynamo_export(op, fn, ins, attrs, oo)))
                    dyn_want = as_tuple(op.reference(*dyn_inputs, **full_attrs))
                    if savable:
                        base = os.path.join(args.save_models, f"{op.snake}.case{k}.dynamo")
                        onnx.save(model, base + ".onnx")
                        np.savez(base + ".npz",
                                 **{f"in_{i.name}": t.numpy() for i, t in zip(op.inputs, dyn_inputs) if t is not None},
                                 **{f"out_{o.name}": w.numpy() for o, w in zip(op.outputs, dyn_want)},
                                 rtol=case.rtol, atol=case.atol)
                    node = check_node(f"dynamo {tag}", op, model, full_attrs, oo)
                    onnx.checker.check_model(model, full_check=True)
                    record(f"checker-full {tag}", True)
                    if node is not None:
                        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
                        check_shapes(f"dynamo {tag}", inferred, node, dyn_want, symbolic_ok=True)
                        # An output sized by attributes or constants only must come out static. One that
                        # reads a dynamic input dim is symbolic unless torch's guards specialized it
                        # (the op's shape checks tie inputs' dims together, which can pin them): required
                        # symbolic for the seed ops, whose dims are untied; either is right elsewhere.
                        # The outputs the node has (`present:`, a variadic output's members).
                        present = [o.name in output_names(op, full_attrs) for o in op.outputs]
                        want_sym = [w for w, p in zip(symbolic_outputs(op, dyn_inputs, full_attrs), present) if p]
                        reads_dims = [r for r, p in zip(reads_input_dims(op, dyn_inputs, full_attrs), present) if p]
                        got = [[d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim] for vi in inferred.graph.output]
                        strict = SEED_OPS <= set(oo.OPS)
                        sym_ok = len(got) == len(want_sym) and all(
                            all(isinstance(d, int) for d in g) if not r else (any(isinstance(d, str) for d in g) or not (strict and w))
                            for g, w, r in zip(got, want_sym, reads_dims))
                        record(f"symbolic {tag}", sym_ok, f"{got}; symbolic expected: {want_sym}")
            except Exception as e:  # noqa: BLE001
                traceback.print_exc()
                record(f"case {tag}", False, f"{type(e).__name__}: {e}")
    if SEED_OPS <= set(oo.OPS):  # the seed project
        error_checks(oo)
        if want_entry:
            entry_fallback_checks(oo)
    print(json.dumps(results), flush=True)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
