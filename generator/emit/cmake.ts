// The project CMake: the op core as an INTERFACE target and each op's kernels as object
// libraries that every backend links, so one kernel build serves all backends. Backends add
// their own subdirectories (listed in BACKEND_SUBDIRS) that use these targets.

import type { ProjectIR } from '../ir.js';
import { rootFromOut } from '../ir-helpers.js';
import { lines, perOp, projectFile, defineEmitter, type Emitter, type GeneratedFile } from './emitter.js';
import { cmakeQuotedText } from './literals.js';

/** Backend subdirectories of out/ with their own CMakeLists.txt, added when present. */
export const BACKEND_SUBDIRS: { dir: string; option: string; doc: string }[] = [
  { dir: 'trt', option: 'WITH_TENSORRT', doc: 'Build the TensorRT plugin libraries (needs WITH_CUDA and TENSORRT_ROOT)' },
  { dir: 'paddle', option: 'WITH_PADDLE', doc: 'Build the Paddle custom ops (against the paddlepaddle wheel, or LIB_DIR: a paddle_inference library, with examples)' },
  { dir: 'popart', option: 'WITH_POPART', doc: 'Build the PopART/PopRT custom_ops library (needs the Poplar SDK)' },
  { dir: 'ort', option: 'WITH_ONNXRUNTIME', doc: 'Build the ONNX Runtime custom-op library (needs ONNXRUNTIME_ROOT or ONNXRUNTIME_INCLUDE_DIR)' },
];

export const cmakeEmitter: Emitter = defineEmitter({
  name: 'cmake',
  op: () => [],
  project(project: ProjectIR): GeneratedFile[] {
    const opBlocks = project.ops.map(perOp('CMakeLists.txt', (op) => {
      const t = `opforge_${op.ident.snake}`;
      return lines(
        '',
        `# ${op.name}`,
        `add_library(${t}_cpu OBJECT "\${OPFORGE_PROJECT_ROOT}/${cmakeQuotedText(op.kernels.cpu)}")`,
        `target_link_libraries(${t}_cpu PUBLIC opforge_core)`,
        `set_target_properties(${t}_cpu PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)`,
        `target_compile_options(${t}_cpu PRIVATE \${OPFORGE_WARNINGS} \${OPFORGE_KERNEL_FLAGS})`,
        `list(APPEND OPFORGE_OPS ${op.ident.snake})`,
        op.kernels.cuda
          ? lines(
              'if(WITH_CUDA)',
              `  add_library(${t}_cuda OBJECT "\${OPFORGE_PROJECT_ROOT}/${cmakeQuotedText(op.kernels.cuda)}")`,
              `  target_link_libraries(${t}_cuda PUBLIC opforge_core)`,
              `  set_target_properties(${t}_cuda PROPERTIES POSITION_INDEPENDENT_CODE ON CUDA_VISIBILITY_PRESET hidden CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)`,
              `  target_compile_options(${t}_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-Werror>)`,
              `  list(APPEND OPFORGE_CUDA_OPS ${op.ident.snake})`,
              'endif()',
            )
          : `# ${op.name} has no CUDA kernel.`,
      );
    }));
    // Kernel paths are relative to the project root; the root is found relative to this file,
    // wherever `opforge gen --out` put it (out/ beside ops/, inside it, or anywhere else).
    const rel = rootFromOut(project);
    const rootDefault = rel === '' ? '${CMAKE_CURRENT_SOURCE_DIR}' : `\${CMAKE_CURRENT_SOURCE_DIR}/${cmakeQuotedText(rel)}`;
    const body = lines(
      'cmake_minimum_required(VERSION 3.18)',
      'project(opforge_ops LANGUAGES CXX)',
      '',
      'option(WITH_CUDA "Build the CUDA kernels (needs nvcc)" OFF)',
      'option(OPFORGE_WERROR "Treat warnings as errors" ON)',
      `set(OPFORGE_PROJECT_ROOT "${rootDefault}" CACHE PATH "Project root, the directory holding the ops dir (kernel paths are relative to it)")`,
      '',
      'if(NOT CMAKE_CXX_STANDARD)',
      '  set(CMAKE_CXX_STANDARD 17)',
      'endif()',
      'set(CMAKE_CXX_STANDARD_REQUIRED ON)',
      '# ccache when present: rebuilding after a branch switch or a clean build dir is then mostly cache',
      '# hits. A cache variable, so the backend projects that add this directory get it for their own',
      '# targets too; -DOPFORGE_CCACHE=OFF (or a launcher of your own) overrides it.',
      'option(OPFORGE_CCACHE "Compile through ccache when it is installed" ON)',
      'find_program(OPFORGE_CCACHE_PROGRAM ccache)',
      'if(OPFORGE_CCACHE AND OPFORGE_CCACHE_PROGRAM AND NOT CMAKE_CXX_COMPILER_LAUNCHER)',
      '  # Precompiled headers (the PyTorch extension) are cached only with this sloppiness.',
      '  set(CMAKE_CXX_COMPILER_LAUNCHER "${CMAKE_COMMAND};-E;env;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;${OPFORGE_CCACHE_PROGRAM}" CACHE STRING "Compiler launcher (ccache)")',
      '  set(CMAKE_CUDA_COMPILER_LAUNCHER "${OPFORGE_CCACHE_PROGRAM}" CACHE STRING "Compiler launcher (ccache)")',
      'endif()',
      'if(WITH_CUDA)',
      '  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)',
      '    set(CMAKE_CUDA_ARCHITECTURES 75 80 90)',
      '  endif()',
      '  enable_language(CUDA)',
      '  find_package(CUDAToolkit REQUIRED)',
      '  set(CMAKE_CUDA_STANDARD 17)',
      'endif()',
      '',
      'set(OPFORGE_WARNINGS -Wall -Wextra)',
      'if(OPFORGE_WERROR)',
      '  list(APPEND OPFORGE_WARNINGS -Werror)',
      'endif()',
      '# The Node and PyTorch projects add this directory and compile their own units with these flags.',
      'get_directory_property(OPFORGE_PARENT_DIR PARENT_DIRECTORY)',
      'if(OPFORGE_PARENT_DIR)',
      '  set(OPFORGE_WARNINGS ${OPFORGE_WARNINGS} PARENT_SCOPE)',
      'endif()',
      '# GCC\'s default -ftrapping-math keeps it from vectorizing loops that compare floats (a relu\'s',
      '# select); Clang already defaults to -fno-trapping-math. Values are unchanged.',
      'set(OPFORGE_KERNEL_FLAGS)',
      'if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")',
      '  list(APPEND OPFORGE_KERNEL_FLAGS -fno-trapping-math)',
      'endif()',
      '',
      'add_library(opforge_core INTERFACE)',
      'target_include_directories(opforge_core INTERFACE "${CMAKE_CURRENT_SOURCE_DIR}/include")',
      'target_compile_features(opforge_core INTERFACE cxx_std_17)',
      '',
      'set(OPFORGE_OPS)',
      'set(OPFORGE_CUDA_OPS)',
      opBlocks,
      '',
      '# Backends (each directory is generated by its emitter).',
      ...BACKEND_SUBDIRS.map((b) => lines(
        `option(${b.option} "${b.doc}" OFF)`,
        `if(${b.option} AND EXISTS "\${CMAKE_CURRENT_SOURCE_DIR}/${b.dir}/CMakeLists.txt")`,
        `  add_subdirectory(${b.dir})`,
        'endif()',
      )),
    );
    return [projectFile('CMakeLists.txt', body)];
  },
});
