# The Paddle custom-op library of an opforge project, included by the generated
# out/paddle/CMakeLists.txt, which lists the project's ops: opforge_paddle_add_op(<op> [CUDA]) each,
# then opforge_paddle_finish(). Builds {{library}} (every op's PD_BUILD_OP unit and kernels)
# against the paddlepaddle wheel (PADDLE_PYTHON) or a paddle_inference library (LIB_DIR, which adds
# per op an example like Paddle-Inference-Demo's custom_op_test).
#
# Configure from out/ against the paddlepaddle wheel (the library that paddle.utils.cpp_extension
# would build):
#   cmake -S out -B build -DWITH_PADDLE=ON [-DPADDLE_PYTHON=/path/to/venv/bin/python]
# or against a Paddle Inference library, which adds per op an example like Paddle-Inference-Demo's
# custom_op_test (compile.sh sets this up):
#   cmake -S out -B build -DWITH_PADDLE=ON -DLIB_DIR=/path/to/paddle_inference \
#         [-DWITH_GPU=ON -DWITH_CUDA=ON] [-DUSE_TENSORRT=ON -DWITH_TENSORRT=ON -DTENSORRT_ROOT=...]
# Python loads a library built either way with {{package}}.load() (out/paddle/{{package}}.py).

set(LIB_DIR "$ENV{LIB_DIR}" CACHE PATH "Paddle Inference library root (paddle_inference/: paddle/include, paddle/lib, third_party/); empty: the wheel")
set(PADDLE_PYTHON "$ENV{PADDLE_PYTHON}" CACHE FILEPATH "Without LIB_DIR: the Python whose paddlepaddle wheel the ops build against (default: python3 on PATH)")
option(WITH_MKL "The inference library uses MKL (mklml, oneDNN); OFF: OpenBLAS" ON)
option(WITH_GPU "Run the ops on the GPU too: CUDA kernels, PADDLE_WITH_CUDA (needs WITH_CUDA)" OFF)
option(USE_TENSORRT "Paddle-TRT runs the ops as opforge's Paddle-named plugins (needs WITH_GPU, WITH_TENSORRT, TENSORRT_ROOT)" OFF)
set(CUDA_LIB "/usr/local/cuda/lib64" CACHE PATH "Directory holding libcudart")
set(CUDNN_LIB "/usr/lib/x86_64-linux-gnu" CACHE PATH "Directory holding libcudnn")

if(WITH_GPU AND NOT WITH_CUDA)
  message(FATAL_ERROR "WITH_GPU needs WITH_CUDA=ON: the ops' CUDA kernels are built by the project")
endif()
if(USE_TENSORRT AND NOT (WITH_GPU AND TARGET opforge_trt_plugins_autoreg))
  message(FATAL_ERROR "USE_TENSORRT needs WITH_GPU=ON, WITH_TENSORRT=ON and a TENSORRT_ROOT with libnvinfer (out/trt builds the plugins)")
