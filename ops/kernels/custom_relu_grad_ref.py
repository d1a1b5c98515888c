"""CustomReluGrad in plain PyTorch: the gradient of CustomRelu (what autograd gives for its reference)."""
import torch


def reference(grad_y: torch.Tensor, x: torch.Tensor, *, alpha: float = 0.0) -> torch.Tensor:
    return torch.where(x > 0, grad_y, grad_y * alpha)
