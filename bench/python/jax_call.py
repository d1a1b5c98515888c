"""The JAX call path: a jitted function calling the generated opforge_jax.<op> (one XLA FFI custom
call into the op's kernel) against the same function calling JAX's own op, per call
(block_until_ready each time, so the time is the call's latency, not the dispatch queue's), on
small arrays where the call overhead dominates; with --torch-library also the same kernel through
the PyTorch extension (the GPU comparison at 2^28 floats, scripts/gpu/jax-check.sh). Prints a
Markdown table (median of --repeat rounds of --calls calls, the variants taking turns round by round).

    python3 bench/python/jax_call.py --package out/jax --library build/jax/jax/libopforge_jax_ops.so [--device cpu|cuda] [--n 1000]
"""
import argparse
import statistics
import sys
import time


def per_call_us(fns, calls, repeat):
    for fn in fns:
        for _ in range(50):
            fn()
    runs = [[] for _ in fns]
    for _ in range(repeat):
        for k, fn in enumerate(fns):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            runs[k].append((time.perf_counter() - t0) / calls * 1e6)
    return [statistics.median(r) for r in runs]


def fmt(us):
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.2f} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--package", required=True)
    ap.add_argument("--library", required=True)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=21)
    ap.add_argument("--torch-library", help="the PyTorch extension (libopforge_torch.so): the same kernel through torch")
    args = ap.parse_args()
    sys.path.insert(0, args.package)
    import jax
    import jax.numpy as jnp

    import opforge_jax as oj

    info = oj.load_library(args.library)
    dev = jax.devices("cpu" if args.device == "cpu" else "gpu")[0]
    x = jax.device_put(jnp.linspace(-1.0, 1.0, args.n, dtype=jnp.float32), dev)
    rows = []
    pairs = [
        ("custom_relu", jax.jit(lambda v: oj.custom_relu(v)), jax.jit(jax.nn.relu), "jax.nn.relu"),
        ("leaky_relu", jax.jit(lambda v: oj.leaky_relu(v, alpha=0.1)), jax.jit(lambda v: jax.nn.leaky_relu(v, 0.1)), "jax.nn.leaky_relu"),
    ]
    # The floor: a jitted function doing next to nothing (x + 0), what any jitted call costs.
    floor = jax.jit(lambda v: v + 0)
    torch_fns = {}
    if args.torch_library:
        import torch

        torch.ops.load_library(args.torch_library)
        tx = torch.linspace(-1.0, 1.0, args.n, dtype=torch.float32, device="cpu" if args.device == "cpu" else "cuda")
        sync = torch.cuda.synchronize if args.device != "cpu" else (lambda: None)

        def relu_torch():
            torch.ops.opforge.custom_relu(tx, alpha=0.0)
            sync()

        torch_fns["custom_relu"] = relu_torch
    for name, ours, theirs, label in pairs:
        want = jax.device_get(theirs(x))
        got = jax.device_get(ours(x))
        assert (got == want).all(), f"{name}: opforge_jax and {label} differ"
        fns = [lambda: ours(x).block_until_ready(), lambda: theirs(x).block_until_ready(), lambda: floor(x).block_until_ready()]
        if name in torch_fns:
            fns.append(torch_fns[name])
        t = per_call_us(fns, args.calls, args.repeat)
        rows.append((name, t, label))
    print(f"jax {jax.__version__}, jaxlib {info['jaxlib']} (XLA FFI API {info['ffi_api'][0]}.{info['ffi_api'][1]}), {dev}, {args.n} float32, "
          f"median of {args.repeat} rounds of {args.calls} calls under jax.jit")
    print()
    head = "| op | opforge_jax | JAX's op | opforge_jax / JAX (target ≤ 1.2) | jitted x + 0 (floor) |" + (" through torch |" if torch_fns else "")
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for name, t, label in rows:
        extra = f" {fmt(t[3])} |" if len(t) > 3 else (" - |" if torch_fns else "")
        print(f"| {name} | {fmt(t[0])} | {fmt(t[1])} ({label}) | {t[0] / t[1]:.2f}x | {fmt(t[2])} |{extra}")


if __name__ == "__main__":
    main()
