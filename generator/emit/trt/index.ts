// TensorRT backend: per op, a descriptor header that adapts the op core to the shared plugin
// bases in generator/static/cpp/opforge/trt/ (IPluginV3 for TensorRT 10/11, IPluginV2DynamicExt and
// the Paddle-named IPluginV2Ext for TensorRT 8.x and Paddle Inference), one translation unit per
// interface generation, and a README; for the project, the plugin library entry points
// (getCreators / getPluginCreators, setLoggerFinder), static registration and the CMake.

import type { OpIR, ProjectIR } from '../../model/ir.js';
import { coreHeaderPath } from '../../model/ir-helpers.js';
import {
  lines,
  opFile,
  projectFile,
  staticFile,
  defineEmitter,
  type EmitContext,
  type Emitter,
  type GeneratedFile,
  paragraphs,
} from '../emitter.js';
import { emitDtypeHeader } from './dtype.js';
import { emitOpHeader } from './op-header.js';
import { emitOpReadme } from './readme.js';
import { emitCmake } from './cmake.js';
import { includeLines } from '../lang/cpp.js';
import { creatorNames, instantiations, trtPaths } from './names.js';

export { creatorNames, pluginNames, trtPaths } from './names.js';

const SHARED = ['common.h', 'plugin_v3.h', 'plugin_v2.h', 'plugin_library.h'];

function emitV3Unit(op: OpIR): string {
  return lines(
    `// ${op.name} as an IPluginV3 (TensorRT 10 and 11); empty before TensorRT 10.`,
    `#include "${trtPaths(op).include}"`,
    '',
    '#if NV_TENSORRT_MAJOR >= 10',
    instantiations(op).v3.map((c) => `template class ${c};`),
    '#endif',
  );
}

function emitV2Unit(op: OpIR): string {
  return lines(
    `// ${op.name} as IPluginV2DynamicExt and as the implicit-batch IPluginV2Ext Paddle looks up.`,
    `#include "${trtPaths(op).include}"`,
    '',
    'OPFORGE_TRT_V2_BEGIN',
    instantiations(op).v2.map((c) => `template class ${c};`),
    'OPFORGE_TRT_V2_END',
  );
}

const creatorAlias = (op: OpIR): string => {
  const n = creatorNames(op);
  const alias = (name: string, creator: string): string =>
    `using ${name} = ::opforge::trt::${creator}<::opforge::trt::${op.ident.snake}::Op>;`;
  return lines(
    ['#if NV_TENSORRT_MAJOR >= 10', alias(n.v3, 'CreatorV3'), '#endif'],
    ['OPFORGE_TRT_V2_BEGIN', alias(n.v2, 'OpCreatorV2'), alias(n.paddleDynamic, 'PaddleDynamicCreator')],
    [alias(n.paddleStatic, 'PaddleStaticCreator'), 'OPFORGE_TRT_V2_END'],
  );
};

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

const includes = (names: readonly OpNames[], extra: string[] = []): string[] =>
  includeLines({ project: [...names.map((n) => n.include), ...extra] });

/** The entry points, over the creator lists of opforge/trt/plugin_library.h. */
function emitLibrary(names: readonly OpNames[]): string {
  const ops = names.map((n) => n.op).join(', ');
  const entry = (ret: string, fn: string, call: string): string =>
    `extern "C" OPFORGE_TRT_EXPORT ${ret} ${fn} { ${call} }`;
  return paragraphs(
    [
      '// Entry points TensorRT looks for when it loads this library as a plugin library',
      '// (trtexec --dynamicPlugins, IPluginRegistry::loadLibrary): getCreators (TensorRT 10+) or',
      '// getPluginCreators (8.x), and setLoggerFinder. No static registration happens here, so',
      '// loading the library twice never registers a creator twice.',
      includes(names, ['opforge/trt/plugin_library.h']),
    ],
    entry('void', 'setLoggerFinder(nvinfer1::ILoggerFinder* finder)', '::opforge::trt::loggerFinder().store(finder);'),
    [
      '#if NV_TENSORRT_MAJOR >= 10',
      entry(
        'nvinfer1::IPluginCreatorInterface* const*',
        CREATORS('getCreators'),
        `return ::opforge::trt::creatorsV3<${ops}>(nbCreators);`,
      ),
      '#else',
      entry(
        'nvinfer1::IPluginCreator* const*',
        CREATORS('getPluginCreators'),
        `return ::opforge::trt::creatorsV2<${ops}>(nbCreators);`,
      ),
      '#endif',
    ],
  );
}

const CREATORS = (fn: string): string => `${fn}(int32_t& nbCreators)`;

function emitRegister(aliases: readonly string[], names: readonly OpNames[]): string {
  const register = (pick: (n: OpNames) => string[]): string[] =>
    names.flatMap(pick).map((c) => `REGISTER_TENSORRT_PLUGIN(${c});`);
  return paragraphs(
    [
      '// Static registration (REGISTER_TENSORRT_PLUGIN) for programs that link the plugins in, for',
      '// trtexec --plugins and ctypes.CDLL on TensorRT 8.x, and for Paddle Inference. Needs libnvinfer',
      '// (getPluginRegistry). Do not combine with loading the entry-point library into the same process.',
      includes(names),
    ],
    aliases,
    [
      ['#if NV_TENSORRT_MAJOR >= 10', ...register((n) => [n.v3]), '#endif'],
      ['OPFORGE_TRT_V2_BEGIN', '#if NV_TENSORRT_MAJOR < 10', ...register((n) => [n.v2]), '#endif'],
      [...register((n) => [n.paddleDynamic, n.paddleStatic]), 'OPFORGE_TRT_V2_END'],
    ],
  );
}

export const trtEmitter: Emitter = defineEmitter({
  name: 'trt',
  project(project: ProjectIR, ctx: EmitContext): GeneratedFile[] {
    const names = opNames(project, ctx);
    const aliases = project.ops.map(ctx.perOp('trt/creator-aliases', creatorAlias));
    return [
      ...SHARED.map((h) => staticFile(`trt/include/opforge/trt/${h}`, `generator/static/cpp/opforge/trt/${h}`)),
      projectFile('trt/include/opforge/trt/dtype.h', emitDtypeHeader(), 'generator/model/type-table.ts'),
      projectFile('trt/plugin_library.cpp', emitLibrary(names)),
      projectFile('trt/register.cpp', emitRegister(aliases, names)),
      projectFile('trt/CMakeLists.txt', emitCmake(project, ctx)),
      staticFile('cmake/opforge_trt.cmake', 'generator/static/cmake/opforge_trt.cmake'),
    ];
  },
  op(op: OpIR): GeneratedFile[] {
    const p = trtPaths(op);
    return [
      opFile(op, p.header, emitOpHeader(op, coreHeaderPath(op).include)),
      opFile(op, p.v3, emitV3Unit(op)),
      opFile(op, p.v2, emitV2Unit(op)),
      opFile(op, p.readme, emitOpReadme(op)),
    ];
  },
});
