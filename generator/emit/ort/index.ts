// ONNX Runtime backend: one custom-op library (RegisterCustomOps) for the project. Per op, a
// descriptor header adapting the op core to the shared kernel base in
// generator/static/cpp/opforge/ort/ (Ort::CustomOpBase, one OrtCustomOp per dtype binding and EP) and
// a unit holding its OrtCustomOp instances; for the project, the entry point and the CMake. The
// C++ files are templates beside the bases (*.tmpl); this prints their slots.

import type { OpIR, ProjectIR } from '../../model/ir.js';
import {
  opFile,
  projectFile,
  staticFiles,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { backendOpList } from '../cmake/op-list.js';
import { emitDtypeHeader } from './dtype.js';
import { emitLibrary, emitOpHeader, emitOpUnit } from './op-header.js';
import { ortPaths } from './names.js';
import { fillTemplate } from '../lang/template.js';

export { ortLibraryFile, ortPaths, ORT_LIBRARY_FILE } from './names.js';

const ORT_CMAKE = 'generator/static/cmake/opforge_ort.cmake';

export const ortEmitter: Emitter = defineEmitter({
  name: 'ort',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    return [
      ...staticFiles('ort/include/opforge/ort', 'generator/static/cpp/opforge/ort', '.h'),
      projectFile('ort/include/opforge/ort/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('ort/custom_ops.cpp', emitLibrary(project)),
      // The op list over out/cmake/opforge_ort.cmake: the per-op OBJECT libraries and the custom-op library.
      projectFile('ort/CMakeLists.txt', backendOpList('ort', 'ONNX Runtime custom-op library', project, ctx)),
      // A project with a namespace names its library after it: two projects' libraries coexist.
      projectFile(
        'cmake/opforge_ort.cmake',
        fillTemplate(ORT_CMAKE, {
          outputName:
            project.names.namespace === undefined
              ? null
              : `set_target_properties(opforge_ort PROPERTIES OUTPUT_NAME ${project.names.libraryPrefix}_ort)`,
        }),
        ORT_CMAKE,
      ),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    const p = ortPaths(op);
    return [opFile(op, p.header, emitOpHeader(op)), opFile(op, p.unit, emitOpUnit(op))];
  },
});
