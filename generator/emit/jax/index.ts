// JAX backend: per op, XLA typed-FFI handlers over the op core (<op>/<op>_jax.cc; CPU, and CUDA in
// WITH_CUDA builds) and a module of the opforge_jax package (the op's function: checks, result
// shapes from the spec's expressions, jax.ffi.ffi_call, custom_vjp from the spec's backward); for
// the project, the shared bridge (ffi_bridge.h), the dtype mapping from the type table, the build
// record (build_info.cc), the CMake (one static module looping over the published op lists) and the
// package's runtime and __init__.

import type { OpIR, ProjectIR } from '../../model/ir.js';
import { DTYPE_INFO } from '../../model/type-table.js';
import { opFile, projectFile, staticFile, defineEmitter, type Emitter, type GeneratedFile } from '../emitter.js';
import { dtypeMapFunctions } from '../lang/dtype-map.js';
import { cppUnit } from '../lang/cpp.js';
import { jaxLibraryEnv, jaxLibraryTarget, jaxPaths } from './names.js';
import { fillTemplate } from '../lang/template.js';
import { emitJaxHandlers } from './op.js';
import { sharedPythonFiles } from '../lang/py-shared.js';
import { emitJaxInit, emitJaxModule } from './python.js';

export { jaxLibraryEnv, jaxLibraryTarget, jaxPaths, jaxSymbols, jaxTarget, jaxVmapMethod } from './names.js';

function emitDtypeHeader(): string {
  return cppUnit({
    comment: 'xla::ffi::DataType -> opforge::DType, from the type table.',
    header: true,
    includes: { external: ['"xla/ffi/api/ffi.h"'], project: ['opforge/core.h'] },
    namespace: 'opforge::jax_bridge',
    body: dtypeMapFunctions({
      name: 'Xla',
      type: '::xla::ffi::DataType',
      of: (d) => `::xla::ffi::DataType::${DTYPE_INFO[d].xla}`,
      unmatched: 'XLA element types opforge has no counterpart for (complex, float8, s4, ...)',
    }),
  });
}

export const jaxEmitter: Emitter = defineEmitter({
  name: 'jax',
  project(project: ProjectIR): GeneratedFile[] {
    const { names } = project;
    const pkg = `jax/${names.jaxPackage}`;
    const target = jaxLibraryTarget(names);
    // The package's and library's names are the project's (slots): two projects' builds coexist.
    const filled = (file: string, source: string, slots: Record<string, string>): GeneratedFile =>
      projectFile(file, fillTemplate(source, slots), source);
    return [
      staticFile('jax/include/opforge/jax/ffi_bridge.h', 'generator/static/cpp/opforge/jax/ffi_bridge.h'),
      projectFile('jax/include/opforge/jax/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      staticFile('jax/build_info.cc', 'generator/static/cpp/opforge/jax/build_info.cc'),
      filled('jax/CMakeLists.txt', 'generator/static/cmake/jax-library.cmake', { target, package: names.jaxPackage }),
      filled('cmake/opforge_jax.cmake', 'generator/static/cmake/opforge_jax.cmake', {
        target,
        package: names.jaxPackage,
      }),
      filled(`${pkg}/_runtime.py`, 'generator/static/python/opforge_jax/_runtime.py', {
        package: names.jaxPackage,
        torchPackage: names.torchPackage,
        target,
        libraryEnv: jaxLibraryEnv(names),
      }),
      ...sharedPythonFiles(pkg),
      projectFile(`${pkg}/__init__.py`, emitJaxInit(project.ops, names)),
      projectFile(`${pkg}/ops/__init__.py`, '"""One module per op (generated from the specs)."""'),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    const p = jaxPaths(op, project.names);
    return [opFile(op, p.handlers, emitJaxHandlers(op, project.names)), opFile(op, p.module, emitJaxModule(op))];
  },
});
