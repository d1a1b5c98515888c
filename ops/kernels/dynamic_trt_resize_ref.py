"""DynamicTRTResize in plain PyTorch: bicubic interpolation to size_tensor's H and W, exactly
torch.nn.functional.interpolate(mode="bicubic") (A = -0.75, border-clamped taps)."""
import torch
import torch.nn.functional as F


def reference(input: torch.Tensor, size_tensor: torch.Tensor, *, align_corners: bool = False) -> torch.Tensor:
    size = (size_tensor.shape[2], size_tensor.shape[3])
    # CPU bicubic has no half kernel in older PyTorch: compute in float32 like the kernels do.
    x = input.float() if input.dtype == torch.float16 else input
    return F.interpolate(x, size=size, mode="bicubic", align_corners=align_corners).to(input.dtype)
