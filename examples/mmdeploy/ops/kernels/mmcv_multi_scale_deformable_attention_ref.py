"""MMCVMultiScaleDeformableAttention in plain PyTorch: MMCV's multi_scale_deformable_attn_pytorch
with its F.grid_sample(mode='bilinear', padding_mode='zeros', align_corners=False) written out as
gathers, each level taken at value_level_start_index (as the plugin reads it); float32 arithmetic."""
import torch


def _sample(level: torch.Tensor, h: int, w: int, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """level [bs, h * w, heads, ch] at x, y [bs, q, heads, points] in [0, 1]: [bs, q, heads, points, ch]."""
    bs, _, heads, ch = level.shape
    ix = x * w - 0.5
    iy = y * h - 0.5
    x0, y0 = ix.floor(), iy.floor()
    lx, ly = ix - x0, iy - y0
    x0, y0 = x0.long(), y0.long()
    q, p = x.shape[1], x.shape[3]
    flat = level.permute(0, 2, 1, 3)  # [bs, heads, h * w, ch]

    def tap(yy: torch.Tensor, xx: torch.Tensor) -> torch.Tensor:
        inside = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        idx = (yy.clamp(0, h - 1) * w + xx.clamp(0, w - 1)).permute(0, 2, 1, 3).reshape(bs, heads, q * p, 1)
        v = flat.gather(2, idx.expand(bs, heads, q * p, ch)).reshape(bs, heads, q, p, ch).permute(0, 2, 1, 3, 4)
        return v * inside.unsqueeze(-1)

    lx, ly = lx.unsqueeze(-1), ly.unsqueeze(-1)
    return (tap(y0, x0) * (1 - ly) * (1 - lx) + tap(y0, x0 + 1) * (1 - ly) * lx
            + tap(y0 + 1, x0) * ly * (1 - lx) + tap(y0 + 1, x0 + 1) * ly * lx)


def reference(value: torch.Tensor, value_spatial_shapes: torch.Tensor, value_level_start_index: torch.Tensor,
              sampling_locations: torch.Tensor, attention_weights: torch.Tensor, *, im2col_step: int = 64) -> torch.Tensor:
    del im2col_step  # a batching detail of MMCV's CUDA kernel: no effect on the result
    bs, keys, heads, ch = value.shape
    q = sampling_locations.shape[1]
    out = torch.zeros((bs, q, heads, ch), dtype=torch.float32)
    v = value.float()
    loc = sampling_locations.float()
    weights = attention_weights.float()
    for lvl in range(value_spatial_shapes.shape[0]):
        h, w = (int(s) for s in value_spatial_shapes[lvl].tolist())
        start = int(value_level_start_index[lvl].item())
        if h < 0 or w < 0 or start < 0 or start + h * w > keys:
            raise ValueError(f"MMCVMultiScaleDeformableAttention: level {lvl} ({h} x {w} from key {start}) exceeds {keys} keys")
        if h * w == 0:
            continue
        level = v[:, start:start + h * w]
        sampled = _sample(level, h, w, loc[:, :, :, lvl, :, 0], loc[:, :, :, lvl, :, 1])
        out += (sampled * weights[:, :, :, lvl, :].unsqueeze(-1)).sum(dim=3)
    return out.reshape(bs, q, heads * ch).to(value.dtype)
