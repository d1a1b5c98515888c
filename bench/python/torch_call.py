"""The PyTorch call path: the generated function opforge_ops.<op>(x) against the same op
called as torch.ops.opforge.<op>(x) and against torch's own op, per call, on small tensors where
the call overhead dominates. Prints a Markdown table (median of --repeat runs of --calls calls).

    PYTHONPATH=out/python python3 bench/python/torch_call.py --library build/torch/libopforge_torch.so [--device cpu|cuda]
"""
import argparse
import os
import statistics
import time

import torch


def per_call_us(fns, calls, repeat, sync):
    """Median µs per call of each fn; the fns take turns batch by batch, so drift in the
    machine's speed (a shared 2-core box) hits them alike."""
    for fn in fns:
        for _ in range(200):
            fn()
    sync()
    runs = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            sync()
            runs[k].append((time.perf_counter() - t0) / calls * 1e6)
    return [statistics.median(r) for r in runs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--calls", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--n", type=int, default=1000)
    args = ap.parse_args()
    os.environ["OPFORGE_TORCH_NO_EXTENSION"] = "1"
    import opforge_ops as oo
    oo.load_library(args.library)
    dev = args.device
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    x = torch.rand(args.n, device=dev) * 2 - 1
    a, b = torch.rand(args.n, device=dev), torch.rand(args.n, device=dev)
    ops = torch.ops.opforge
    aten = torch.ops.aten
    # The last column is torch's own op called the way a custom op is (torch.ops): the entry's
    # share of the gap to torch's Python binding.
    rows = [
        ("custom_relu", lambda: oo.custom_relu(x), lambda: ops.custom_relu(x), lambda: torch.relu(x), "torch.relu", lambda: aten.relu(x)),
        ("leaky_relu", lambda: oo.leaky_relu(x, alpha=0.1), lambda: ops.leaky_relu(x, alpha=0.1), lambda: torch.nn.functional.leaky_relu(x, 0.1), "F.leaky_relu", lambda: aten.leaky_relu(x, 0.1)),
        ("my_add", lambda: oo.my_add(a, b), lambda: ops.my_add(a, b), lambda: torch.add(2 * a, b), "torch.add(2a, b)", lambda: aten.add(2 * a, b)),
    ]
    print(f"torch {torch.__version__}, {dev}, {args.n} elements, median of {args.repeat} x {args.calls} calls (backend {oo.backend('CustomRelu')}, "
          f"Python entry {'yes' if oo.entry_path() else 'no'})")
    print("| op | opforge_ops (µs) | torch.ops (µs) | torch (µs) | torch's op via torch.ops.aten (µs) | wrapper / torch.ops | wrapper / torch | torch.ops / torch | torch.ops.aten / torch |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, wrapped, direct, native, native_name, aten_op in rows:
        w, d, t, e = per_call_us([wrapped, direct, native, aten_op], args.calls, args.repeat, sync)
        print(f"| {name} | {w:.2f} | {d:.2f} | {t:.2f} ({native_name}) | {e:.2f} | {w / d:.2f}x | {w / t:.2f}x | {d / t:.2f}x | {e / t:.2f}x |")


if __name__ == "__main__":
    main()
