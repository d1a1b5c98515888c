"""MMCVMultiLevelRotatedRoiAlign in plain PyTorch: the plugin's rotated_roi_extractor_kernel written
out, one RoI at a time. The level comes from the unscaled RoI (MMRotate's map_roi_levels),
roi_scale_factor multiplies its width and height after, then MMCV's rotated RoI Align samples that
level at 1 / its stride, the RoI kept at least 1 x 1 (aligned too, as the plugin does); float32
arithmetic, the kernel's fma calls (one rounding of a float64 sum), bilinear samples as MMDeploy's
bilinear_interpolate (0 beyond one pixel outside the map, clamped inside it)."""
import math

import torch

F32 = torch.float32


def _f32(v) -> torch.Tensor:
    return torch.tensor(v, dtype=F32)


def _fma(a: torch.Tensor, b: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
    """fmaf of float32 tensors: their product is exact in float64, so only the sum rounds."""
    return (a.double() * b.double() + c.double()).to(F32)


def _bilinear(plane: torch.Tensor, y: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """plane [C, H, W] at the points (y, x) (1-D, same length): [C, len]."""
    _, h, w = plane.shape
    outside = (y < -1.0) | (y > h) | (x < -1.0) | (x > w)
    y = y.clamp(0, h - 1)
    x = x.clamp(0, w - 1)
    y0, x0 = y.floor().long(), x.floor().long()
    y1, x1 = y.ceil().long(), x.ceil().long()
    ly, lx = y - y0.to(F32), x - x0.to(F32)
    v1, v2, v3, v4 = plane[:, y0, x0], plane[:, y0, x1], plane[:, y1, x0], plane[:, y1, x1]
    low = _fma(v2 - v1, lx, v1)
    high = _fma(v4 - v3, lx, v3)
    val = _fma(high - low, ly, low)
    return torch.where(outside, torch.zeros_like(val), val)


def _level(w: torch.Tensor, h: torch.Tensor, finest_scale: int, levels: int) -> int:
    """floor(log2(sqrt(w * h) / finest_scale + 1e-6)) clamped to the levels; the 1e-6 is added in float64."""
    scale = torch.sqrt(w * h)
    lvl = torch.floor(torch.log2((scale / _f32(finest_scale)).double().add(1e-6).to(F32))).item()
    if not lvl > 0:  # negative, or NaN for a RoI of negative area (CUDA converts NaN to 0)
        return 0
    return min(int(lvl), levels - 1)


def _check(rois: torch.Tensor, feats, strides) -> None:
    op = "MMCVMultiLevelRotatedRoiAlign"
    if len(strides) < len(feats):
        raise ValueError(f"{op}: {len(feats)} feature maps but {len(strides)} featmap_strides")
    if len(feats) > 10:
        raise ValueError(f"{op}: {len(feats)} feature maps; the plugin holds at most 10")
    n, c = feats[0].shape[:2]
    for i, f in enumerate(feats):
        if tuple(f.shape[:2]) != (n, c):
            raise ValueError(f"{op}: feature map {i} is {list(f.shape)}, map 0 is {list(feats[0].shape)}")
    for r in range(rois.shape[0]):
        b = rois[r, 0].item()
        if not 0 <= b < n:
            raise ValueError(f"{op}: RoI {r} has batch index {b}, the feature maps have {n}")


def reference(rois: torch.Tensor, feats, *, output_height: int = 7, output_width: int = 7, clockwise: int = 0,
              sampling_ratio: int = 2, featmap_strides, roi_scale_factor: float = -1.0, finest_scale: int = 56,
              aligned: int = 0) -> torch.Tensor:
    _check(rois, feats, featmap_strides)
    c = feats[0].shape[1]
    ph, pw = output_height, output_width
    out = rois.new_zeros((rois.shape[0], c, ph, pw), dtype=F32)
    offset = _f32(-0.5 if aligned else 0.0)
    for r in range(rois.shape[0]):
        b = int(rois[r, 0].item())
        cx, cy, w, h, theta = rois[r, 1:].to(F32).unbind()
        lvl = _level(w, h, finest_scale, len(feats))
        if roi_scale_factor > 0:
            w, h = w * _f32(roi_scale_factor), h * _f32(roi_scale_factor)
        scale = (1.0 / _f32(featmap_strides[lvl]).double()).to(F32)  # divided in float64, kept as float32
        center_w, center_h = _fma(cx, scale, offset), _fma(cy, scale, offset)
        roi_w, roi_h = torch.clamp(w * scale, min=1.0), torch.clamp(h * scale, min=1.0)
        if clockwise > 0:
            theta = -theta
        bin_h, bin_w = roi_h / ph, roi_w / pw
        gh = sampling_ratio if sampling_ratio > 0 else int(math.ceil(bin_h.item()))
        gw = sampling_ratio if sampling_ratio > 0 else int(math.ceil(bin_w.item()))
        # sample (i, iy) of bin row i at fma(i, bin, -roi / 2) + (iy + .5) * bin / grid, as nvcc compiles it
        ys = _fma(torch.arange(ph, dtype=F32), bin_h, -roi_h / 2)[:, None] + \
            (torch.arange(gh, dtype=F32) + 0.5)[None, :] * bin_h / gh  # [ph, gh]
        xs = _fma(torch.arange(pw, dtype=F32), bin_w, -roi_w / 2)[:, None] + \
            (torch.arange(gw, dtype=F32) + 0.5)[None, :] * bin_w / gw  # [pw, gw]
        yy = ys.reshape(ph, gh, 1, 1).expand(ph, gh, pw, gw).reshape(-1)
        xx = xs.reshape(1, 1, pw, gw).expand(ph, gh, pw, gw).reshape(-1)
        cos_t, sin_t = torch.cos(theta), torch.sin(theta)
        # turned by theta (counterclockwise) about the center
        y = yy * cos_t - xx * sin_t + center_h
        x = yy * sin_t + xx * cos_t + center_w
        vals = _bilinear(feats[lvl][b].to(F32), y, x).reshape(c, ph, gh, pw, gw)
        out[r] = vals.sum(dim=(2, 4)) / max(gh * gw, 1)
    return out
