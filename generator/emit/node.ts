// The Node backend: a node-addon-api addon over every op core's CPU path (out/node/addon.cpp,
// built by cmake-js from out/node/CMakeLists.txt) and a typed JS entry (index.js + index.d.ts)
// that validates arguments and names the op and argument in every error.

import type { AttributeIR, OpIR, ProjectIR } from '../ir.js';
import { allowedDtypes } from '../ir-helpers.js';
import { coreHeaderPath, cppNamespace } from '../ir-helpers.js';
import { ATTR_INFO, DTYPES, DTYPE_INFO } from '../type-table.js';
import { lines, projectFile, staticFile, type Emitter, type GeneratedFile } from './emitter.js';
import { commentText, tsString } from './literals.js';

/**
 * Version of the call ABI between index.js and the addon (addon_base.h, "the call ABI"): emitted
 * into both, so an addon built from another opforge's out/ is reported, not misread. Bump it when
 * the arguments or the scratch layout change.
 */
const NODE_ABI_VERSION = 3;

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
    '# Built by cmake-js (runtime/index.ts build()): the Node addon over every op core and CPU kernel;',
    '# with -DWITH_CUDA=ON also the CUDA kernels (cudart linked statically, so the addon still',
    '# loads and runs its CPU path on a machine without a GPU or CUDA installation).',
    'cmake_minimum_required(VERSION 3.18)',
    'project(opforge_node LANGUAGES CXX)',
    'set(CMAKE_CXX_STANDARD 17)',
    'add_definitions(-DNAPI_VERSION=8 -DNAPI_DISABLE_CPP_EXCEPTIONS)',
    'add_subdirectory("${CMAKE_CURRENT_SOURCE_DIR}/.." opforge_ops)',
    '# node-addon-api\'s headers: opforge build passes the copy Node resolves from opforge\'s install',
    '# (nested or hoisted); without it, the copy Node resolves from the project root.',
    'if(NOT NODE_ADDON_API_DIR)',
    '  execute_process(COMMAND node -p "require(\'path\').dirname(require.resolve(\'node-addon-api/package.json\'))"',
    '    WORKING_DIRECTORY "${OPFORGE_PROJECT_ROOT}" OUTPUT_VARIABLE NODE_ADDON_API_DIR OUTPUT_STRIP_TRAILING_WHITESPACE)',
    'endif()',
    'if(NOT EXISTS "${NODE_ADDON_API_DIR}/napi.h")',
    '  message(FATAL_ERROR "node-addon-api not found (NODE_ADDON_API_DIR=\'${NODE_ADDON_API_DIR}\'): npm install node-addon-api")',
    'endif()',
    'add_library(opforge_node SHARED addon.cpp ${CMAKE_JS_SRC}',
    ...project.ops.map((op) => `  $<TARGET_OBJECTS:opforge_${op.ident.snake}_cpu>`),
    ')',
    'target_include_directories(opforge_node PRIVATE ${CMAKE_JS_INC} "${NODE_ADDON_API_DIR}" "${CMAKE_CURRENT_SOURCE_DIR}/include")',
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

/** Scalar attributes (bool, int, float) travel in scratch slots; strings and lists as arguments. */
const isScalar = (a: AttributeIR): boolean => a.type === 'bool' || a.type === 'int' || a.type === 'float';

/** Where each attribute travels in a call: its scratch slot (scalars) or its argument index (after the inputs). */
function attrPlaces(op: OpIR): { attr: AttributeIR; slot: number; arg: number }[] {
  let slots = 0;
  let args = op.inputs.length;
  return op.attributes.map((attr) => (isScalar(attr) ? { attr, slot: slots++, arg: -1 } : { attr, slot: -1, arg: args++ }));
}

