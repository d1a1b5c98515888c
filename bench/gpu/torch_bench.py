# Torch baselines for bench/gpu, same sizes and method as cuda_bench.cu:
# CUDA events, median of 20 after warm-up. Prints "name <median ms> <GB/s>".
import torch
import torch.nn.functional as F

def median_ms(f, reps=20):
    for _ in range(3):
        f()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]

n = 1 << 28
x = torch.rand(n, device='cuda') * 2 - 1
y = torch.empty_like(x)
gb = 2 * n * 4
def rep(name, ms, b):
    print(f"{name} {ms:.4f} {b / (ms * 1e-3) / 1e9 if b else 0:.1f}")
rep('torch_copy_d2d', median_ms(lambda: y.copy_(x)), gb)
rep('torch_relu', median_ms(lambda: torch.relu(x, out=y) if False else torch.nn.functional.relu(x)), gb)
rep('torch_leaky_relu', median_ms(lambda: F.leaky_relu(x, 0.01)), gb)
img = x[: 8 * 3 * 256 * 256].view(8, 3, 256, 256)
rep('torch_bicubic_8x3x256x256_to_512', median_ms(lambda: F.interpolate(img, size=(512, 512), mode='bicubic', align_corners=False)), 4.0 * 8 * 3 * (256 * 256 + 512 * 512))
pts = x[: 16384 * 3].view(16384, 3)
q = x[: 4096 * 3].view(4096, 3)
def knn(k):
    # per-batch cdist + topk, the reference a PyTorch user would write
    for (p0, p1), (q0, q1) in (((0, 8192), (0, 2048)), ((8192, 16384), (2048, 4096))):
        d = torch.cdist(q[q0:q1], pts[p0:p1]).pow_(2)
        torch.topk(d, k, dim=1, largest=False)
for k in (16, 64, 128, 256, 512, 1024):
    rep(f'torch_cdist_topk_16384pts_4096q_k{k}', median_ms(lambda: knn(k)), 0)
