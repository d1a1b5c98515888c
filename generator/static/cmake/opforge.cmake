# The build settings every opforge project shares, and opforge_add_op(): included by the generated
# out/CMakeLists.txt, which then lists the project's ops (one opforge_add_op() each) and adds the
# backend directories. Each op's kernels become object libraries that every backend links
# (opforge_<op>_cpu, and with WITH_CUDA opforge_<op>_cuda), so one kernel build serves them all.

option(WITH_CUDA "Build the CUDA kernels (needs nvcc)" OFF)
option(OPFORGE_WERROR "Treat warnings as errors" ON)

if(NOT CMAKE_CXX_STANDARD)
  set(CMAKE_CXX_STANDARD 17)
endif()
set(CMAKE_CXX_STANDARD_REQUIRED ON)
# ccache when present: rebuilding after a branch switch or a clean build dir is then mostly cache
# hits. A cache variable, so the backend projects that add this directory get it for their own
# targets too; -DOPFORGE_CCACHE=OFF (or a launcher of your own) overrides it.
option(OPFORGE_CCACHE "Compile through ccache when it is installed" ON)
find_program(OPFORGE_CCACHE_PROGRAM ccache)
# Paths under OPFORGE_CCACHE_BASEDIR (default: the folder holding out/, the project) are hashed
# relative to the build folder, so a second checkout, worktree or CI clone of the project compiles
# from what the first one cached; the compiler then also prints them relative to the build folder.
# A CCACHE_BASEDIR of your own wins; -DOPFORGE_CCACHE_BASEDIR= (empty) sets none.
get_filename_component(_opforge_project_dir "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(OPFORGE_CCACHE_BASEDIR "${_opforge_project_dir}" CACHE PATH "ccache's base_dir for opforge's builds")
if(OPFORGE_CCACHE AND OPFORGE_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(_opforge_ccache_env "")
  if(OPFORGE_CCACHE_BASEDIR AND NOT DEFINED ENV{CCACHE_BASEDIR})
    set(_opforge_ccache_env "CCACHE_BASEDIR=${OPFORGE_CCACHE_BASEDIR};")
  endif()
  # Precompiled headers (the PyTorch extension) are cached only with this sloppiness.
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;${_opforge_ccache_env}CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${OPFORGE_CCACHE_PROGRAM}" CACHE STRING "Compiler launcher (ccache)")
  set(CMAKE_CUDA_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;${_opforge_ccache_env}${OPFORGE_CCACHE_PROGRAM}" CACHE STRING "Compiler launcher (ccache)")
endif()
if(WITH_CUDA)
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 75 80 90)
  endif()
  enable_language(CUDA)
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_CUDA_STANDARD 17)
endif()

set(OPFORGE_WARNINGS -Wall -Wextra)
if(OPFORGE_WERROR)
  list(APPEND OPFORGE_WARNINGS -Werror)
endif()
# The Node and PyTorch projects add this directory and compile their own units with these flags.
get_directory_property(OPFORGE_PARENT_DIR PARENT_DIRECTORY)
if(OPFORGE_PARENT_DIR)
  set(OPFORGE_WARNINGS ${OPFORGE_WARNINGS} PARENT_SCOPE)
endif()
# GCC's default -ftrapping-math keeps it from vectorizing loops that compare floats (a relu's
# select); Clang already defaults to -fno-trapping-math. Values are unchanged.
set(OPFORGE_KERNEL_FLAGS)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  list(APPEND OPFORGE_KERNEL_FLAGS -fno-trapping-math)
endif()

add_library(opforge_core INTERFACE)
target_include_directories(opforge_core INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_compile_features(opforge_core INTERFACE cxx_std_17)

set(OPFORGE_OPS)
set(OPFORGE_CUDA_OPS)

# Kernels compiled once for every backend (`opforge test`, runtime/kernels.ts): one build of this
# directory alone with -DOPFORGE_EXPORT_KERNELS=ON writes opforge_kernels.cmake, the object files of
# every op's kernels; a backend build given it (-DOPFORGE_KERNELS=<that file>) links those objects
# instead of compiling the kernels again. Nothing of a kernel's compile differs between the Node
# addon, the PyTorch extension and the ONNX Runtime library: the same flags here, -fPIC, hidden
# visibility, the kernels see opforge's headers only (torch's ABI flags reach the extension's own
# units, not these), and the CUDA architectures are the build's (one per device configuration).
set(OPFORGE_KERNELS "" CACHE FILEPATH "opforge_kernels.cmake of a kernel build to link instead of compiling the kernels")
if(OPFORGE_KERNELS)
  include("${OPFORGE_KERNELS}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${OPFORGE_KERNELS}")
endif()
option(OPFORGE_EXPORT_KERNELS "Write opforge_kernels.cmake: the kernel objects, for backend builds to link" OFF)

# Triton kernels (kernels.triton) are compiled ahead of time by this Python, which must have Triton.
# A STRING, not a FILEPATH: CMake would make a bare `python3` given with -D a path under the build folder.
set(OPFORGE_TRITON_PYTHON "$ENV{OPFORGE_TRITON_PYTHON}" CACHE STRING "The Python (with Triton) that compiles the ops' Triton kernels (default: $OPFORGE_TRITON_PYTHON, else python3 on PATH)")

# opforge_add_op(<snake_name> CPU <kernel.cpp> [CUDA <kernel.cu> | TRITON <kernel.py>])
# Kernel paths are relative to OPFORGE_PROJECT_ROOT. Appends the op to OPFORGE_OPS (and, when its
# CUDA kernel is built, to OPFORGE_CUDA_OPS). A Triton kernel's object is its generated launcher
# (triton/<op>/<op>_triton.cpp) with the images opforge_triton_aot.py compiles for the build's
# CUDA architectures: the same opforge_<op>_cuda object a .cu kernel makes.
function(opforge_add_op name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "CPU;CUDA;TRITON" "")
  if(ARG_TRITON)
    set(ARG_CUDA "${ARG_TRITON}")
  endif()
  if(NOT ARG_CPU)
    message(FATAL_ERROR "opforge_add_op(${name}): no CPU kernel")
  endif()
  set(t opforge_${name})
  if(OPFORGE_KERNELS)
    if(NOT DEFINED OPFORGE_OBJECTS_${name}_cpu)
      message(FATAL_ERROR "opforge_add_op(${name}): no objects for it in ${OPFORGE_KERNELS} (build the kernels again)")
    endif()
    add_library(${t}_cpu OBJECT IMPORTED GLOBAL)
    set_target_properties(${t}_cpu PROPERTIES IMPORTED_OBJECTS "${OPFORGE_OBJECTS_${name}_cpu}")
    set(OPFORGE_OPS ${OPFORGE_OPS} ${name} PARENT_SCOPE)
    if(WITH_CUDA AND ARG_CUDA AND DEFINED OPFORGE_OBJECTS_${name}_cuda)
      add_library(${t}_cuda OBJECT IMPORTED GLOBAL)
      set_target_properties(${t}_cuda PROPERTIES IMPORTED_OBJECTS "${OPFORGE_OBJECTS_${name}_cuda}")
      set(OPFORGE_CUDA_OPS ${OPFORGE_CUDA_OPS} ${name} PARENT_SCOPE)
    elseif(WITH_CUDA AND ARG_CUDA)
      message(FATAL_ERROR "opforge_add_op(${name}): ${OPFORGE_KERNELS} has no CUDA objects (a kernel build without WITH_CUDA)")
    endif()
    return()
  endif()
  add_library(${t}_cpu OBJECT "${OPFORGE_PROJECT_ROOT}/${ARG_CPU}")
  target_link_libraries(${t}_cpu PUBLIC opforge_core)
  set_target_properties(${t}_cpu PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(${t}_cpu PRIVATE ${OPFORGE_WARNINGS} ${OPFORGE_KERNEL_FLAGS})
  set(OPFORGE_OPS ${OPFORGE_OPS} ${name} PARENT_SCOPE)
  if(WITH_CUDA AND ARG_TRITON)
    opforge_triton_object(${name} "${OPFORGE_PROJECT_ROOT}/${ARG_TRITON}")
    set(OPFORGE_CUDA_OPS ${OPFORGE_CUDA_OPS} ${name} PARENT_SCOPE)
  elseif(WITH_CUDA AND ARG_CUDA)
    add_library(${t}_cuda OBJECT "${OPFORGE_PROJECT_ROOT}/${ARG_CUDA}")
    target_link_libraries(${t}_cuda PUBLIC opforge_core)
    set_target_properties(${t}_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
    target_compile_options(${t}_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Werror>)
    set(OPFORGE_CUDA_OPS ${OPFORGE_CUDA_OPS} ${name} PARENT_SCOPE)
  endif()
endfunction()

# opforge_triton_object(<op> <kernel.py>): opforge_<op>_cuda from the op's launcher and the images
# of its Triton kernel, compiled for CMAKE_CUDA_ARCHITECTURES whenever the kernel or its job changes.
function(opforge_triton_object name source)
  set(dir "${CMAKE_CURRENT_SOURCE_DIR}/triton/${name}")
  set(images "${CMAKE_CURRENT_BINARY_DIR}/triton/${name}/${name}_triton_images.inc")
  set(python "${OPFORGE_TRITON_PYTHON}")
  if(NOT python)
    find_program(OPFORGE_TRITON_PYTHON_FOUND NAMES python3 python REQUIRED)
    set(python "${OPFORGE_TRITON_PYTHON_FOUND}")
  endif()
  add_custom_command(
    OUTPUT "${images}"
    COMMAND "${CMAKE_COMMAND}" -E make_directory "${CMAKE_CURRENT_BINARY_DIR}/triton/${name}"
    COMMAND "${python}" "${CMAKE_CURRENT_SOURCE_DIR}/triton/opforge_triton_aot.py" "${dir}/${name}_triton.json" "${source}" "${CMAKE_CUDA_ARCHITECTURES}" "${images}"
    DEPENDS "${source}" "${dir}/${name}_triton.json" "${CMAKE_CURRENT_SOURCE_DIR}/triton/opforge_triton_aot.py"
    COMMENT "Compiling ${name}'s Triton kernel for sm ${CMAKE_CUDA_ARCHITECTURES}"
    VERBATIM)
  add_library(opforge_${name}_cuda OBJECT "${dir}/${name}_triton.cpp" "${images}")
  target_include_directories(opforge_${name}_cuda PRIVATE "${CMAKE_CURRENT_BINARY_DIR}/triton/${name}")
  target_link_libraries(opforge_${name}_cuda PUBLIC opforge_core PRIVATE CUDA::cudart)
  set_target_properties(opforge_${name}_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_compile_options(opforge_${name}_cuda PRIVATE ${OPFORGE_WARNINGS})
endfunction()

# opforge_publish_ops(): after the list, hands OPFORGE_OPS and OPFORGE_CUDA_OPS to a project that
# added this directory (the Node addon, the PyTorch extension), so its CMake can loop over them.
macro(opforge_publish_ops)
  if(OPFORGE_EXPORT_KERNELS AND NOT OPFORGE_KERNELS)
    set(_opforge_objects "# Generated by opforge's CMake: the kernel objects of this build.\n")
    foreach(op IN LISTS OPFORGE_OPS)
      string(APPEND _opforge_objects "set(OPFORGE_OBJECTS_${op}_cpu \"$<TARGET_OBJECTS:opforge_${op}_cpu>\")\n")
    endforeach()
    foreach(op IN LISTS OPFORGE_CUDA_OPS)
      string(APPEND _opforge_objects "set(OPFORGE_OBJECTS_${op}_cuda \"$<TARGET_OBJECTS:opforge_${op}_cuda>\")\n")
    endforeach()
    file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/opforge_kernels.cmake" CONTENT "${_opforge_objects}")
  endif()
  if(OPFORGE_PARENT_DIR)
    set(OPFORGE_OPS ${OPFORGE_OPS} PARENT_SCOPE)
    set(OPFORGE_CUDA_OPS ${OPFORGE_CUDA_OPS} PARENT_SCOPE)
  endif()
endmacro()
