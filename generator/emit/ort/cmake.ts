// out/ort/CMakeLists.txt: added by out/CMakeLists.txt when WITH_ONNXRUNTIME is on. Builds
//   opforge_ort_<op>  per-op OBJECT libraries (the op's OrtCustomOp instances),
//   opforge_ort       the custom-op library (RegisterCustomOps), which needs the ORT headers
//                     only: it calls the API the runtime hands it and links no libonnxruntime.

import type { ProjectIR } from '../../ir.js';
import { lines, perOp } from '../emitter.js';
import { ortPaths } from './names.js';

export function emitCmake(project: ProjectIR): string {
  const opBlocks = project.ops.map(perOp('ort/CMakeLists.txt', (op) => {
    const s = op.ident.snake;
    const unit = ortPaths(op).unit.slice('ort/'.length);
    return lines(
      `add_library(opforge_ort_${s} OBJECT ${unit})`,
      `target_link_libraries(opforge_ort_${s} PUBLIC opforge_ort_headers)`,
      `set_target_properties(opforge_ort_${s} PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)`,
      `target_compile_options(opforge_ort_${s} PRIVATE \${OPFORGE_WARNINGS})`,
      `list(APPEND OPFORGE_ORT_OBJECTS $<TARGET_OBJECTS:opforge_ort_${s}> $<TARGET_OBJECTS:opforge_${s}_cpu>)`,
      `list(APPEND OPFORGE_ORT_UNITS opforge_ort_${s})`,
      op.kernels.cuda
        ? lines(
            'if(WITH_CUDA)',
            `  target_compile_definitions(opforge_ort_${s} PRIVATE OPFORGE_ORT_WITH_CUDA)`,
            `  list(APPEND OPFORGE_ORT_OBJECTS $<TARGET_OBJECTS:opforge_${s}_cuda>)`,
            'endif()',
          )
        : null,
    );
  }));
  return lines(
    '# ONNX Runtime custom-op library for every op. Configure from out/ with',
    '#   cmake -S out -B build -DWITH_ONNXRUNTIME=ON -DONNXRUNTIME_ROOT=/path/to/onnxruntime [-DWITH_CUDA=ON]',
    '# ONNXRUNTIME_ROOT holds include/ (or include/onnxruntime/) with onnxruntime_cxx_api.h; or set',
    '# ONNXRUNTIME_INCLUDE_DIR to the directory holding the headers. The library links no libonnxruntime.',
    'set(ONNXRUNTIME_ROOT "$ENV{ONNXRUNTIME_ROOT}" CACHE PATH "ONNX Runtime install root (holds include/ and lib/)")',
    '',
    'find_path(ONNXRUNTIME_INCLUDE_DIR onnxruntime_cxx_api.h HINTS "${ONNXRUNTIME_ROOT}" PATH_SUFFIXES include include/onnxruntime include/onnxruntime/core/session)',
    'if(NOT ONNXRUNTIME_INCLUDE_DIR)',
    '  message(FATAL_ERROR "onnxruntime_cxx_api.h not found: set ONNXRUNTIME_ROOT or ONNXRUNTIME_INCLUDE_DIR")',
    'endif()',
    'file(STRINGS "${ONNXRUNTIME_INCLUDE_DIR}/onnxruntime_c_api.h" _opforge_ort_api REGEX "^#define ORT_API_VERSION [0-9]+")',
    'message(STATUS "opforge: ONNX Runtime headers in ${ONNXRUNTIME_INCLUDE_DIR} (${_opforge_ort_api})")',
    '',
    '# ORT headers are SYSTEM includes: warnings in them are not ours; our code builds with -Werror.',
    'add_library(opforge_ort_headers INTERFACE)',
    'target_include_directories(opforge_ort_headers SYSTEM INTERFACE "${ONNXRUNTIME_INCLUDE_DIR}")',
    'target_include_directories(opforge_ort_headers INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include" "${CMAKE_CURRENT_SOURCE_DIR}")',
    'target_link_libraries(opforge_ort_headers INTERFACE opforge_core)',
    '',
    '# The op base and the ORT C++ API it includes (after ORT_API_MANUAL_INIT) are about 0.6 s of each',
    '# op unit\'s 1.4 s: they are precompiled once, in a target of their own, and every op unit reuses',
    '# them (-DOPFORGE_ORT_PCH=OFF: without).',
    'option(OPFORGE_ORT_PCH "Precompile the ONNX Runtime headers once for every op unit" ON)',
    'if(OPFORGE_ORT_PCH)',
    '  file(CONFIGURE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/opforge_ort_pch.cpp" CONTENT "// The unit that owns the precompiled ONNX Runtime headers.\\n")',
    '  add_library(opforge_ort_pch OBJECT "${CMAKE_CURRENT_BINARY_DIR}/opforge_ort_pch.cpp")',
    '  target_link_libraries(opforge_ort_pch PUBLIC opforge_ort_headers)',
    '  set_target_properties(opforge_ort_pch PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)',
    '  target_compile_options(opforge_ort_pch PRIVATE ${OPFORGE_WARNINGS})',
    '  target_precompile_headers(opforge_ort_pch PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include/opforge/ort/custom_op.h")',
    'endif()',
    '',
    'set(OPFORGE_ORT_OBJECTS)',
    'set(OPFORGE_ORT_UNITS)',
    ...opBlocks,
    'if(OPFORGE_ORT_PCH)',
    '  foreach(unit IN LISTS OPFORGE_ORT_UNITS)',
    '    target_precompile_headers(${unit} REUSE_FROM opforge_ort_pch)',
    '  endforeach()',
    'endif()',
    '',
    'add_library(opforge_ort SHARED custom_ops.cpp ${OPFORGE_ORT_OBJECTS})',
    'target_link_libraries(opforge_ort PRIVATE opforge_ort_headers)',
    'target_compile_options(opforge_ort PRIVATE $<$<COMPILE_LANGUAGE:CXX>:${OPFORGE_WARNINGS}>)',
    'set_target_properties(opforge_ort PROPERTIES CXX_VISIBILITY_PRESET hidden CUDA_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)',
    'if(WITH_CUDA)',
    '  target_link_libraries(opforge_ort PRIVATE CUDA::cudart)',
    'endif()',
    'if(CMAKE_SYSTEM_NAME STREQUAL "Linux")',
    '  # Every symbol resolved at link time: proves the library needs nothing from libonnxruntime.',
    '  target_link_options(opforge_ort PRIVATE "LINKER:--no-undefined")',
    'endif()',
  );
}
