"""DynamicTRTResizeGrad in plain PyTorch: the gradient torch.nn.functional.interpolate(mode="bicubic")
gives its input. Bicubic resizing is separable and linear, y = A_h x A_w^T, so the gradient is
A_h^T g A_w, with A_h and A_w the resize of identity matrices. No autograd: a reference runs as a
torch.library.custom_op's kernel on torch >= 2.4, below autograd, where no graph is recorded."""
import torch
import torch.nn.functional as F


def _matrix(n_in: int, n_out: int, align_corners: bool, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A (n_out x n_in): row i of F.interpolate applied to a length-n_in signal."""
    eye = torch.eye(n_in, dtype=dtype, device=device).reshape(n_in, 1, n_in, 1)
    cols = F.interpolate(eye, size=(n_out, 1), mode="bicubic", align_corners=align_corners)
    return cols.reshape(n_in, n_out).t()


def reference(grad_output: torch.Tensor, input: torch.Tensor, *, align_corners: bool = False) -> torch.Tensor:
    # CPU bicubic has no half kernel in older PyTorch: compute in float32 like the kernels do.
    dt = torch.float32 if grad_output.dtype == torch.float16 else grad_output.dtype
    h, w = input.shape[2], input.shape[3]
    oh, ow = grad_output.shape[2], grad_output.shape[3]
    a_h = _matrix(h, oh, align_corners, dt, grad_output.device)
    a_w = _matrix(w, ow, align_corners, dt, grad_output.device)
    g = a_h.t() @ grad_output.to(dt) @ a_w
    return g.to(grad_output.dtype)
