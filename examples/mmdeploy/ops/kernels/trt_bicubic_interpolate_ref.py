"""TRTBicubicInterpolate in plain PyTorch: the output size the spec states (floor of in * the float32
scale factor, exactly), then PyTorch's bicubic interpolate to that size, which is what MMDeploy's
kernel computes (it derives its scales from the sizes, as interpolate(size=...) does)."""
import fractions
import math

import torch
import torch.nn.functional as F


def _f32(v: float) -> float:
    return float(torch.tensor(float(v), dtype=torch.float32))


def reference(input: torch.Tensor, *, scale_factor, align_corners: int = 1) -> torch.Tensor:
    h, w = input.shape[2], input.shape[3]
    size = tuple(math.floor(fractions.Fraction(_f32(s)) * d) for s, d in zip(scale_factor, (h, w)))
    return F.interpolate(input, size=size, mode="bicubic", align_corners=bool(align_corners))
