// The Node backend: a node-addon-api addon over every op core's CPU path (out/node/addon.cpp,
// built by cmake-js from out/node/CMakeLists.txt) and a typed JS entry (index.js + index.d.ts)
// that validates arguments and names the op and argument in every error.

import type { AttributeIR, OpIR, ProjectIR } from '../ir.js';
import { allowedDtypes } from '../ir-helpers.js';
import { coreHeaderPath, cppNamespace } from '../ir-helpers.js';
import { ATTR_INFO, DTYPES, DTYPE_INFO } from '../type-table.js';
import { lines, projectFile, staticFile, type Emitter, type GeneratedFile } from './emitter.js';
import { commentText, tsString } from './literals.js';

export const nodeEmitter: Emitter = {
  name: 'node',
  emit(project: ProjectIR): GeneratedFile[] {
    return [
      staticFile('node/include/opforge/node/addon_base.h', 'generator/cpp/opforge/node/addon_base.h'),
      projectFile('node/CMakeLists.txt', cmake(project)),
      projectFile('node/addon.cpp', addon(project)),
      projectFile('node/index.js', indexJs(project)),
      projectFile('node/index.d.ts', indexDts(project)),
    ];
  },
};

function cmake(project: ProjectIR): string {
  const cudaOps = project.ops.filter((op) => op.kernels.cuda);
  return lines(
    '# Built by cmake-js (runtime/build.ts): the Node addon over every op core and CPU kernel;',
    '# with -DWITH_CUDA=ON also the CUDA kernels (cudart linked statically, so the addon still',
    '# loads and runs its CPU path on a machine without a GPU or CUDA installation).',
    'cmake_minimum_required(VERSION 3.18)',
    'project(opforge_node LANGUAGES CXX)',
    'set(CMAKE_CXX_STANDARD 17)',
    'add_definitions(-DNAPI_VERSION=8 -DNAPI_DISABLE_CPP_EXCEPTIONS)',
    'add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/.." opforge_ops)',
    'execute_process(COMMAND node -p "require(\'node-addon-api\').include_dir"',
    '  WORKING_DIRECTORY "${OPFORGE_PROJECT_ROOT}" OUTPUT_VARIABLE NODE_ADDON_API_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)',
    'add_library(opforge_node SHARED addon.cpp ${CMAKE_JS_SRC}',
    ...project.ops.map((op) => `  $<TARGET_OBJECTS:opforge_${op.ident.snake}_cpu>`),
    ')',
    'target_include_directories(opforge_node PRIVATE ${CMAKE_JS_INC} "${OPFORGE_PROJECT_ROOT}/${NODE_ADDON_API_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/include")',
    'target_link_libraries(opforge_node PRIVATE opforge_core ${CMAKE_JS_LIB})',
    'target_compile_options(opforge_node PRIVATE ${OPFORGE_WARNINGS})',
    'set_target_properties(opforge_node PROPERTIES PREFIX "" SUFFIX ".node" CXX_VISIBILITY_PRESET hidden)',
    'if(WITH_CUDA)',
    '  find_package(CUDAToolkit REQUIRED)  # imported targets of the parent directory are not visible here',
    '  target_sources(opforge_node PRIVATE',
    ...cudaOps.map((op) => `    $<TARGET_OBJECTS:opforge_${op.ident.snake}_cuda>`),
    '  )',
    '  target_compile_definitions(opforge_node PRIVATE OPFORGE_WITH_CUDA)',
    '  target_link_libraries(opforge_node PRIVATE CUDA::cudart_static)',
    'endif()',
  );
}

