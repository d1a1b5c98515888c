"""ScaledDotProductAttentionTRT in plain PyTorch: the forward of MMDeploy's
ScaledDotProductAttentionTRT autograd function (q / sqrt(E), bmm with k^T, + mask, softmax, bmm
with v); returns (output, attn)."""
import math
from typing import Optional

import torch


def reference(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: Optional[torch.Tensor] = None):
    if mask is not None:
        want = (q.shape[0], q.shape[1], k.shape[1])[3 - mask.dim():]
        if any(m not in (1, w) for m, w in zip(mask.shape, want)):
            raise ValueError(f"ScaledDotProductAttentionTRT: mask {list(mask.shape)} does not broadcast to {list(want)}")
    e = q.shape[2]
    attn = torch.bmm(q / math.sqrt(e), k.transpose(-2, -1))
    if mask is not None:
        attn = attn + mask
    attn = attn.softmax(-1)
    return torch.bmm(attn, v), attn