endif()
add_library(opforge_paddle_headers INTERFACE)
target_include_directories(opforge_paddle_headers INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
target_link_libraries(opforge_paddle_headers INTERFACE opforge_core)

if(LIB_DIR)
  set(OPFORGE_PADDLE_FROM_WHEEL OFF)
  if(NOT EXISTS "${LIB_DIR}/paddle/include/paddle/extension.h")
    message(FATAL_ERROR "WITH_PADDLE: LIB_DIR is not a paddle_inference directory (no ${LIB_DIR}/paddle/include/paddle/extension.h)")
  endif()
  # Paddle's headers and the third-party headers they and paddle_inference_api.h include are SYSTEM
  # includes: warnings inside them are not ours; our code builds with -Werror.
  set(_pd_third_party "${LIB_DIR}/third_party/install")
  target_include_directories(opforge_paddle_headers SYSTEM INTERFACE "${LIB_DIR}/paddle/include")
  foreach(_dep protobuf glog gflags xxhash cryptopp utf8proc onnxruntime paddle2onnx)
    if(EXISTS "${_pd_third_party}/${_dep}/include")
      target_include_directories(opforge_paddle_headers SYSTEM INTERFACE "${_pd_third_party}/${_dep}/include")
    endif()
  endforeach()
  target_compile_definitions(opforge_paddle_headers INTERFACE PADDLE_ON_INFERENCE PADDLE_WITH_SHARED_LIB)
  # libpaddle_inference and, where the library splits them out (Paddle 3), libphi*, libcommon.
  file(GLOB OPFORGE_PADDLE_LIBS "${LIB_DIR}/paddle/lib/libpaddle_inference${CMAKE_SHARED_LIBRARY_SUFFIX}"
       "${LIB_DIR}/paddle/lib/libphi*${CMAKE_SHARED_LIBRARY_SUFFIX}" "${LIB_DIR}/paddle/lib/libcommon${CMAKE_SHARED_LIBRARY_SUFFIX}")
else()
  # The wheel, found through the Python that has it, compiled and linked as
  # paddle.utils.cpp_extension does: its include/ and include/third_party, Python's headers
  # (paddle/extension.h reaches pybind11), and libpaddle from paddle/base, linked even unused.
  set(OPFORGE_PADDLE_FROM_WHEEL ON)
  set(_pd_python "${PADDLE_PYTHON}")
  if(NOT _pd_python AND SKBUILD)
    set(_pd_python "${Python3_EXECUTABLE}")  # a wheel's ops are for the Python building it
  endif()
  if(NOT _pd_python)
    find_program(_pd_python_found NAMES python3 python)
    set(_pd_python "${_pd_python_found}")
  endif()
  execute_process(
    COMMAND "${_pd_python}" -c "import os, sysconfig, paddle; print(os.path.dirname(paddle.__file__)); print(sysconfig.get_path('include')); print(paddle.__version__)"
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" RESULT_VARIABLE _pd_rc OUTPUT_VARIABLE _pd_out ERROR_VARIABLE _pd_err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _pd_rc EQUAL 0)
    message(FATAL_ERROR "WITH_PADDLE: no LIB_DIR, and \"${_pd_python}\" cannot import paddle (pip install paddlepaddle, or set PADDLE_PYTHON to a Python that has it):\n${_pd_err}")
  endif()
  string(REPLACE "\n" ";" _pd_out "${_pd_out}")
  list(GET _pd_out -3 _pd_root)
  list(GET _pd_out -2 _pd_python_include)
  list(GET _pd_out -1 _pd_version)
  message(STATUS "Paddle ${_pd_version}: the wheel in ${_pd_root} (${_pd_python})")
  if(USE_TENSORRT)
    message(FATAL_ERROR "USE_TENSORRT runs the ops in Paddle Inference: set LIB_DIR to a paddle_inference library")
  endif()
  target_include_directories(opforge_paddle_headers SYSTEM INTERFACE "${_pd_root}/include" "${_pd_root}/include/third_party" "${_pd_python_include}")
  target_compile_definitions(opforge_paddle_headers INTERFACE PADDLE_WITH_CUSTOM_KERNEL _GLIBCXX_USE_CXX11_ABI=1)
  set(OPFORGE_PADDLE_LIBS -Wl,--no-as-needed "${_pd_root}/base/libpaddle${CMAKE_SHARED_LIBRARY_SUFFIX}" -Wl,--as-needed)
endif()
if(WITH_GPU)
  find_package(CUDAToolkit REQUIRED)
  target_compile_definitions(opforge_paddle_headers INTERFACE PADDLE_WITH_CUDA OPFORGE_PADDLE_WITH_GPU)
  target_link_libraries(opforge_paddle_headers INTERFACE CUDA::cudart)
  # CUDA 13 keeps thrust (Paddle's complex.h includes it) under include/cccl
  foreach(_inc ${CUDAToolkit_INCLUDE_DIRS})
    if(EXISTS "${_inc}/cccl/thrust")
      target_include_directories(opforge_paddle_headers SYSTEM INTERFACE "${_inc}/cccl")
    endif()
  endforeach()
endif()
if(USE_TENSORRT)
  target_compile_definitions(opforge_paddle_headers INTERFACE PADDLE_WITH_TENSORRT OPFORGE_PADDLE_USE_TENSORRT)
endif()

set(OPFORGE_PADDLE_SOURCES)
set(OPFORGE_PADDLE_EXAMPLES)

# opforge_paddle_add_op(<snake_name> [CUDA]): the op's unit <op>/<op>_op.cc with its kernel objects
# (the CUDA ones with WITH_GPU, when the op has a CUDA kernel), and its example.
function(opforge_paddle_add_op name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "CUDA" "" "")
  set(sources ${OPFORGE_PADDLE_SOURCES} ${name}/${name}_op.cc $<TARGET_OBJECTS:opforge_${name}_cpu>)
  if(WITH_GPU AND ARG_CUDA)
    list(APPEND sources $<TARGET_OBJECTS:opforge_${name}_cuda>)
  endif()
  set(OPFORGE_PADDLE_SOURCES ${sources} PARENT_SCOPE)
  set(OPFORGE_PADDLE_EXAMPLES ${OPFORGE_PADDLE_EXAMPLES} ${name} PARENT_SCOPE)
endfunction()

# opforge_paddle_finish(): the library, then (with LIB_DIR) the examples. A macro: its return()
# ends the including file when the wheel has no inference API to build examples against.
macro(opforge_paddle_finish)
  add_library({{library}} SHARED ${OPFORGE_PADDLE_SOURCES})
  target_link_libraries({{library}} PRIVATE opforge_paddle_headers ${OPFORGE_PADDLE_LIBS})
  target_compile_options({{library}} PRIVATE ${OPFORGE_WARNINGS})
  # The op units in unity batches (OPFORGE_PADDLE_UNITY_BATCH, default 16): Paddle's headers are
  # most of each unit's compile time, and the units share no file-scope names (one namespace per op).
  set(OPFORGE_PADDLE_UNITY_BATCH 16 CACHE STRING "Op units per unity batch of the Paddle op library (1: no unity build)")
  if(OPFORGE_PADDLE_UNITY_BATCH GREATER 1)
    set_target_properties({{library}} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${OPFORGE_PADDLE_UNITY_BATCH})
  endif()
  if(OPFORGE_PADDLE_FROM_WHEEL)
    set_target_properties({{library}} PROPERTIES BUILD_RPATH "${_pd_root}/base;${_pd_root}/libs")
    # The wheel (out/pyproject.toml): {{package}} with the library beside it, which load() takes by default.
    # With the Paddle it was built against (_build_info.py): load() refuses another Paddle by name.
    if(SKBUILD)
      install(DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/{{package}}" DESTINATION . PATTERN __pycache__ EXCLUDE)
      install(TARGETS {{library}} LIBRARY DESTINATION {{package}})
      file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/_build_info.py" CONTENT [=[
"""What this wheel's {{package}} was built against (written by its CMake install)."""

PADDLE_VERSION = "@_pd_version@"
]=] @ONLY)
      install(FILES "${CMAKE_CURRENT_BINARY_DIR}/_build_info.py" DESTINATION {{package}})
    endif()
    return()  # the examples run Paddle Inference's C++ API, which the wheel does not ship
  endif()
  opforge_paddle_examples()