function attrRead(opName: string, p: { attr: AttributeIR; slot: number; arg: number }): string[] {
  const a = p.attr;
  const slot = `slots[opforge::node::abi::kAttrBase + ${p.slot}]`;
  const arg = `info[${p.arg}]`;
  switch (a.type) {
    case 'bool': return [`  attrs->${a.name} = ${slot} != 0;`];
    case 'int': return [`  attrs->${a.name} = opforge::node::toInt64(${slot});`];
    case 'float': return [`  attrs->${a.name} = static_cast<float>(${slot});`];
    case 'string': return [
      `  if (!${arg}.IsString()) return opforge::node::raise<Napi::TypeError>(info.Env(), "${opName}: attribute ${a.name} must be a string"), false;`,
      `  attrs->${a.name} = ${arg}.As<Napi::String>().Utf8Value();`];
    case 'ints':
    case 'floats': {
      const conv = a.type === 'ints' ? 'Int64Value()' : 'FloatValue()';
      return [
        `  if (!${arg}.IsArray()) return opforge::node::raise<Napi::TypeError>(info.Env(), "${opName}: attribute ${a.name} must be an array"), false;`,
        '  {',
        `    Napi::Array v = ${arg}.As<Napi::Array>();`,
        `    attrs->${a.name}.clear();`,
        `    for (uint32_t i = 0; i < v.Length(); ++i) attrs->${a.name}.push_back(v.Get(i).ToNumber().${conv});`,
        '  }'];
    }
  }
}

