# Built by cmake-js (runtime/index.ts build()): the Node addon over every op core and CPU kernel;
# with -DWITH_CUDA=ON also the CUDA kernels (cudart linked statically, so the addon still
# loads and runs its CPU path on a machine without a GPU or CUDA installation). The same for every
# project: the ops come from out/CMakeLists.txt (OPFORGE_OPS, OPFORGE_CUDA_OPS), each with its unit
# ops/<op>.cpp here.
cmake_minimum_required(VERSION 3.18)
project(opforge_node LANGUAGES CXX)
# compile_commands.json for clangd and the like (and the tests: every unit gets the warnings).
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
set(CMAKE_CXX_STANDARD 17)
add_definitions(-DNAPI_VERSION=8 -DNAPI_DISABLE_CPP_EXCEPTIONS)
add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/.." opforge_ops)
# node-addon-api's headers: opforge build passes the copy Node resolves from opforge's install
# (nested or hoisted); without it, the copy Node resolves from the project root.
if(NOT NODE_ADDON_API_DIR)
  execute_process(COMMAND node -p "require('path').dirname(require.resolve('node-addon-api/package.json'))"
    WORKING_DIRECTORY "${OPFORGE_PROJECT_ROOT}" OUTPUT_VARIABLE NODE_ADDON_API_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)
endif()
if(NOT EXISTS "${NODE_ADDON_API_DIR}/napi.h")
  message(FATAL_ERROR "node-addon-api not found (NODE_ADDON_API_DIR='${NODE_ADDON_API_DIR}'): npm install node-addon-api")
endif()
add_library(opforge_node SHARED addon.cpp ${CMAKE_JS_SRC})
foreach(op IN LISTS OPFORGE_OPS)
  target_sources(opforge_node PRIVATE ops/${op}.cpp)
endforeach()
foreach(op IN LISTS OPFORGE_OPS)
  target_sources(opforge_node PRIVATE $<TARGET_OBJECTS:opforge_${op}_cpu>)
endforeach()
target_include_directories(opforge_node PRIVATE ${CMAKE_JS_INC} "${NODE_ADDON_API_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/include")
target_link_libraries(opforge_node PRIVATE opforge_core ${CMAKE_JS_LIB})
target_compile_options(opforge_node PRIVATE ${OPFORGE_WARNINGS})
set_target_properties(opforge_node PROPERTIES PREFIX "" SUFFIX ".node" CXX_VISIBILITY_PRESET hidden)
# The op units in batches (CMake's unity build): napi.h and the addon base are parsed once per
# batch, not once per op (about 1 s of each unit). OPFORGE_UNITY_BATCH=1 compiles each op alone.
set(OPFORGE_UNITY_BATCH 4 CACHE STRING "Op units per unity batch (1: one per op)")
if(OPFORGE_UNITY_BATCH GREATER 1)
  set_target_properties(opforge_node PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE ${OPFORGE_UNITY_BATCH})
endif()
if(WITH_CUDA)
  find_package(CUDAToolkit REQUIRED)  # imported targets of the parent directory are not visible here
  foreach(op IN LISTS OPFORGE_CUDA_OPS)
    target_sources(opforge_node PRIVATE $<TARGET_OBJECTS:opforge_${op}_cuda>)
  endforeach()
  target_compile_definitions(opforge_node PRIVATE OPFORGE_WITH_CUDA)
  target_link_libraries(opforge_node PRIVATE CUDA::cudart_static)
endif()