endmacro()

function(opforge_paddle_examples)
  # The examples link the libraries Paddle-Inference-Demo links, and load the op library (and with
  # USE_TENSORRT the self-registering plugin library) for their static registrations.
  set(OPFORGE_PADDLE_EXAMPLE_LIBS ${OPFORGE_PADDLE_LIBS})
  foreach(_dep glog gflags protobuf xxhash cryptopp)
    if(EXISTS "${_pd_third_party}/${_dep}/lib")
      file(GLOB _lib "${_pd_third_party}/${_dep}/lib/*${CMAKE_SHARED_LIBRARY_SUFFIX}" "${_pd_third_party}/${_dep}/lib/*.a")
      list(APPEND OPFORGE_PADDLE_EXAMPLE_LIBS ${_lib})
    endif()
  endforeach()
  if(WITH_MKL)
    file(GLOB _lib "${_pd_third_party}/mklml/lib/*${CMAKE_SHARED_LIBRARY_SUFFIX}" "${_pd_third_party}/onednn/lib/libdnnl${CMAKE_SHARED_LIBRARY_SUFFIX}*")
  else()
    file(GLOB _lib "${_pd_third_party}/openblas/lib/*")
  endif()
  list(APPEND OPFORGE_PADDLE_EXAMPLE_LIBS ${_lib})
  if(WITH_GPU)
    find_library(OPFORGE_CUDNN_LIBRARY cudnn HINTS "${CUDNN_LIB}")
    list(APPEND OPFORGE_PADDLE_EXAMPLE_LIBS "${CUDA_LIB}/libcudart${CMAKE_SHARED_LIBRARY_SUFFIX}")
    if(OPFORGE_CUDNN_LIBRARY)
      list(APPEND OPFORGE_PADDLE_EXAMPLE_LIBS "${OPFORGE_CUDNN_LIBRARY}")
    endif()
  endif()
  set(OPFORGE_PADDLE_PRELOAD {{library}})
  if(USE_TENSORRT)
    list(APPEND OPFORGE_PADDLE_PRELOAD opforge_trt_plugins_autoreg)
  endif()
  foreach(op ${OPFORGE_PADDLE_EXAMPLES})
    add_executable(${op}_custom_op_test ${op}/custom_op_test.cc)
    target_link_libraries(${op}_custom_op_test PRIVATE opforge_paddle_headers
      -Wl,--no-as-needed ${OPFORGE_PADDLE_PRELOAD} -Wl,--as-needed ${OPFORGE_PADDLE_EXAMPLE_LIBS} pthread dl rt)
    target_compile_options(${op}_custom_op_test PRIVATE ${OPFORGE_WARNINGS})
    if(WITH_MKL)
      target_compile_options(${op}_custom_op_test PRIVATE -fopenmp)
    endif()
  endforeach()
endfunction()
