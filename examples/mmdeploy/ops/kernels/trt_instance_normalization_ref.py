"""TRTInstanceNormalization in plain PyTorch: torch.nn.functional.instance_norm (biased variance,
float32 statistics), then the per-channel scale and bias."""
import torch
import torch.nn.functional as F


def reference(input: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor, *, epsilon: float = 1e-5) -> torch.Tensor:
    out = F.instance_norm(input.float(), weight=scale.float(), bias=bias.float(), eps=epsilon)
    return out.to(input.dtype)
