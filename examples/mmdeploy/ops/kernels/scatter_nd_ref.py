"""ONNX ScatterND (opset 11) in plain PyTorch, as the ONNX operator documentation writes it: copy
data, then write each update at the index row's position, in order."""
import torch


def reference(data: torch.Tensor, indices: torch.Tensor, updates: torch.Tensor) -> torch.Tensor:
    out = data.clone()
    k = indices.shape[-1]
    rows = indices.reshape(-1, k).tolist()
    slices = updates.reshape(len(rows), *data.shape[k:])
    for row, update in zip(rows, slices):
        out[tuple(row)] = update
    return out
