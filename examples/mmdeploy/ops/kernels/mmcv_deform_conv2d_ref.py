"""MMCVDeformConv2d in plain PyTorch: MMCV's deformable_im2col (bilinear samples at the offset tap
positions) then the grouped convolution as a matrix product, in float64. Index 0 of stride, padding
and dilation is along W and index 1 along H, as the plugin reads them (of 4 padding values, the
first two)."""
import torch


def _bilinear(x: torch.Tensor, py: torch.Tensor, px: torch.Tensor) -> torch.Tensor:
    """x [N, C, H, W] at positions py, px [N, oh, ow]: [N, C, oh, ow] (deformable_im2col_bilinear)."""
    n, _, h, w = x.shape
    inside = (py > -1) & (px > -1) & (py < h) & (px < w)
    fy, fx = torch.floor(py), torch.floor(px)
    ly, lx = py - fy, px - fx
    y0, x0 = fy.long(), fx.long()
    b = torch.arange(n).view(n, 1, 1).expand_as(y0)

    def tap(yi: torch.Tensor, xi: torch.Tensor, wgt: torch.Tensor) -> torch.Tensor:
        ok = inside & (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
        v = x[b, :, yi.clamp(0, h - 1), xi.clamp(0, w - 1)]  # [N, oh, ow, C]
        return v * (wgt * ok)[..., None]

    val = (tap(y0, x0, (1 - ly) * (1 - lx)) + tap(y0, x0 + 1, (1 - ly) * lx)
           + tap(y0 + 1, x0, ly * (1 - lx)) + tap(y0 + 1, x0 + 1, ly * lx))
    return val.permute(0, 3, 1, 2)


def reference(input, offset, weight, *, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups: int = 1,
              deform_groups: int = 1) -> torch.Tensor:
    dtype = input.dtype
    x, off, wt = (t.double() for t in (input, offset, weight))
    n, c, _, _ = x.shape
    oc, cpg, kh, kw = wt.shape
    sw, sh = stride
    pw, ph = padding[0], padding[1]
    dw, dh = dilation
    oh, ow = off.shape[2], off.shape[3]
    taps = kh * kw
    per_deform = c // deform_groups
    base_y = (torch.arange(oh, dtype=torch.float64) * sh - ph).view(1, oh, 1)
    base_x = (torch.arange(ow, dtype=torch.float64) * sw - pw).view(1, 1, ow)
    cols = torch.zeros(n, c, taps, oh, ow, dtype=torch.float64)
    for dg in range(deform_groups):
        xs = x[:, dg * per_deform:(dg + 1) * per_deform]
        for ky in range(kh):
            for kx in range(kw):
                k = ky * kw + kx
                py = base_y + ky * dh + off[:, dg * 2 * taps + 2 * k]
                px = base_x + kx * dw + off[:, dg * 2 * taps + 2 * k + 1]
                cols[:, dg * per_deform:(dg + 1) * per_deform, k] = _bilinear(xs, py, px)
    cols = cols.reshape(n, groups, cpg * taps, oh * ow)
    w = wt.reshape(groups, oc // groups, cpg * taps)
    return torch.einsum("gok,ngkp->ngop", w, cols).reshape(n, oc, oh, ow).to(dtype)
