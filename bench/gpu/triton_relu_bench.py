"""The Triton relu against the CUDA C++ relu and torch.relu, side by side on one GPU: float32,
2^28 elements, each the median of --repeat timed calls (CUDA events) after a warm-up, with the
effective bandwidth (one read and one write per element). Both ops come from test/fixtures/triton
(TritonRelu's CUDA kernel is its Triton kernel compiled ahead of time, CudaRelu's a .cu kernel),
built into one PyTorch extension by `opforge test --device cuda`. Prints a Markdown table.

    python3 bench/gpu/triton_relu_bench.py --library test/fixtures/triton/build/torch/libopforge_torch.so
"""
import argparse
import statistics

import torch


def median_ms(fn, repeat):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeat):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--library", required=True)
    ap.add_argument("--log2n", type=int, default=28)
    ap.add_argument("--repeat", type=int, default=50)
    args = ap.parse_args()
    torch.ops.load_library(args.library)
    n = 1 << args.log2n
    x = torch.randn(n, device="cuda", dtype=torch.float32)
    ops = torch.ops.opforge
    runs = {
        "TritonRelu (Triton, ahead of time)": lambda: ops.triton_relu(x, alpha=0.0),
        "CudaRelu (CUDA C++)": lambda: ops.cuda_relu(x, alpha=0.0),
        "torch.relu": lambda: torch.relu(x),
    }
    want = torch.relu(x)
    for name, fn in runs.items():
        assert torch.equal(fn(), want), name
    ms = {name: median_ms(fn, args.repeat) for name, fn in runs.items()}
    base = ms["torch.relu"]
    print(f"| kernel (float32, 2^{args.log2n} elements, {torch.cuda.get_device_name()}) | median ms | GB/s | vs torch.relu |")
    print("|---|---|---|---|")
    for name, t in ms.items():
        print(f"| {name} | {t:.3f} | {2 * 4 * n / t / 1e6:.0f} | {t / base:.3f} |")


if __name__ == "__main__":
    main()