function attrRead(a: AttributeIR): string[] {
  const get = `o.Get(${JSON.stringify(a.name)})`;
  const guard = `  if (o.Has(${JSON.stringify(a.name)}) && !${get}.IsUndefined()) {`;
  switch (a.type) {
    case 'bool': return [guard, `    attrs->${a.name} = ${get}.ToBoolean().Value();`, '  }'];
    case 'int': return [guard, `    attrs->${a.name} = ${get}.ToNumber().Int64Value();`, '  }'];
    case 'float': return [guard, `    attrs->${a.name} = ${get}.ToNumber().FloatValue();`, '  }'];
    case 'string': return [guard, `    attrs->${a.name} = ${get}.ToString().Utf8Value();`, '  }'];
    case 'ints':
    case 'floats': {
      const conv = a.type === 'ints' ? 'Int64Value()' : 'FloatValue()';
      return [guard, `    Napi::Array v = ${get}.As<Napi::Array>();`, `    attrs->${a.name}.clear();`,
        `    for (uint32_t i = 0; i < v.Length(); ++i) attrs->${a.name}.push_back(v.Get(i).ToNumber().${conv});`, '  }'];
    }
  }
}

function addon(project: ProjectIR): string {
  const fns = project.ops.map((op) => {
    const ns = cppNamespace(op);
    const P = op.ident.pascal;
    return lines(
      `// ${op.name}: run_${op.ident.snake}(inputs, attrs) and run_${op.ident.snake}_async. Attributes were type-checked in index.js.`,
      `bool read${P}Attrs(const Napi::CallbackInfo& info, ${ns}::Attrs* attrs) {`,
      op.attributes.length ? lines(
        '  if (!info[1].IsObject()) {',
        `    opforge::node::raise<Napi::TypeError>(info.Env(), "${op.name}: attributes must be an object");`,
        '    return false;',
        '  }',
        '  Napi::Object o = info[1].As<Napi::Object>();',
      ) : lines('  (void)info;', '  (void)attrs;'),
      op.attributes.flatMap(attrRead),
      '  return !info.Env().IsExceptionPending();  // a hostile value (e.g. a throwing getter) left an exception',
      '}',
      '',
      `Napi::Value Run${P}(const Napi::CallbackInfo& info) {`,
      `  ${ns}::Attrs attrs;`,
      `  return read${P}Attrs(info, &attrs) ? opforge::node::run<${ns}::Core>(info, attrs) : info.Env().Undefined();`,
      '}',
      `Napi::Value Run${P}Async(const Napi::CallbackInfo& info) {`,
      `  ${ns}::Attrs attrs;`,
      `  return read${P}Attrs(info, &attrs) ? opforge::node::runAsync<${ns}::Core>(info, attrs) : info.Env().Undefined();`,
      '}',
    );
  });
  return lines(
    '// Node addon: per op a sync and an async function over its op core (CPU kernel for host',
    '// tensors, CUDA kernel for device tensors), plus the device helpers.',
    '#include <napi.h>',
    '',
    ...project.ops.map((op) => `#include "${coreHeaderPath(op).include}"`),
    '#include "opforge/node/addon_base.h"',
    '',
    'namespace {',
    '',
    fns.join('\n\n'),
    '',
    'Napi::Object Init(Napi::Env env, Napi::Object exports) {',
    ...project.ops.map((op) => `  exports.Set("run_${op.ident.snake}", Napi::Function::New(env, Run${op.ident.pascal}));`),
    ...project.ops.map((op) => `  exports.Set("run_${op.ident.snake}_async", Napi::Function::New(env, Run${op.ident.pascal}Async));`),
    '  opforge::node::exportDeviceApi(env, exports);',
    '  return exports;',
    '}',
    '',
    '}  // namespace',
    '',
    'NODE_API_MODULE(opforge_node, Init)',
  );
}

/** JS value literal of an attribute default. */
function jsValue(v: unknown): string {
  return typeof v === 'string' ? tsString(v) : JSON.stringify(v);
}

