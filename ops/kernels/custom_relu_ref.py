"""CustomRelu in plain PyTorch: the reference the kernels are checked against."""
import torch


def reference(x: torch.Tensor, *, alpha: float = 0.0) -> torch.Tensor:
    return torch.where(x > 0, x, x * alpha)
