"""MMCVRoiAlign in plain PyTorch: MMCV's roi_align forward (the plugin's CUDA kernel) written out,
one RoI at a time; bilinear samples as MMDeploy's bilinear_interpolate (0 beyond one pixel outside
the map, clamped to the border inside it)."""
import math

import torch


def _bilinear(plane: torch.Tensor, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """plane [C, H, W] at the points (y, x) (1-D, same length): [C, len]."""
    _, h, w = plane.shape
    outside = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y = y.clamp(0, h - 1)
    x = x.clamp(0, w - 1)
    y0, x0 = y.floor().long(), x.floor().long()
    y1, x1 = y.ceil().long(), x.ceil().long()
    ly, lx = y - y0, x - x0
    v1, v2, v3, v4 = plane[:, y0, x0], plane[:, y0, x1], plane[:, y1, x0], plane[:, y1, x1]
    low = v1 + (v2 - v1) * lx
    high = v3 + (v4 - v3) * lx
    val = low + (high - low) * ly
    return torch.where(outside, torch.zeros_like(val), val)


def reference(input: torch.Tensor, rois: torch.Tensor, *, output_height: int = 7, output_width: int = 7,
              spatial_scale: float = 1.0, sampling_ratio: int = 0, mode: str, aligned: int = 1) -> torch.Tensor:
    if mode not in ("avg", "max"):
        raise ValueError(f"MMCVRoiAlign: unknown mode {mode!r}")
    n, c, _, _ = input.shape
    ph, pw = output_height, output_width
    out = input.new_zeros((rois.shape[0], c, ph, pw))
    offset = 0.5 if aligned else 0.0
    for r in range(rois.shape[0]):
        b = int(rois[r, 0].item())
        if not 0 <= b < n:
            raise ValueError(f"MMCVRoiAlign: RoI {r} has batch index {b}, input has {n}")
        # float32 arithmetic, in the kernel's order
        x1, y1, x2, y2 = (rois[r, 1:].float() * spatial_scale - offset).unbind()
        rw, rh = x2 - x1, y2 - y1
        if not aligned:
            rw, rh = torch.clamp(rw, min=1.0), torch.clamp(rh, min=1.0)
        bh, bw = rh / ph, rw / pw
        gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil((rh / ph).item()))
        gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil((rw / pw).item()))
        plane = input[b].float()
        for i in range(ph):
            for j in range(pw):
                iy = torch.arange(gh, dtype=torch.float32)
                ix = torch.arange(gw, dtype=torch.float32)
                ys = y1 + i * bh + (iy + 0.5) * bh / gh
                xs = x1 + j * bw + (ix + 0.5) * bw / gw
                yy, xx = torch.meshgrid(ys, xs, indexing="ij")
                vals = _bilinear(plane, yy.reshape(-1), xx.reshape(-1))  # [C, gh * gw]
                if mode == "max":
                    out[r, :, i, j] = vals.max(dim=1).values if vals.shape[1] else -torch.finfo(torch.float32).max
                else:
                    out[r, :, i, j] = vals.sum(dim=1) / max(gh * gw, 1)
    return out
