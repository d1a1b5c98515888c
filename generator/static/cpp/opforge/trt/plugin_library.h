// The plugin library's creator lists over the ops' descriptors: what getCreators (TensorRT 10+)
// and getPluginCreators (8.x) in the generated plugin_library.cpp return. One creator of each
// kind per op, each a function-local static, so loading the library never registers anything.
#pragma once

#include <cstdint>
#include <tuple>

#include "opforge/trt/common.h"
#include "opforge/trt/plugin_v2.h"
#include "opforge/trt/plugin_v3.h"

namespace opforge {
namespace trt {

#if NV_TENSORRT_MAJOR >= 10
/** Every creator: the IPluginV3 one under each op's name, then the V2 ones under Paddle's names. */
template <class... Ops>
nvinfer1::IPluginCreatorInterface* const* creatorsV3(int32_t& nbCreators) {
  static std::tuple<CreatorV3<Ops>...> v3;
  OPFORGE_TRT_V2_BEGIN
  static std::tuple<PaddleDynamicCreator<Ops>...> paddleDynamic;
  static std::tuple<PaddleStaticCreator<Ops>...> paddleStatic;
  static nvinfer1::IPluginCreatorInterface* const kCreators[] = {
      &std::get<CreatorV3<Ops>>(v3)..., &std::get<PaddleDynamicCreator<Ops>>(paddleDynamic)...,
      &std::get<PaddleStaticCreator<Ops>>(paddleStatic)...};
  OPFORGE_TRT_V2_END
  nbCreators = static_cast<int32_t>(sizeof(kCreators) / sizeof(kCreators[0]));
  return kCreators;
}
#else
/** TensorRT 8.x: the IPluginV2DynamicExt creator under each op's name, then the Paddle-named ones. */
template <class... Ops>
nvinfer1::IPluginCreator* const* creatorsV2(int32_t& nbCreators) {
  static std::tuple<OpCreatorV2<Ops>...> v2;
  static std::tuple<PaddleDynamicCreator<Ops>...> paddleDynamic;
  static std::tuple<PaddleStaticCreator<Ops>...> paddleStatic;
  static nvinfer1::IPluginCreator* const kCreators[] = {
      &std::get<OpCreatorV2<Ops>>(v2)..., &std::get<PaddleDynamicCreator<Ops>>(paddleDynamic)...,
      &std::get<PaddleStaticCreator<Ops>>(paddleStatic)...};
  nbCreators = static_cast<int32_t>(sizeof(kCreators) / sizeof(kCreators[0]));
  return kCreators;
}
#endif

}  // namespace trt
}  // namespace opforge
