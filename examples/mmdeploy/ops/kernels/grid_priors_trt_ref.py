"""GridPriorsTRT in plain PyTorch: the forward of MMDeploy's GridPriorsTRTOp (shifts of the base
anchors over a row-major H x W grid)."""
import torch


def reference(base_anchors: torch.Tensor, zero_h: torch.Tensor, zero_w: torch.Tensor, *, stride_h: int = 1,
              stride_w: int = 1) -> torch.Tensor:
    feat_h, feat_w = zero_h.shape[0], zero_w.shape[0]
    shift_x = torch.arange(0, feat_w).to(base_anchors.dtype) * stride_w
    shift_y = torch.arange(0, feat_h).to(base_anchors.dtype) * stride_h
    xx = shift_x.repeat(feat_h)
    yy = shift_y.view(-1, 1).repeat(1, feat_w).view(-1)
    shifts = torch.stack([xx, yy, xx, yy], dim=-1)
    return (base_anchors[None, :, :] + shifts[:, None, :]).reshape(-1, 4)
