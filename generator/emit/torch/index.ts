// The PyTorch extension: one TORCH_LIBRARY fragment per op (out/torch/<snake>.cpp) registering
// the spec's schema under torch.ops.opforge with CPU and CUDA kernels that call the op core,
// and the CMake project that links them into libopforge_torch.so for torch.ops.load_library.

import type { AttributeIR, OpIR, ProjectIR } from '../../ir.js';
import { coreHeaderPath } from '../../ir-helpers.js';
import { lines, opFile, projectFile, staticFile, defineEmitter, type Emitter, type GeneratedFile } from '../emitter.js';
import { commentText, cppString } from '../literals.js';
import { torchSchema } from './schema.js';

export const torchEmitter: Emitter = defineEmitter({
  name: 'torch',
  project(project: ProjectIR): GeneratedFile[] {
    return [
      staticFile('torch/include/opforge/torch/op_base.h', 'generator/cpp/opforge/torch/op_base.h'),
      projectFile('torch/CMakeLists.txt', cmake(project)),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    return [opFile(op, `torch/${op.ident.snake}.cpp`, opSource(op))];
  },
});

/** C++ parameter type of an attribute in the TORCH_LIBRARY function. */
function paramType(a: AttributeIR): string {
  switch (a.type) {
    case 'bool': return 'bool';
    case 'int': return 'int64_t';
    case 'float': return 'double';
    case 'string': return 'c10::string_view';
    case 'ints': return 'at::IntArrayRef';
    case 'floats': return 'at::ArrayRef<double>';
  }
}

function attrAssign(a: AttributeIR): string {
  switch (a.type) {
    case 'bool':
    case 'int': return `  attrs.${a.name} = ${a.name};`;
    case 'float': return `  attrs.${a.name} = static_cast<float>(${a.name});`;
    case 'string': return `  attrs.${a.name} = std::string(${a.name}.data(), ${a.name}.size());`;
    case 'ints': return `  attrs.${a.name}.assign(${a.name}.begin(), ${a.name}.end());`;
    // Attrs starts at the spec's defaults: the given list replaces a default, never extends it.
    case 'floats': return `  attrs.${a.name}.clear();\n  for (double v : ${a.name}) attrs.${a.name}.push_back(static_cast<float>(v));`;
  }
}

function opSource(op: OpIR): string {
  const snake = op.ident.snake;
  const params = [
    ...op.inputs.map((i) => (i.optional ? `const c10::optional<at::Tensor>& ${i.name}` : `const at::Tensor& ${i.name}`)),
    ...op.attributes.map((a) => `${paramType(a)} ${a.name}`),
  ];
  const multi = op.outputs.length > 1;
  const ret = multi ? `std::tuple<${op.outputs.map(() => 'at::Tensor').join(', ')}>` : 'at::Tensor';
  const runCall = `opforge::torch_ext::run<op::Core>(attrs, {${op.inputs.map((i) => i.name).join(', ')}})`;
  return lines(
    `// ${op.name} as a PyTorch operator: torch.ops.opforge.${snake}, with CPU${op.kernels.cuda ? ' and CUDA' : ''} kernels.`,
    '#include <torch/library.h>',
    '',
    multi ? '#include <tuple>' : null,
    '#include <string>',
    '',
    `#include "${coreHeaderPath(op).include}"`,
    '#include "opforge/torch/op_base.h"',
    '',
    'namespace {',
    '',
    `namespace op = opforge::ops::${snake};`,
    '',
    `${ret} ${op.ident.camel}(${params.join(', ')}) {`,
    '  op::Attrs attrs;',
    ...op.attributes.map(attrAssign),
    multi ? `  auto r = ${runCall};` : `  return ${runCall}[0];`,
    multi ? `  return std::make_tuple(${op.outputs.map((o) => `r[${o.index}]`).join(', ')});` : null,
    '}',
    '',
    '}  // namespace',
    '',
    `// ${commentText(op.domain)}::${op.name}; the schema is also what opforge_ops defines when this library is absent.`,
    'TORCH_LIBRARY_FRAGMENT(opforge, m) {',
    `  m.def(${cppString(torchSchema(op))});`,
    '}',
    '',
    'TORCH_LIBRARY_IMPL(opforge, CPU, m) {',
    `  m.impl(${cppString(snake)}, &${op.ident.camel});`,
    '}',
    '',
    op.kernels.cuda
      ? '// CUDA tensors: the CUDA kernel (an extension built without CUDA says so).'
      : `// CUDA tensors: a clear error (${op.name} has no kernels.cuda), not the dispatcher's "Could not run".`,
    'TORCH_LIBRARY_IMPL(opforge, CUDA, m) {',
    `  m.impl(${cppString(snake)}, &${op.ident.camel});`,
    '}',
  );
}

function cmake(project: ProjectIR): string {
  const cudaOps = project.ops.filter((op) => op.kernels.cuda);
  return lines(
    '# The PyTorch extension: libopforge_torch.so with every op under torch.ops.opforge.',
    '#   cmake -S out/torch -B build/torch -DCMAKE_PREFIX_PATH="$(python3 -c \'import torch; print(torch.utils.cmake_prefix_path)\')" [-DWITH_CUDA=ON]',
    '#   cmake --build build/torch',
    '# opforge_ops loads build/torch/libopforge_torch.so (next to out/) or $OPFORGE_TORCH_LIBRARY.',
    'cmake_minimum_required(VERSION 3.18)',
    'project(opforge_torch LANGUAGES CXX)',
    '# The extension links CUDA objects: it needs architectures in this scope too (the ops subdirectory\'s',
    '# default does not reach here, and CMake refuses a CUDA target without them).',
    'if(WITH_CUDA AND NOT CMAKE_CUDA_ARCHITECTURES)',
    '  set(CMAKE_CUDA_ARCHITECTURES 75 80 90)',
    'endif()',
    'add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/.." opforge_ops)',
    'find_package(Torch REQUIRED)',
    'add_library(opforge_torch SHARED',
    ...project.ops.map((op) => `  ${op.ident.snake}.cpp`),
    ...project.ops.map((op) => `  $<TARGET_OBJECTS:opforge_${op.ident.snake}_cpu>`),
    ')',
    'target_include_directories(opforge_torch PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}/include")',
    'target_link_libraries(opforge_torch PRIVATE opforge_core ${TORCH_LIBRARIES})',
    'target_compile_options(opforge_torch PRIVATE ${OPFORGE_WARNINGS})',
    'set_target_properties(opforge_torch PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)',
    cudaOps.length ? lines(
      'if(WITH_CUDA)',
      '  find_package(CUDAToolkit REQUIRED)  # imported targets of the parent directory are not visible here',
      '  target_sources(opforge_torch PRIVATE',
      ...cudaOps.map((op) => `    $<TARGET_OBJECTS:opforge_${op.ident.snake}_cuda>`),
      '  )',
      '  target_compile_definitions(opforge_torch PRIVATE OPFORGE_WITH_CUDA)',
      '  target_link_libraries(opforge_torch PRIVATE CUDA::cudart)',
      'endif()',
    ) : null,
  );
}
