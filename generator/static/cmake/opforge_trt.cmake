# The TensorRT plugins of an opforge project, included by the generated out/trt/CMakeLists.txt,
# which lists the project's ops (opforge_trt_add_op(<op> [CUDA]) each), then calls
# opforge_trt_finish(). Builds
#   opforge_trt_<op>             per-op OBJECT libraries (the op's plugin translation units),
#   opforge_trt_plugins          the plugin library: getCreators/setLoggerFinder entry points, no
#                                libnvinfer dependency (trtexec --dynamicPlugins, loadLibrary),
#   opforge_trt_plugins_autoreg  the same plugins registered at load time with
#                                REGISTER_TENSORRT_PLUGIN (links libnvinfer; Paddle, ctypes, 8.x trtexec --plugins).
#
# Configure from out/ with
#   cmake -S out -B build -DWITH_CUDA=ON -DWITH_TENSORRT=ON -DTENSORRT_ROOT=/path/to/TensorRT \
#         -DCMAKE_CUDA_ARCHITECTURES="80;90"

set(TENSORRT_ROOT "$ENV{TENSORRT_ROOT}" CACHE PATH "TensorRT install root (holds include/ and lib/)")

if(NOT WITH_CUDA)
  message(FATAL_ERROR "WITH_TENSORRT needs WITH_CUDA=ON: the plugins enqueue the CUDA kernels")
endif()
find_path(TENSORRT_INCLUDE_DIR NvInferRuntime.h HINTS "${TENSORRT_ROOT}/include" "${TENSORRT_ROOT}" PATH_SUFFIXES include/x86_64-linux-gnu include/aarch64-linux-gnu)
if(NOT TENSORRT_INCLUDE_DIR)
  message(FATAL_ERROR "NvInferRuntime.h not found: set TENSORRT_ROOT or TENSORRT_INCLUDE_DIR")
endif()
find_library(TENSORRT_NVINFER_LIBRARY NAMES nvinfer nvinfer_10 HINTS "${TENSORRT_ROOT}/lib" "${TENSORRT_ROOT}/lib64" PATH_SUFFIXES x86_64-linux-gnu aarch64-linux-gnu)
file(STRINGS "${TENSORRT_INCLUDE_DIR}/NvInferVersion.h" _opforge_trt_major REGEX "^#define (NV_TENSORRT_MAJOR|TRT_MAJOR_ENTERPRISE) [0-9]+")
message(STATUS "opforge: TensorRT headers in ${TENSORRT_INCLUDE_DIR} (${_opforge_trt_major})")

# TensorRT headers are SYSTEM includes: warnings in them are not ours; our code builds with -Werror.
add_library(opforge_trt_headers INTERFACE)
target_include_directories(opforge_trt_headers SYSTEM INTERFACE "${TENSORRT_INCLUDE_DIR}")
target_include_directories(opforge_trt_headers INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
target_link_libraries(opforge_trt_headers INTERFACE opforge_core CUDA::cudart)

set(OPFORGE_TRT_OBJECTS)

# opforge_trt_add_op(<snake_name> [CUDA]): the op's plugin units <op>/<op>_plugin_v3.cpp and
# _v2.cpp with its kernel objects (the CUDA one when the op has a CUDA kernel).
function(opforge_trt_add_op name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CUDA" "" "")
  set(unit opforge_trt_${name})
  add_library(${unit} OBJECT ${name}/${name}_plugin_v3.cpp ${name}/${name}_plugin_v2.cpp)
  target_link_libraries(${unit} PUBLIC opforge_trt_headers)
  set_target_properties(${unit} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${unit} PRIVATE ${OPFORGE_WARNINGS})
  set(objects ${OPFORGE_TRT_OBJECTS} $<TARGET_OBJECTS:${unit}> $<TARGET_OBJECTS:opforge_${name}_cpu>)
  if(ARG_CUDA)
    list(APPEND objects $<TARGET_OBJECTS:opforge_${name}_cuda>)
  endif()
  set(OPFORGE_TRT_OBJECTS ${objects} PARENT_SCOPE)
endfunction()

# opforge_trt_finish(): the plugin libraries.
function(opforge_trt_finish)
  add_library(opforge_trt_plugins SHARED plugin_library.cpp ${OPFORGE_TRT_OBJECTS})
  target_link_libraries(opforge_trt_plugins PRIVATE opforge_trt_headers)
  target_compile_options(opforge_trt_plugins PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${OPFORGE_WARNINGS}>)
  set_target_properties(opforge_trt_plugins PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)

  if(TENSORRT_NVINFER_LIBRARY)
    add_library(opforge_trt_plugins_autoreg SHARED register.cpp ${OPFORGE_TRT_OBJECTS})
    target_link_libraries(opforge_trt_plugins_autoreg PRIVATE opforge_trt_headers "${TENSORRT_NVINFER_LIBRARY}")
    target_compile_options(opforge_trt_plugins_autoreg PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${OPFORGE_WARNINGS}>)
  else()
    message(STATUS "opforge: libnvinfer not found; building only the entry-point plugin library")
  endif()
endfunction()
