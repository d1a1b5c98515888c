"""grid_sampler in plain PyTorch: torch.nn.functional.grid_sample with the plugin's integer modes
(0 bilinear, 1 nearest; 0 zeros, 1 border, 2 reflection), 4-D and 5-D alike."""
import torch
import torch.nn.functional as F

_MODES = ("bilinear", "nearest")
_PADDING = ("zeros", "border", "reflection")


def reference(input: torch.Tensor, grid: torch.Tensor, *, interpolation_mode: int = 0, padding_mode: int = 0,
              align_corners: int = 0) -> torch.Tensor:
    return F.grid_sample(input, grid, mode=_MODES[interpolation_mode], padding_mode=_PADDING[padding_mode],
                         align_corners=bool(align_corners))
