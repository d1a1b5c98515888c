"""KNNQuery in plain PyTorch: brute-force distances within each batch, nearest first (ties by
index), padded with -1 / +inf where a batch has fewer than nsample points."""
from typing import Tuple

import torch


def reference(xyz: torch.Tensor, offset: torch.Tensor, new_xyz: torch.Tensor, new_offset: torch.Tensor, *,
              nsample: int) -> Tuple[torch.Tensor, torch.Tensor]:
    m = new_xyz.shape[0]
    idx = torch.full((m, nsample), -1, dtype=torch.int32, device=xyz.device)
    dist2 = torch.full((m, nsample), float("inf"), dtype=torch.float32, device=xyz.device)
    begin, qbegin = 0, 0
    for end, qend in zip(offset.tolist(), new_offset.tolist()):
        if qend > qbegin and end > begin:
            d = ((new_xyz[qbegin:qend, None, :] - xyz[None, begin:end, :]) ** 2).sum(-1)
            k = min(nsample, end - begin)
            # A stable sort keeps equal distances in index order, as the kernels do.
            order = torch.sort(d, dim=1, stable=True)
            idx[qbegin:qend, :k] = (order.indices[:, :k] + begin).to(torch.int32)
            dist2[qbegin:qend, :k] = order.values[:, :k]
        begin, qbegin = end, qend
    return idx, dist2
