# The ONNX Runtime custom-op library of an opforge project, included by the generated
# out/ort/CMakeLists.txt, which lists the project's ops (opforge_ort_add_op(<op> [CUDA]) each), then
# calls opforge_ort_finish(). Builds opforge_ort_ops (an OBJECT library of every op's OrtCustomOp
# instances) and opforge_ort, the custom-op library (RegisterCustomOps), which needs the ORT headers
# only: it calls the API the runtime hands it and links no libonnxruntime.
#
# Configure from out/ with
#   cmake -S out -B build -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_ROOT=/path/to/onnxruntime [-DWITH_CUDA=ON]
# ONNXRUNTIME_ROOT holds include/ (or include/onnxruntime/) with onnxruntime_cxx_api.h; or set
# ONNXRUNTIME_INCLUDE_DIR to the directory holding the headers. The library links no libonnxruntime.

set(ONNXRUNTIME_ROOT "$ENV{ONNXRUNTIME_ROOT}" CACHE PATH "ONNX Runtime install root (holds include/ and lib/)")

find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_cxx_api.h HINTS "${ONNXRUNTIME_ROOT}" PATH_SUFFIXES include include/onnxruntime include/onnxruntime/core/session)
if(NOT ONNXRUNTIME_INCLUDE_DIR)
  message(FATAL_ERROR "onnxruntime_cxx_api.h not found: set ONNXRUNTIME_ROOT or ONNXRUNTIME_INCLUDE_DIR")
endif()
file(STRINGS "${ONNXRUNTIME_INCLUDE_DIR}/onnxruntime_c_api.h" _opforge_ort_api REGEX "^#define ORT_API_VERSION [0-9]+")
message(STATUS "opforge: ONNX Runtime headers in ${ONNXRUNTIME_INCLUDE_DIR} (${_opforge_ort_api})")

# ORT headers are SYSTEM includes: warnings in them are not ours; our code builds with -Werror.
add_library(opforge_ort_headers INTERFACE)
target_include_directories(opforge_ort_headers SYSTEM INTERFACE "${ONNXRUNTIME_INCLUDE_DIR}")
target_include_directories(opforge_ort_headers INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
target_link_libraries(opforge_ort_headers INTERFACE opforge_core)

# Every op's unit <op>/<op>_ort.cpp in one OBJECT library, compiled in unity batches: the op base
# and the ORT C++ API it includes are most of a unit's time, so a batch compiles them once (each
# op's code lives in its own namespace, so batches compile). OPFORGE_ORT_UNITY_BATCH=1 compiles
# each op alone; OPFORGE_ORT_PCH precompiles those headers once for every unit or batch.
set(OPFORGE_ORT_UNITY_BATCH 4 CACHE STRING "Op units per unity batch of the ONNX Runtime library (1: one per op)")
option(OPFORGE_ORT_PCH "Precompile the ONNX Runtime headers once for every op unit" OFF)
add_library(opforge_ort_ops OBJECT)
target_link_libraries(opforge_ort_ops PUBLIC opforge_ort_headers)
set_target_properties(opforge_ort_ops PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
target_compile_options(opforge_ort_ops PRIVATE ${OPFORGE_WARNINGS})
if(WITH_CUDA)
  # Read only by the units of ops with a CUDA kernel (the others have no CUDA path to switch on).
  target_compile_definitions(opforge_ort_ops PRIVATE OPFORGE_ORT_WITH_CUDA)
  # The CUDA EP's scratch for outputs with a dim the kernel decides calls the runtime API.
  target_link_libraries(opforge_ort_ops PRIVATE CUDA::cudart)
endif()
if(OPFORGE_ORT_UNITY_BATCH GREATER 1)
  set_target_properties(opforge_ort_ops PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${OPFORGE_ORT_UNITY_BATCH})
endif()
if(OPFORGE_ORT_PCH)
  target_precompile_headers(opforge_ort_ops PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include/opforge/ort/custom_op.h")
endif()

set(OPFORGE_ORT_OBJECTS $<TARGET_OBJECTS:opforge_ort_ops>)

# opforge_ort_add_op(<snake_name> [CUDA]): the op's unit <op>/<op>_ort.cpp and its kernel objects
# (and, with WITH_CUDA, its CUDA kernel when it has one).
function(opforge_ort_add_op name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CUDA" "" "")
  target_sources(opforge_ort_ops PRIVATE ${name}/${name}_ort.cpp)
  set(objects ${OPFORGE_ORT_OBJECTS} $<TARGET_OBJECTS:opforge_${name}_cpu>)
  if(WITH_CUDA AND ARG_CUDA)
    list(APPEND objects $<TARGET_OBJECTS:opforge_${name}_cuda>)
  endif()
  set(OPFORGE_ORT_OBJECTS ${objects} PARENT_SCOPE)
endfunction()

# opforge_ort_finish(): the library.
function(opforge_ort_finish)
  add_library(opforge_ort SHARED custom_ops.cpp ${OPFORGE_ORT_OBJECTS})
  target_link_libraries(opforge_ort PRIVATE opforge_ort_headers)
  target_compile_options(opforge_ort PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${OPFORGE_WARNINGS}>)
  set_target_properties(opforge_ort PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  {{outputName}}
  if(WITH_CUDA)
    target_link_libraries(opforge_ort PRIVATE CUDA::cudart)
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # Every symbol resolved at link time: proves the library needs nothing from libonnxruntime.
    target_link_options(opforge_ort PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()
