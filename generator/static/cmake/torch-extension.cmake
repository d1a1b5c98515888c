# The PyTorch extension: lib{{target}}.so with every op under torch.ops.{{torchNamespace}}.
#   cmake -S out/torch -B build/torch -DCMAKE_PREFIX_PATH="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')" [-DWITH_CUDA=ON]
#   cmake --build build/torch
# {{package}} loads build/torch/lib{{target}}.so (next to out/) or ${{libraryEnv}}. The same
# file for every project: the ops come from out/CMakeLists.txt (OPFORGE_OPS, OPFORGE_CUDA_OPS).
cmake_minimum_required(VERSION 3.18)
project({{target}} LANGUAGES CXX)
# compile_commands.json for clangd and the like (and the tests: every unit gets the warnings).
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
# The extension links CUDA objects: it needs architectures in this scope too (the ops subdirectory's
# default does not reach here, and CMake refuses a CUDA target without them).
if(WITH_CUDA AND NOT CMAKE_CUDA_ARCHITECTURES)
  set(CMAKE_CUDA_ARCHITECTURES 75 80 90)
endif()
# What the kernels are built for, recorded by a wheel: torch's CMake turns the variable OFF later
# (it passes its own -gencode flags).
set(OPFORGE_KERNEL_CUDA_ARCHITECTURES "${CMAKE_CUDA_ARCHITECTURES}")
add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/.." opforge_ops)
# A wheel builds against the torch of the Python building it (scikit-build-core passes it), never
# another torch on CMake's search paths (Debian's libtorch-dev, a conda libtorch): its configs
# (Torch's and the Caffe2 one it finds, system paths first) and its libraries (TorchConfig.cmake's
# find_library looks in system paths before its own; CMAKE_LIBRARY_PATH comes first). Forced, and
# the found libraries forgotten: a build tree kept from another environment must not keep that
# one's torch. The same query gives the versions the wheel records (_build_info.py, below).
if(SKBUILD)
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import os, torch, torch.utils; print(torch.utils.cmake_prefix_path); print(os.path.join(os.path.dirname(torch.__file__), 'lib')); print(torch.__version__); print(torch.version.cuda or '')"
    RESULT_VARIABLE _torch_rc OUTPUT_VARIABLE _torch_out ERROR_VARIABLE _torch_err OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _torch_rc EQUAL 0)
    message(FATAL_ERROR "{{package}} wheel: \"${Python3_EXECUTABLE}\" cannot import torch:\n${_torch_err}")
  endif()
  # The trailing newline keeps an empty last line (a CPU torch's CUDA version) as a list element.
  string(REPLACE "\n" ";" _torch_out "${_torch_out}\n")
  list(GET _torch_out 0 _torch_prefix)
  list(GET _torch_out 1 _torch_lib)
  list(GET _torch_out 2 OPFORGE_BUILT_TORCH)
  list(GET _torch_out 3 OPFORGE_BUILT_TORCH_CUDA)
  set(Torch_DIR "${_torch_prefix}/Torch" CACHE PATH "The TorchConfig.cmake of the Python building the wheel" FORCE)
  set(Caffe2_DIR "${_torch_prefix}/Caffe2" CACHE PATH "The Caffe2Config.cmake of the Python building the wheel" FORCE)
  list(PREPEND CMAKE_PREFIX_PATH "${_torch_prefix}")
  list(PREPEND CMAKE_LIBRARY_PATH "${_torch_lib}")
  foreach(_lib TORCH c10 torch torch_cpu torch_cuda c10_cuda C10_CUDA CAFFE2_NVRTC)
    unset(${_lib}_LIBRARY CACHE)
  endforeach()
endif()
find_package(Torch REQUIRED)
# pip's TorchConfig.cmake finds c10 with find_library's system paths first: beside a system libtorch
# (Debian's libtorch-dev) a wheel's extension would link both libc10s, and its Autograd kernels would
# register with one dispatcher while calls go through the other. Link the found torch's own libraries.
set(OPFORGE_TORCH_LIBRARIES)
foreach(lib IN LISTS TORCH_LIBRARIES)
  get_filename_component(name "${lib}" NAME)
  if(IS_ABSOLUTE "${lib}" AND EXISTS "${TORCH_INSTALL_PREFIX}/lib/${name}")
    list(APPEND OPFORGE_TORCH_LIBRARIES "${TORCH_INSTALL_PREFIX}/lib/${name}")
  else()
    list(APPEND OPFORGE_TORCH_LIBRARIES "${lib}")
  endif()
endforeach()
list(REMOVE_DUPLICATES OPFORGE_TORCH_LIBRARIES)
add_library({{target}} SHARED)
# Every op's unit <op>.cpp here, then its kernel objects (out/CMakeLists.txt publishes the list).
foreach(op IN LISTS OPFORGE_OPS)
  target_sources({{target}} PRIVATE ${op}.cpp)
endforeach()
foreach(op IN LISTS OPFORGE_OPS)
  target_sources({{target}} PRIVATE $<TARGET_OBJECTS:opforge_${op}_cpu>)