function indexJs(project: ProjectIR): string {
  const meta = project.ops.map((op) => lines(
    `  ${op.ident.camel}: {`,
    `    name: ${tsString(op.name)}, fn: 'run_${op.ident.snake}', fnAsync: 'run_${op.ident.snake}_async',`,
    `    inputs: [${op.inputs.map((i) => `{ name: ${tsString(i.name)}, dtypes: [${allowedDtypes(i.type).map((d) => tsString(d)).join(', ')}], rank: ${i.rank ?? 'null'}, optional: ${i.optional} }`).join(', ')}],`,
    `    outputs: [${op.outputs.map((o) => tsString(o.name)).join(', ')}],`,
    `    attributes: [${op.attributes.map((a) => `{ name: ${tsString(a.name)}, type: ${tsString(a.type)}, required: ${a.required}, default: ${a.default === undefined ? 'undefined' : jsValue(a.default)}, enum: ${a.enum ? `[${a.enum.map(jsValue).join(', ')}]` : 'undefined'}, min: ${a.min ?? 'undefined'}, max: ${a.max ?? 'undefined'} }`).join(', ')}],`,
    '  },',
  ));
  const arrays = DTYPES.map((d) => `  ${d}: ${DTYPE_INFO[d].tsArray},`);
  return lines(
    '// Typed entry of the opforge Node binding: bind(addon) returns one function per op.',
    '// Arguments are checked here and in the op core; errors name the op and the argument.',
    '',
    'const ARRAYS = {',
    arrays,
    '};',
    '',
    'export const OPS = {',
    meta,
    '};',
    '',
    'function checkAttr(op, a, v) {',
    "  const where = `${op.name}: attribute ${a.name}`;",
    "  const isInt = (x) => typeof x === 'number' && Number.isInteger(x);",
    '  switch (a.type) {',
    "    case 'bool': if (typeof v !== 'boolean') throw new TypeError(`${where} must be a boolean`); break;",
    "    case 'int': if (!isInt(v)) throw new TypeError(`${where} must be an integer`); break;",
    "    case 'float': if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${where} must be a finite number`); break;",
    "    case 'string': if (typeof v !== 'string') throw new TypeError(`${where} must be a string`); break;",
    "    case 'ints': if (!Array.isArray(v) || !v.every(isInt)) throw new TypeError(`${where} must be an array of integers`); break;",
    "    case 'floats': if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new TypeError(`${where} must be an array of finite numbers`); break;",
    '  }',
    '  const values = Array.isArray(v) ? v : [v];',
    '  if (a.enum !== undefined && !a.enum.includes(v)) throw new RangeError(`${where} must be one of ${a.enum.join(\', \')}, got ${String(v)}`);',
    '  for (const x of values) {',
    '    if (a.min !== undefined && x < a.min) throw new RangeError(`${where} must be >= ${a.min}, got ${x}`);',
    '    if (a.max !== undefined && x > a.max) throw new RangeError(`${where} must be <= ${a.max}, got ${x}`);',
    '  }',
    '}',
    '',
    'function call(addon, op, inputs, attrs, isAsync) {',
    "  if (attrs !== undefined && (attrs === null || typeof attrs !== 'object')) throw new TypeError(`${op.name}: attributes must be an object`);",
    '  const given = attrs ?? {};',
    '  for (const k of Object.keys(given)) {',
    '    if (!op.attributes.some((a) => a.name === k)) throw new TypeError(`${op.name}: unknown attribute ${k} (attributes: ${op.attributes.map((a) => a.name).join(\', \') || \'none\'})`);',
    '  }',
    '  const full = {};',
    '  for (const a of op.attributes) {',
    '    const v = given[a.name] ?? a.default;',
    '    if (v === undefined) throw new TypeError(`${op.name}: attribute ${a.name} is required`);',
    '    checkAttr(op, a, v);',
    '    full[a.name] = v;',
    '  }',
    '  op.inputs.forEach((spec, i) => {',
    '    const t = inputs[i];',
    "    const where = `${op.name}: input ${spec.name}`;",
    '    if (t === undefined || t === null) { if (!spec.optional) throw new TypeError(`${where} is required`); return; }',
    "    if (typeof t !== 'object' || !Array.isArray(t.dims)) throw new TypeError(`${where} must be a tensor { dtype, dims, data }`);",
    '    if (!spec.dtypes.includes(t.dtype)) throw new TypeError(`${where} has dtype ${String(t.dtype)}; allowed: ${spec.dtypes.join(\', \')}`);',
    '    if (spec.rank !== null && t.dims.length !== spec.rank) throw new RangeError(`${where} must have rank ${spec.rank}, got ${t.dims.length}`);',
    "    if (t.device !== undefined) {",
    "      if (t.device !== 'cuda' || t.handle === undefined) throw new TypeError(`${where}: a device tensor comes from toDevice() or a CUDA op`);",
    '      return;',
    '    }',
    '    if (!(t.data instanceof ARRAYS[t.dtype])) throw new TypeError(`${where}: ${t.dtype} data must be a ${ARRAYS[t.dtype].name}`);',
    '    const n = t.dims.reduce((a, b) => a * b, 1);',
    '    if (t.data.length !== n) throw new RangeError(`${where} has ${t.data.length} elements, dims [${t.dims.join(\', \')}] need ${n}`);',
    '  });',
    '  const list = op.inputs.length === inputs.length ? inputs : op.inputs.map((_, i) => inputs[i]);',
    '  if (isAsync) return addon[op.fnAsync](list, full).then((out) => named(op, out));',
    '  return named(op, addon[op.fn](list, full));',
    '}',
    '',
    '// Outputs by name; a plain loop, since this runs on every call.',
    'function named(op, out) {',
    '  const r = {};',
    '  for (let i = 0; i < op.outputs.length; i++) r[op.outputs[i]] = out[i];',
    '  return r;',
    '}',
    '',
    '/** The typed ops of a loaded addon (runtime load()): host tensors run on the CPU, device tensors on CUDA. */',
    'export function bind(addon) {',
    '  return {',
    project.ops.map((op) => `    ${op.ident.camel}: (${[...op.inputs.map((i) => i.name), 'attrs'].join(', ')}) => call(addon, OPS.${op.ident.camel}, [${op.inputs.map((i) => i.name).join(', ')}], attrs, false),`),
    '  };',
    '}',
    '',
    '/** The same ops running off the JS thread: each returns a Promise (argument errors reject it). */',
    'export function bindAsync(addon) {',
    '  return {',
    project.ops.map((op) => `    ${op.ident.camel}: async (${[...op.inputs.map((i) => i.name), 'attrs'].join(', ')}) => call(addon, OPS.${op.ident.camel}, [${op.inputs.map((i) => i.name).join(', ')}], attrs, true),`),
    '  };',
    '}',
    '',
    '/** Device memory: copies between host and CUDA, and explicit release. */',
    'export function device(addon) {',
    '  return {',
    '    cudaAvailable: () => addon.cuda_available(),',
    '    toDevice: (t) => addon.to_device(t),',
    '    toHost: (t) => addon.to_host(t),',
    '    free: (t) => addon.free(t),',
    '  };',
    '}',
  );
}

