# The ONNX Runtime custom-op library of an opforge project, included by the generated
# out/ort/CMakeLists.txt, which lists the project's ops (opforge_ort_add_op(<op> [CUDA]) each), then
# calls opforge_ort_finish(). Builds opforge_ort_<op> (per-op OBJECT libraries: the op's OrtCustomOp
# instances) and opforge_ort, the custom-op library (RegisterCustomOps), which needs the ORT headers
# only: it calls the API the runtime hands it and links no libonnxruntime.

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

# The op base and the ORT C++ API it includes (after ORT_API_MANUAL_INIT) are about 0.6 s of each
# op unit's 1.4 s: they are precompiled once, in a target of their own, and every op unit reuses
# them (-DOPFORGE_ORT_PCH=OFF: without).
option(OPFORGE_ORT_PCH "Precompile the ONNX Runtime headers once for every op unit" ON)
if(OPFORGE_ORT_PCH)
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/opforge_ort_pch.cpp" CONTENT "// The unit that owns the precompiled ONNX Runtime headers.\n")
  add_library(opforge_ort_pch OBJECT "${CMAKE_CURRENT_BINARY_DIR}/opforge_ort_pch.cpp")
  target_link_libraries(opforge_ort_pch PUBLIC opforge_ort_headers)
  set_target_properties(opforge_ort_pch PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(opforge_ort_pch PRIVATE ${OPFORGE_WARNINGS})
  target_precompile_headers(opforge_ort_pch PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include/opforge/ort/custom_op.h")
endif()

set(OPFORGE_ORT_OBJECTS)
set(OPFORGE_ORT_UNITS)

# opforge_ort_add_op(<snake_name> [CUDA]): the op's unit <op>/<op>_ort.cpp with its kernel objects
# (and, with WITH_CUDA, its CUDA kernel when it has one).
function(opforge_ort_add_op name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CUDA" "" "")
  set(unit opforge_ort_${name})
  add_library(${unit} OBJECT ${name}/${name}_ort.cpp)
  target_link_libraries(${unit} PUBLIC opforge_ort_headers)
  set_target_properties(${unit} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${unit} PRIVATE ${OPFORGE_WARNINGS})
  set(objects ${OPFORGE_ORT_OBJECTS} $<TARGET_OBJECTS:${unit}> $<TARGET_OBJECTS:opforge_${name}_cpu>)
  if(WITH_CUDA AND ARG_CUDA)
    target_compile_definitions(${unit} PRIVATE OPFORGE_ORT_WITH_CUDA)
    list(APPEND objects $<TARGET_OBJECTS:opforge_${name}_cuda>)
  endif()
  set(OPFORGE_ORT_OBJECTS ${objects} PARENT_SCOPE)
  set(OPFORGE_ORT_UNITS ${OPFORGE_ORT_UNITS} ${unit} PARENT_SCOPE)
endfunction()

# opforge_ort_finish(): every unit reuses the precompiled headers; the library.
function(opforge_ort_finish)
  if(OPFORGE_ORT_PCH)
    foreach(unit IN LISTS OPFORGE_ORT_UNITS)
      target_precompile_headers(${unit} REUSE_FROM opforge_ort_pch)
    endforeach()
  endif()

  add_library(opforge_ort SHARED custom_ops.cpp ${OPFORGE_ORT_OBJECTS})
  target_link_libraries(opforge_ort PRIVATE opforge_ort_headers)
  target_compile_options(opforge_ort PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${OPFORGE_WARNINGS}>)
  set_target_properties(opforge_ort PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  if(WITH_CUDA)
    target_link_libraries(opforge_ort PRIVATE CUDA::cudart)
  endif()
  if(CMAKE_SYSTEM_NAME STREQUAL "Linux")
    # Every symbol resolved at link time: proves the library needs nothing from libonnxruntime.
    target_link_options(opforge_ort PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()