function addon(project: ProjectIR): string {
  const fns = project.ops.map((op) => {
    const ns = cppNamespace(op);
    const P = op.ident.pascal;
    const places = attrPlaces(op);
    const reads = places.flatMap((p) => attrRead(op.name, p));
    return lines(
      `// ${op.name}: run_${op.ident.snake}(${[...op.inputs.map((i) => i.name), ...places.filter((p) => p.arg >= 0).map((p) => p.attr.name)].join(', ')}) and run_${op.ident.snake}_async;`,
      '// dims, dtypes and scalar attributes are in the scratch slots. Attributes were type-checked in index.js.',
      `bool read${P}Attrs(const Napi::CallbackInfo& info, const double* slots, ${ns}::Attrs* attrs) {`,
      places.some((p) => p.slot >= 0) ? [] : ['  (void)slots;'],
      places.some((p) => p.arg >= 0) ? [] : ['  (void)info;'],
      op.attributes.length ? [] : ['  (void)attrs;'],
      reads,
      '  return !info.Env().IsExceptionPending();  // a hostile value (e.g. a throwing getter) left an exception',
      '}',
      '',
      `Napi::Value Run${P}(const Napi::CallbackInfo& info) {`,
      '  double* slots = opforge::node::scratch(info.Env());',
      `  ${ns}::Attrs attrs;`,
      `  if (slots == nullptr) return opforge::node::raise<Napi::Error>(info.Env(), "${op.name}: the addon's scratch buffer is gone"), info.Env().Undefined();`,
      `  return read${P}Attrs(info, slots, &attrs) ? opforge::node::run<${ns}::Core>(info, slots, attrs) : info.Env().Undefined();`,
      '}',
      `Napi::Value Run${P}Async(const Napi::CallbackInfo& info) {`,
      '  double* slots = opforge::node::scratch(info.Env());',
      `  ${ns}::Attrs attrs;`,
      `  if (slots == nullptr) return opforge::node::raise<Napi::Error>(info.Env(), "${op.name}: the addon's scratch buffer is gone"), info.Env().Undefined();`,
      `  return read${P}Attrs(info, slots, &attrs) ? opforge::node::runAsync<${ns}::Core>(info, slots, attrs) : info.Env().Undefined();`,
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
    `  opforge::node::exportRuntime(env, exports, ${NODE_ABI_VERSION});`,
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
    `    outputs: [${op.outputs.map((o) => tsString(o.name)).join(', ')}], arity: ${op.inputs.length + attrPlaces(op).filter((p) => p.arg >= 0).length},`,
    `    attributes: [${attrPlaces(op).map(({ attr: a, slot, arg }) => `{ name: ${tsString(a.name)}, type: ${tsString(a.type)}, required: ${a.required}, default: ${a.default === undefined ? 'undefined' : jsValue(a.default)}, enum: ${a.enum ? `[${a.enum.map(jsValue).join(', ')}]` : 'undefined'}, min: ${a.min ?? 'undefined'}, max: ${a.max ?? 'undefined'}, slot: ${slot}, arg: ${arg} }`).join(', ')}],`,
    '  },',
  ));
  const arrays = DTYPES.map((d) => `  ${d}: ${DTYPE_INFO[d].tsArray},`);
  return lines(
    '// Typed entry of the opforge Node binding: bind(addon) returns one function per op.',
    '// Arguments are checked here and in the op core; errors name the op and the argument.',
    '',
    "import { markAsUntransferable } from 'node:worker_threads';",
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
    "const DTYPE_NAMES = Object.keys(ARRAYS); // in the op core's DType order",
    '',
    '// Per addon: its scratch slots (see addon_base.h, "the call ABI") and its pool of small outputs.',
    'const CONNECTED = new WeakMap();',
    'function connect(addon) {',
    '  let c = CONNECTED.get(addon);',
    '  if (c === undefined) {',
    `    if (addon?.abi?.version !== ${NODE_ABI_VERSION}) throw new Error('opforge: the loaded addon does not match out/node/index.js (built from another out/?); run \`opforge build\`');`,
    '    const { scratch, tensorSlots, inputBase, outputBase, attrBase, poolExhausted } = addon.abi;',
    '    c = { addon, slots: new Float64Array(scratch), tensorSlots, inputBase, outputBase, attrBase, poolExhausted };',
    '    markAsUntransferable(scratch);',
    '    addon.set_pool(newPool());',
    '    CONNECTED.set(addon, c);',
    '  }',
    '  return c;',
    '}',
    '',
    '// Small outputs are views into 64 KiB pools, a new one whenever the addon reports the last full:',
    '// a transfer would detach every output sharing one.',
    'function newPool() {',
    '  const b = new ArrayBuffer(64 * 1024);',
    '  markAsUntransferable(b);',
    '  return b;',
    '}',
    '',
    'function call(c, op, inputs, attrs, isAsync) {',
    "  if (attrs !== undefined && (attrs === null || typeof attrs !== 'object')) throw new TypeError(`${op.name}: attributes must be an object`);",
    '  const given = attrs ?? {};',
    '  if (attrs !== undefined) {',
    '    for (const k of Object.keys(given)) {',
    '      if (!op.attributes.some((a) => a.name === k)) throw new TypeError(`${op.name}: unknown attribute ${k} (attributes: ${op.attributes.map((a) => a.name).join(\', \') || \'none\'})`);',
    '    }',
    '  }',
    '  const S = c.slots;',
    '  const args = new Array(op.arity);',
    '  for (let k = 0; k < op.attributes.length; k++) {',
    '    const a = op.attributes[k];',
    '    const v = given[a.name] ?? a.default;',
    '    if (v === undefined) throw new TypeError(`${op.name}: attribute ${a.name} is required`);',
    '    checkAttr(op, a, v);',
    '    if (a.slot >= 0) S[c.attrBase + a.slot] = +v;',
    '    else args[a.arg] = v;',
    '  }',
    '  let onDevice = false;',
    '  for (let i = 0; i < op.inputs.length; i++) {',
    '    const spec = op.inputs[i];',
    '    const t = inputs[i];',
    "    const where = `${op.name}: input ${spec.name}`;",
    '    if (t === undefined || t === null) { if (!spec.optional) throw new TypeError(`${where} is required`); args[i] = undefined; continue; }',
    "    if (typeof t !== 'object' || !Array.isArray(t.dims)) throw new TypeError(`${where} must be a tensor { dtype, dims, data }`);",
    '    if (!spec.dtypes.includes(t.dtype)) throw new TypeError(`${where} has dtype ${String(t.dtype)}; allowed: ${spec.dtypes.join(\', \')}`);',
    '    const dims = t.dims;',
    '    if (spec.rank !== null && dims.length !== spec.rank) throw new RangeError(`${where} must have rank ${spec.rank}, got ${dims.length}`);',
    '    if (dims.length > c.tensorSlots - 2) throw new RangeError(`${where} has more than ${c.tensorSlots - 2} dims`);',
    '    let n = 1;',
    '    for (let d = 0; d < dims.length; d++) {',
    '      const x = dims[d];',
    "      if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0) throw new RangeError(`${where}.dims must be non-negative integers, got [${dims.join(', ')}]`);",
    '      n *= x;',
    '    }',
    '    if (t.device !== undefined) {',
    "      if (t.device !== 'cuda' || t.handle === undefined) throw new TypeError(`${where}: a device tensor comes from toDevice() or a CUDA op`);",
    '      args[i] = t.handle;',
    '      onDevice = true;',
    '    } else {',
    '      if (!(t.data instanceof ARRAYS[t.dtype])) throw new TypeError(`${where}: ${t.dtype} data must be a ${ARRAYS[t.dtype].name}`);',
    '      if (t.data.length !== n) throw new RangeError(`${where} has ${t.data.length} elements, dims [${dims.join(\', \')}] need ${n}`);',
    '      args[i] = t.data;',
    '    }',
    '    const b = c.inputBase + i * c.tensorSlots;',
    '    S[b] = DTYPE_NAMES.indexOf(t.dtype);',
    '    S[b + 1] = dims.length;',
    '    for (let d = 0; d < dims.length; d++) S[b + 2 + d] = dims[d];',
    '  }',
    '  const r = c.addon[isAsync ? op.fnAsync : op.fn](...args);',
    '  // The output dtypes and dims are in the slots now; read them before another call reuses them.',
    '  const made = outputs(c, op, onDevice);',
    '  if (S[c.poolExhausted] !== 0) { S[c.poolExhausted] = 0; c.addon.set_pool(newPool()); }',
    '  return isAsync ? r.then((values) => named(op, made, values)) : named(op, made, r);',
    '}',
    '',
    '// Output tensors without their data: dtype and dims from the scratch slots.',
    'function outputs(c, op, onDevice) {',
    '  const S = c.slots;',
    '  const made = new Array(op.outputs.length);',
    '  for (let o = 0; o < op.outputs.length; o++) {',
    '    const b = c.outputBase + o * c.tensorSlots;',
    '    const dims = new Array(S[b + 1]);',
    '    for (let d = 0; d < dims.length; d++) dims[d] = S[b + 2 + d];',
    "    made[o] = onDevice ? { dtype: DTYPE_NAMES[S[b]], dims, device: 'cuda', handle: undefined } : { dtype: DTYPE_NAMES[S[b]], dims, data: undefined };",
    '  }',
    '  return made;',
    '}',
    '',
    '// Outputs by name: one output comes back as its data (or handle), several as an array.',
    'function named(op, made, values) {',
    '  const r = {};',
    '  for (let o = 0; o < made.length; o++) {',
    '    const t = made[o];',
    '    const v = made.length === 1 ? values : values[o];',
    "    if (t.device === 'cuda') t.handle = v; else t.data = v;",
    '    r[op.outputs[o]] = t;',
    '  }',
    '  return r;',
    '}',
    '',
    '/** The typed ops of a loaded addon (runtime load()): host tensors run on the CPU, device tensors on CUDA. */',
    'export function bind(addon) {',
    '  const c = connect(addon);',
    '  return {',
    project.ops.map((op) => `    ${op.ident.camel}: (${[...op.inputs.map((i) => i.name), 'attrs'].join(', ')}) => call(c, OPS.${op.ident.camel}, [${op.inputs.map((i) => i.name).join(', ')}], attrs, false),`),
    '  };',
    '}',
    '',
    '/** The same ops running off the JS thread: each returns a Promise (argument errors reject it). */',
    'export function bindAsync(addon) {',
    '  const c = connect(addon);',
    '  return {',
    project.ops.map((op) => `    ${op.ident.camel}: async (${[...op.inputs.map((i) => i.name), 'attrs'].join(', ')}) => call(c, OPS.${op.ident.camel}, [${op.inputs.map((i) => i.name).join(', ')}], attrs, true),`),
    '  };',
    '}',
    '',
    '/** Device memory: copies between host and CUDA, and explicit release. */',
    'export function device(addon) {',
    '  return {',
    '    cudaAvailable: () => addon.cuda_available(),',
    '    builtWithCuda: () => addon.built_with_cuda === true,',
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
    '/**',
    ' * A dense row-major tensor; `data` is used without copying. Outputs under 4 KiB are views into a',
    ' * shared pool buffer, as Node pools small Buffers: use `data` itself, not `data.buffer`.',
    ' */',
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
    '  /** Compiled with the CUDA kernels (`opforge build --cuda`), whether or not a GPU is present. */',
    '  builtWithCuda(): boolean;',
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
