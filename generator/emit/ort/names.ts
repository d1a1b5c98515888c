// Names and paths of the ONNX Runtime backend's files, shared by its modules.

import type { OpIR, ProjectNames } from '../../model/ir.js';

/** Where the ONNX Runtime files of an op live under out/. */
export function ortPaths(op: OpIR): { header: string; include: string; unit: string } {
  const s = op.ident.snake;
  return { header: `ort/${s}/${s}_ort.h`, include: `${s}/${s}_ort.h`, unit: `ort/${s}/${s}_ort.cpp` };
}

/** The file name of the custom-op library on Linux (CMake target opforge_ort). */
export const ORT_LIBRARY_FILE = 'libopforge_ort.so';

/** The custom-op library's file for the project: libopforge_ort.so, or lib<prefix>_ort.so (the target's OUTPUT_NAME). */
export function ortLibraryFile(names: ProjectNames): string {
  return names.namespace === undefined ? ORT_LIBRARY_FILE : `lib${names.libraryPrefix}_ort.so`;
}
