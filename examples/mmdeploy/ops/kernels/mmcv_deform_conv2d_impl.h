// MMCVDeformConv2d computes through MMCVModulatedDeformConv2d's element() (shared with its CPU and
// CUDA kernels) with no mask and no bias: the same sampling (MMCV's deformable_im2col_bilinear and
// dmcn_im2col_bilinear agree), the same offset layout, the same (W, H) reading of the attributes.
#pragma once

#include "mmcv_modulated_deform_conv2d_impl.h"
#include "opforge/ops/mmcv_deform_conv2d.h"

namespace opforge {
namespace ops {
namespace mmcv_deform_conv2d {

namespace dcn = ::opforge::ops::mmcv_modulated_deform_conv2d;

/** Index 0 of stride, padding and dilation is W, index 1 H, as the plugin reads them (of 4 padding values too). */
inline dcn::Params params(const Attrs& a, const Shape& input, const Shape& weight, const Shape& output) {
  return dcn::Params{input[1],      input[2],      input[3], weight[0], weight[2],   weight[3],
                     output[2],     output[3],     a.stride[1], a.stride[0], a.padding[1], a.padding[0],
                     a.dilation[1], a.dilation[0], a.groups, a.deform_groups};
}

}  // namespace mmcv_deform_conv2d
}  // namespace ops
}  // namespace opforge
