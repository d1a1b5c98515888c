"""GatherTopk in plain PyTorch: MMDeploy's TRTGatherTopk.forward (x[batch_inds, inds, ...]) over any
number of batch dims: the batch dims are flattened, the rows picked per batch position, and the
result takes indices' dims followed by data's trailing dims."""
import math

import torch


def reference(data: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    n = indices.dim()
    batch = math.prod(indices.shape[:-1])
    rows = data.reshape(batch, data.shape[n - 1], -1)
    picked = rows[torch.arange(batch).unsqueeze(-1), indices.reshape(batch, -1).long()]
    return picked.reshape(*indices.shape, *data.shape[n:])
