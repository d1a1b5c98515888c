"""LeakyRelu in plain PyTorch: the reference the kernels are checked against."""
import torch


def reference(input: torch.Tensor, *, alpha: float = 0.01) -> torch.Tensor:
    return torch.where(input >= 0, input, input * alpha)
