// TensorRT backend: per op, a descriptor header that adapts the op core to the shared plugin
// bases in generator/static/cpp/opforge/trt/ (IPluginV3 for TensorRT 10/11, IPluginV2DynamicExt and
// the Paddle-named IPluginV2Ext for TensorRT 8.x and Paddle Inference), one translation unit per
// interface generation, and a README; for the project, the plugin library entry points
// (getCreators / getPluginCreators, setLoggerFinder), static registration and the CMake. The
// C++ files are templates beside the bases (*.tmpl); this prints their slots.

import type { OpIR, ProjectIR } from '../../model/ir.js';
import {
  lines,
  opFile,
  projectFile,
  staticFile,
  staticFiles,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
} from '../emitter.js';
import { emitDtypeHeader } from './dtype.js';
import { emitOpHeader } from './op-header.js';
import { emitOpReadme } from './readme.js';
import { backendOpList } from '../cmake/op-list.js';
import { includeLines } from '../lang/cpp.js';
import { creatorNames, trtPaths } from './names.js';
import { fillTemplate } from '../lang/template.js';

export { creatorNames, pluginNames, trtPaths } from './names.js';

const TEMPLATES = 'generator/static/cpp/opforge/trt';

/**
 * An op's explicit instantiations of the plugin bases, once: V3 in plugin_v3.cpp.tmpl, V2 in
 * plugin_v2.cpp.tmpl. op.h.tmpl declares the same list `extern template` so that the entry points
 * and the static registration, which include every op's header, do not instantiate them again
 * (with 50 ops, plugin_library.cpp took 90 s to compile, 3 s with the declarations).
 */
const emitUnit = (op: OpIR, v: 'v3' | 'v2'): string =>
  fillTemplate(`${TEMPLATES}/plugin_${v}.cpp.tmpl`, { name: op.name, snake: op.ident.snake });

/** The creator aliases register.cpp names (REGISTER_TENSORRT_PLUGIN needs one identifier each). */
const creatorAlias = (op: OpIR): string =>
  fillTemplate(`${TEMPLATES}/creators.tmpl`, { snake: op.ident.snake, ...creatorNames(op) });

/** An op's header, descriptor type and creator names (one fragment: a fresh run reads them from the cache). */
interface OpNames {
  include: string;
  op: string;
  v3: string;
  v2: string;
  paddleDynamic: string;
  paddleStatic: string;
}
const opNames = (project: ProjectIR, ctx: EmitContext): OpNames[] =>
  project.ops
    .map(
      ctx.perOp('trt/names', (op) => {
        const names = {
          include: trtPaths(op).include,
          op: `::opforge::trt::${op.ident.snake}::Op`,
          ...creatorNames(op),
        };
        return JSON.stringify(names satisfies OpNames);
      }),
    )
    .map((j) => JSON.parse(j) as OpNames);

const includes = (names: readonly OpNames[], extra: string[] = []): string =>
  lines(includeLines({ project: [...names.map((n) => n.include), ...extra] }));

/** The entry points (plugin_library.cpp.tmpl), over the creator lists of opforge/trt/plugin_library.h. */
function emitLibrary(names: readonly OpNames[]): string {
  return fillTemplate(`${TEMPLATES}/plugin_library.cpp.tmpl`, {
    includes: includes(names, ['opforge/trt/plugin_library.h']),
    ops: names.map((n) => n.op).join(', '),
  });
}

/** Static registration (register.cpp.tmpl): every op's creators. */
function emitRegister(aliases: readonly string[], names: readonly OpNames[]): string {
  const register = (pick: (n: OpNames) => string[]): string =>
    lines(names.flatMap(pick).map((c) => `REGISTER_TENSORRT_PLUGIN(${c});`));
  return fillTemplate(`${TEMPLATES}/register.cpp.tmpl`, {
    includes: includes(names),
    creators: lines([...aliases]),
    registerV3: register((n) => [n.v3]),
    registerV2: register((n) => [n.v2]),
    registerPaddle: register((n) => [n.paddleDynamic, n.paddleStatic]),
  });
}

export const trtEmitter: Emitter = defineEmitter({
  name: 'trt',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    const names = opNames(project, ctx);
    const aliases = project.ops.map(ctx.perOp('trt/creator-aliases', creatorAlias));
    return [
      ...staticFiles('trt/include/opforge/trt', TEMPLATES, '.h'),
      projectFile('trt/include/opforge/trt/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('trt/plugin_library.cpp', emitLibrary(names)),
      projectFile('trt/register.cpp', emitRegister(aliases, names)),
      // The op list over out/cmake/opforge_trt.cmake: the per-op OBJECT libraries and the two plugin libraries.
      projectFile('trt/CMakeLists.txt', backendOpList('trt', 'TensorRT plugins', project, ctx)),
      staticFile('cmake/opforge_trt.cmake', 'generator/static/cmake/opforge_trt.cmake'),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    const p = trtPaths(op);
    return [
      opFile(op, p.header, emitOpHeader(op)),
      opFile(op, p.v3, emitUnit(op, 'v3')),
      opFile(op, p.v2, emitUnit(op, 'v2')),
      opFile(op, p.readme, emitOpReadme(op)),
    ];
  },
});
