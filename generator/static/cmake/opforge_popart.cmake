# The PopART / PopRT custom ops of an opforge project, included by the generated
# out/popart/CMakeLists.txt, which lists the project's ops (opforge_popart_add_op(<op>) each), then
# calls opforge_popart_finish(): custom_ops.so with every op (Op, OpCreator, host-function opx).
# Needs the Poplar SDK (PopART, Poplar): source its enable scripts, then configure from out/ with
#   cmake -S out -B build -DWITH_POPART=ON && cmake --build build --target custom_ops

find_path(POPART_INCLUDE_DIR popart/op.hpp HINTS "$ENV{POPART_INSTALL_DIR}/include" ENV CPATH)
find_library(POPART_LIBRARY popart HINTS "$ENV{POPART_INSTALL_DIR}/lib" ENV LIBRARY_PATH)
find_library(POPLAR_LIBRARY poplar HINTS "$ENV{POPLAR_INSTALL_DIR}/lib" ENV LIBRARY_PATH)
if(NOT POPART_INCLUDE_DIR OR NOT POPART_LIBRARY OR NOT POPLAR_LIBRARY)
  message(FATAL_ERROR "WITH_POPART needs the Poplar SDK (popart/op.hpp, libpopart, libpoplar): source its enable scripts")
endif()

# SDK headers are SYSTEM includes: warnings inside them are not ours; our code builds with -Werror.
add_library(opforge_popart_headers INTERFACE)
target_include_directories(opforge_popart_headers SYSTEM INTERFACE "${POPART_INCLUDE_DIR}")
target_include_directories(opforge_popart_headers INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
target_compile_definitions(opforge_popart_headers INTERFACE ONNX_NAMESPACE=onnx)
target_link_libraries(opforge_popart_headers INTERFACE opforge_core)

set(OPFORGE_POPART_SOURCES)

# opforge_popart_add_op(<snake_name>): the op's <op>/<op>_op.cpp and _opx.cpp with its CPU kernel objects.
function(opforge_popart_add_op name)
  set(OPFORGE_POPART_SOURCES ${OPFORGE_POPART_SOURCES} ${name}/${name}_op.cpp ${name}/${name}_opx.cpp $<TARGET_OBJECTS:opforge_${name}_cpu> PARENT_SCOPE)
endfunction()

# opforge_popart_finish(): the library PopART and PopRT load.
function(opforge_popart_finish)
  add_library(custom_ops SHARED ${OPFORGE_POPART_SOURCES})
  target_link_libraries(custom_ops PRIVATE opforge_popart_headers "${POPART_LIBRARY}" "${POPLAR_LIBRARY}")
  target_compile_options(custom_ops PRIVATE ${OPFORGE_WARNINGS})
  set_target_properties(custom_ops PROPERTIES PREFIX "")
endfunction()
