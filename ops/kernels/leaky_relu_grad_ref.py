"""LeakyReluGrad in plain PyTorch: the gradient of LeakyRelu (what autograd gives for its reference)."""
import torch


def reference(grad_output: torch.Tensor, input: torch.Tensor, *, alpha: float = 0.01) -> torch.Tensor:
    return torch.where(input >= 0, grad_output, grad_output * alpha)
