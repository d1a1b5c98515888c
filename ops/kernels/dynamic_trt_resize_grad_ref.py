"""DynamicTRTResizeGrad in plain PyTorch: the gradient torch.nn.functional.interpolate(mode="bicubic")
gives its input (autograd through the forward's reference)."""
import torch
import torch.nn.functional as F


def reference(grad_output: torch.Tensor, input: torch.Tensor, *, align_corners: bool = False) -> torch.Tensor:
    # CPU bicubic has no half kernel in older PyTorch: compute in float32 like the kernels do.
    dt = torch.float32 if grad_output.dtype == torch.float16 else grad_output.dtype
    x = torch.zeros(input.shape, dtype=dt, device=grad_output.device, requires_grad=True)
    with torch.enable_grad():
        y = F.interpolate(x, size=(grad_output.shape[2], grad_output.shape[3]), mode="bicubic", align_corners=align_corners)
        (g,) = torch.autograd.grad(y, x, grad_output.to(dt))
    return g.to(grad_output.dtype)
