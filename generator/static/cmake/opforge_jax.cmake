# The JAX library of an opforge project ({{target}}: every op's XLA FFI handlers), included by
# the generated out/jax/CMakeLists.txt when WITH_JAX is on. The same for every project: it loops over
# the op lists out/CMakeLists.txt publishes (OPFORGE_OPS, OPFORGE_CUDA_OPS). The FFI headers come
# from the installed jaxlib (jax.ffi.include_dir() of JAX_PYTHON), and its version is compiled into
# the library (opforge_jax_jaxlib_version()): the FFI ABI moves between jaxlib releases, so
# {{package}} refuses a library built for a newer jaxlib than the one it runs under. With WITH_CUDA
# the library holds the CUDA handlers too (PlatformStream<cudaStream_t>, the ops' CUDA kernels).

# A STRING, not a FILEPATH: CMake makes a relative FILEPATH given with -D absolute against the
# working directory, which turns `-DJAX_PYTHON=python3` into a path that does not exist.
set(JAX_PYTHON "$ENV{JAX_PYTHON}" CACHE STRING "The Python whose jax/jaxlib the handlers build against: a path or a command on PATH (default: python3)")
set(_jax_python "${JAX_PYTHON}")
if(NOT _jax_python AND SKBUILD)
  set(_jax_python "${Python3_EXECUTABLE}")  # a wheel's handlers are for the Python building it
elseif(NOT _jax_python)
  set(_jax_python python3)
endif()
if(NOT IS_ABSOLUTE "${_jax_python}")
  find_program(_jax_python_found NAMES "${_jax_python}" NO_CACHE)
  if(_jax_python_found)
    set(_jax_python "${_jax_python_found}")
  endif()
endif()
execute_process(
  COMMAND "${_jax_python}" -c "import jax.ffi, jaxlib; print(jax.ffi.include_dir()); print(jaxlib.__version__)"
  WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}" RESULT_VARIABLE _jax_rc OUTPUT_VARIABLE _jax_out ERROR_VARIABLE _jax_err
  OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT _jax_rc EQUAL 0)
  message(FATAL_ERROR "WITH_JAX: \"${_jax_python}\" cannot import jax.ffi (pip install jax; or set JAX_PYTHON to a Python that has it):\n${_jax_err}")
endif()
string(REPLACE "\n" ";" _jax_out "${_jax_out}")
list(GET _jax_out -2 OPFORGE_JAX_FFI_INCLUDE)
list(GET _jax_out -1 OPFORGE_JAX_JAXLIB_VERSION)
if(NOT EXISTS "${OPFORGE_JAX_FFI_INCLUDE}/xla/ffi/api/ffi.h")
  message(FATAL_ERROR "WITH_JAX: jaxlib ${OPFORGE_JAX_JAXLIB_VERSION} has no XLA FFI headers in ${OPFORGE_JAX_FFI_INCLUDE}")
endif()
message(STATUS "JAX: the XLA FFI headers of jaxlib ${OPFORGE_JAX_JAXLIB_VERSION} (${OPFORGE_JAX_FFI_INCLUDE})")

set(_jax_sources "${CMAKE_CURRENT_SOURCE_DIR}/build_info.cc")
foreach(op ${OPFORGE_OPS})
  list(APPEND _jax_sources "${CMAKE_CURRENT_SOURCE_DIR}/${op}/${op}_jax.cc" $<TARGET_OBJECTS:opforge_${op}_cpu>)
endforeach()
if(WITH_CUDA)
  foreach(op ${OPFORGE_CUDA_OPS})
    list(APPEND _jax_sources $<TARGET_OBJECTS:opforge_${op}_cuda>)
  endforeach()
endif()

add_library({{target}} SHARED ${_jax_sources})
# The FFI headers are SYSTEM includes: warnings inside them are not ours; our code builds with -Werror.
target_include_directories({{target}} SYSTEM PRIVATE "${OPFORGE_JAX_FFI_INCLUDE}")
target_include_directories({{target}} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries({{target}} PRIVATE opforge_core)
target_compile_definitions({{target}} PRIVATE "OPFORGE_JAX_JAXLIB_VERSION=\"${OPFORGE_JAX_JAXLIB_VERSION}\"")
target_compile_options({{target}} PRIVATE ${OPFORGE_WARNINGS})
# The handler units in unity batches (OPFORGE_JAX_UNITY_BATCH, default 16): the FFI headers' templates
# are most of each unit's compile time, and the units share no file-scope names (one namespace per op).
set(OPFORGE_JAX_UNITY_BATCH 16 CACHE STRING "Handler units per unity batch of {{target}} (1: no unity build)")
set_target_properties({{target}} PROPERTIES POSITION_INDEPENDENT_CODE ON)
if(OPFORGE_JAX_UNITY_BATCH GREATER 1)
  set_target_properties({{target}} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${OPFORGE_JAX_UNITY_BATCH})
endif()
if(WITH_CUDA)
  target_compile_definitions({{target}} PRIVATE OPFORGE_JAX_WITH_CUDA)
  target_link_libraries({{target}} PRIVATE CUDA::cudart)
endif()
# The wheel (out/pyproject.toml): {{package}} with the library beside it, where it looks first.
if(SKBUILD)
  install(DIRECTORY "${CMAKE_CURRENT_SOURCE_DIR}/{{package}}" DESTINATION . PATTERN __pycache__ EXCLUDE)
  install(TARGETS {{target}} LIBRARY DESTINATION {{package}})
endif()