function indexDts(project: ProjectIR): string {
  const arrayFor = DTYPES.map((d) => `  ${d}: ${DTYPE_INFO[d].tsArray};`);
  const ops = project.ops.map((op) => {
    const tvs = op.typeVars.map((tv) => `${tv.name} extends ${tv.dtypes.map((d) => `'${d}'`).join(' | ')}`);
    const typeOf = (t: OpIR['inputs'][number]['type']): string => (t.kind === 'fixed' ? `'${t.dtype}'` : t.name);
    const attrs = op.attributes.map((a) => {
      const ts = a.enum ? a.enum.map(jsValue).join(' | ') : ATTR_INFO[a.type].ts;
      const doc = [a.description, a.default !== undefined ? `Default: ${JSON.stringify(a.default)}.` : 'Required.'].filter(Boolean).join(' ');
      return `  /** ${commentText(doc)} */\n  readonly ${a.name}${a.required ? '' : '?'}: ${ts};`;
    });
    const anyRequired = op.attributes.some((a) => a.required);
    // The first input of a type variable fixes it; later ones must agree (NoInfer keeps TS from widening T to a union).
    const bound = new Set<string>();
    const inputType = (t: OpIR['inputs'][number]['type']): string => {
      if (t.kind === 'fixed') return `'${t.dtype}'`;
      if (bound.has(t.name)) return `NoInfer<${t.name}>`;
      bound.add(t.name);
      return t.name;
    };
    const params = [
      ...op.inputs.map((i) => `${i.name}${i.optional ? '?' : ''}: Tensor<${inputType(i.type)}>${i.optional ? ' | undefined' : ''}`),
      `attrs${anyRequired ? '' : '?'}: ${op.ident.pascal}Attrs`,
    ];
    return {
      attrs: lines(`/** Attributes of ${op.name}. */`, `export interface ${op.ident.pascal}Attrs {`, attrs, '}'),
      fn: (tensor: string, wrap: (r: string) => string): string => lines(
        `  /** ${commentText(op.description || op.name)} */`,
        `  ${op.ident.camel}${tvs.length ? `<${tvs.join(', ')}>` : ''}(${params.join(', ').replace(/\bTensor</g, `${tensor}<`)}): ${wrap(`{ ${op.outputs.map((o) => `${o.name}: ${tensor}<${typeOf(o.type)}>`).join('; ')} }`)};`,
      ),
    };
  });
  return lines(
    '// Types of the opforge Node binding.',
    '',
    `export type DType = ${DTYPES.map((d) => `'${d}'`).join(' | ')};`,
    '',
    '/** The TypedArray holding each dtype (16-bit floats as raw bits; bool as 0/1 bytes). */',
    'export interface ArrayFor {',
    arrayFor,
    '}',
    '',
    '/** A dense row-major tensor; `data` is used without copying. */',
    'export interface Tensor<D extends DType = DType> {',
    '  readonly dtype: D;',
    '  readonly dims: readonly number[];',
    '  readonly data: ArrayFor[D];',
    '}',
    '',
    ops.map((o) => o.attrs).join('\n\n'),
    '',
    '/** A tensor in CUDA memory (from Device.toDevice or a CUDA op); freed by Device.free or garbage collection. */',
    'export interface DeviceTensor<D extends DType = DType> {',
    '  readonly dtype: D;',
    '  readonly dims: readonly number[];',
    "  readonly device: 'cuda';",
    '  readonly handle: unknown;',
    '}',
    '',
    '/** Host tensors run the CPU kernel; device tensors the CUDA kernel, with device outputs (queued, not awaited). */',
    'export interface Ops {',
    // Host overload last: TypeScript reports the last overload's error, the one most callers mean.
    ops.map((o) => [o.fn('DeviceTensor', (r) => r), o.fn('Tensor', (r) => r)]).flat(),
    '}',
    '',
    '/** The ops on a worker thread: resolved when the kernel has finished. */',
    'export interface AsyncOps {',
    ops.map((o) => [o.fn('DeviceTensor', (r) => `Promise<${r}>`), o.fn('Tensor', (r) => `Promise<${r}>`)]).flat(),
    '}',
    '',
    'export interface Device {',
    '  /** Built with CUDA and a GPU present now. */',
    '  cudaAvailable(): boolean;',
    '  toDevice<D extends DType>(t: Tensor<D>): DeviceTensor<D>;',
    '  /** Waits for queued kernels; their failures surface here. */',
    '  toHost<D extends DType>(t: DeviceTensor<D>): Tensor<D>;',
    '  free(t: DeviceTensor): void;',
    '}',
    '',
    'export declare const OPS: Readonly<Record<string, unknown>>;',
    'export declare function bind(addon: unknown): Ops;',
    'export declare function bindAsync(addon: unknown): AsyncOps;',
    'export declare function device(addon: unknown): Device;',
  );
}