endforeach()
target_include_directories({{target}} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries({{target}} PRIVATE opforge_core ${OPFORGE_TORCH_LIBRARIES})
target_compile_options({{target}} PRIVATE ${OPFORGE_WARNINGS})
# GCC 12 and 13 report a false -Warray-bounds in torch's own autograd::Function::apply (the word copy
# of a std::vector<bool> it reserves), inlined into every op unit (torch 2.11, g++ 13): it stays a
# warning, not an error. Every other warning is still an error.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12)
  target_compile_options({{target}} PRIVATE -Wno-error=array-bounds)
endif()
set_target_properties({{target}} PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
# The torch headers and the autograd Function machinery, most of each unit's compile time, are
# precompiled once for every unit. Precompiling costs about three units' parsing, so a build of one
# or two units (a few ops in unity batches) is faster without: -DOPFORGE_TORCH_PCH=OFF.
option(OPFORGE_TORCH_PCH "Precompile the torch headers once for every op unit" ON)
if(OPFORGE_TORCH_PCH)
  target_precompile_headers({{target}} PRIVATE <torch/library.h> "${CMAKE_CURRENT_SOURCE_DIR}/include/opforge/torch/autograd.h" "${CMAKE_CURRENT_SOURCE_DIR}/include/opforge/torch/op_base.h")
endif()
# -DOPFORGE_UNITY_BATCH=4 compiles the op units in batches (CMake's unity build): the torch headers,
# most of each unit's time, are then parsed once per batch (a cold build of many ops takes about
# a third less time), but a spec edit recompiles its whole batch and takes about twice as long.
# Off by default: edits are the loop.
set(OPFORGE_UNITY_BATCH 1 CACHE STRING "Op units per unity batch (1: one per op)")
if(OPFORGE_UNITY_BATCH GREATER 1)
  set_target_properties({{target}} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${OPFORGE_UNITY_BATCH})
endif()
if(WITH_CUDA AND OPFORGE_CUDA_OPS)
  find_package(CUDAToolkit REQUIRED)  # imported targets of the parent directory are not visible here
  foreach(op IN LISTS OPFORGE_CUDA_OPS)
    target_sources({{target}} PRIVATE $<TARGET_OBJECTS:opforge_${op}_cuda>)
  endforeach()
  target_compile_definitions({{target}} PRIVATE OPFORGE_WITH_CUDA)
  target_link_libraries({{target}} PRIVATE CUDA::cudart)
endif()
# {{entry}}, the Python entry {{package}} calls every op through (python_entry.cpp): it needs
# the headers of the Python whose torch this builds against (-DPython3_EXECUTABLE=...), torch's
# libtorch_python and pybind11's headers (in torch's wheels; Debian: pybind11-dev). Without them,
# or with -DOPFORGE_TORCH_PYTHON=OFF, {{package}} calls torch.ops.{{torchNamespace}}.<op> itself.
option(OPFORGE_TORCH_PYTHON "Build the Python entry {{entry}}" ON)
if(OPFORGE_TORCH_PYTHON)
  find_package(Python3 COMPONENTS Interpreter Development.Module)
  find_library(OPFORGE_TORCH_PYTHON_LIBRARY torch_python HINTS "${TORCH_INSTALL_PREFIX}/lib")
  find_path(OPFORGE_PYBIND11_INCLUDE_DIR pybind11/pybind11.h HINTS ${TORCH_INCLUDE_DIRS})
  if(Python3_Development.Module_FOUND AND OPFORGE_TORCH_PYTHON_LIBRARY AND OPFORGE_PYBIND11_INCLUDE_DIR)
    Python3_add_library({{entry}} MODULE WITH_SOABI python_entry.cpp)
    target_include_directories({{entry}} SYSTEM PRIVATE "${OPFORGE_PYBIND11_INCLUDE_DIR}")
    target_link_libraries({{entry}} PRIVATE ${OPFORGE_TORCH_LIBRARIES} "${OPFORGE_TORCH_PYTHON_LIBRARY}")
    target_compile_options({{entry}} PRIVATE ${OPFORGE_WARNINGS})
    set_target_properties({{entry}} PROPERTIES CXX_VISIBILITY_PRESET hidden)
  else()
    message(STATUS "opforge: no Python entry (Python headers: ${Python3_Development.Module_FOUND}, "
      "libtorch_python: ${OPFORGE_TORCH_PYTHON_LIBRARY}, pybind11: ${OPFORGE_PYBIND11_INCLUDE_DIR}); {{package}} calls torch.ops")
  endif()
endif()
# The wheel (out/pyproject.toml: scikit-build-core sets SKBUILD): {{package}} with the library and
# its entry beside it, and what they were built against (_build_info.py, checked when it loads: a
# library built for another torch fails with an undefined symbol, or worse, runs).
if(SKBUILD)
  install(DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/../python/{{package}}" DESTINATION .
    PATTERN __pycache__ EXCLUDE)
  install(TARGETS {{target}} LIBRARY DESTINATION {{package}})
  if(TARGET {{entry}})
    install(TARGETS {{entry}} LIBRARY DESTINATION {{package}})
  endif()
  if(WITH_CUDA AND OPFORGE_CUDA_OPS)
    set(_with_cuda True)
  else()
    set(_with_cuda False)
  endif()
  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/_build_info.py" CONTENT [=[
"""What this wheel of {{package}} was built against (written by its CMake install)."""

TORCH_VERSION = "@OPFORGE_BUILT_TORCH@"
#: torch.version.cuda of the torch it was built against ("" for a CPU torch).
TORCH_CUDA = "@OPFORGE_BUILT_TORCH_CUDA@"
#: Whether the library holds the CUDA kernels, and for which architectures.
WITH_CUDA = @_with_cuda@
CUDA_ARCHITECTURES = "@OPFORGE_KERNEL_CUDA_ARCHITECTURES@"
]=] @ONLY)
  install(FILES "${CMAKE_CURRENT_BINARY_DIR}/_build_info.py" DESTINATION {{package}})
endif()
