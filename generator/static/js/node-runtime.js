// @ts-check
// The opforge Node binding's runtime: argument checks, the call ABI with the addon (scratch slots,
// see addon_base.h, "the call ABI"), the pool of small outputs and device memory. Generated
// index.js holds only what differs per project: the dtype table, the ops' descriptors and bind().
// Arguments are checked here and again in the op core; errors name the op and the argument.

import { markAsUntransferable } from 'node:worker_threads';

/**
 * @typedef {{ name: string, dtypes: string[], rank: number | number[] | null, optional: boolean, minCount?: number }} InputDesc
 *   minCount: a variadic input (the last), passed as an array of at least that many tensors
 * @typedef {boolean | number | string | number[]} AttrValue
 * @typedef {{ name: string, type: 'bool' | 'int' | 'float' | 'string' | 'ints' | 'floats', required: boolean,
 *   default: AttrValue | undefined, enum: (string | number)[] | undefined, min: number | undefined,
 *   max: number | undefined, minExclusive?: true, maxExclusive?: true, length?: number[], slot: number,
 *   arg: number }} AttrDesc
 * @typedef {{ name: string, fn: string, fnAsync: string, inputs: InputDesc[], outputs: string[],
 *   arity: number, attributes: AttrDesc[], dataDims?: [number, number, number][], members?: [number, string] }} OpDesc
 *   dataDims: [output, axis, data dim] per dim the kernel decides (the addon returns their values last)
 *   members: a variadic output: its first member's place and its name (its members come last,
 *   returned as one array under that name)
 * @typedef {{ dtype: string, dims: number[], data?: ArrayLike<unknown>, device?: 'cuda', handle?: unknown }} Tensor
 * @typedef {{ version: number, scratch: ArrayBuffer, tensorSlots: number, inputBase: number,
 *   outputBase: number, attrBase: number, poolExhausted: number, maxMembers: number }} Abi
 * @typedef {{ abi?: Abi, set_pool(pool: ArrayBuffer): void, cuda_available(): boolean,
 *   built_with_cuda?: boolean, to_device(t: Tensor): Tensor, to_host(t: Tensor): Tensor,
 *   free(t: Tensor): void } & Record<string, unknown>} Addon
 * @typedef {Record<string, Function>} TypedArrays  dtype name -> typed-array constructor, in the op core's DType order
 * @typedef {{ addon: Addon, slots: Float64Array, arrays: TypedArrays, dtypes: string[], tensorSlots: number,
 *   inputBase: number, outputBase: number, attrBase: number, poolExhausted: number, maxMembers: number }} Connection
 */

/**
 * @param {OpDesc} op
 * @param {AttrDesc} a
 * @param {unknown} v
 */
function checkAttr(op, a, v) {
  const where = `${op.name}: attribute ${a.name}`;
  /** @param {unknown} x */
  const isInt = (x) => typeof x === 'number' && Number.isInteger(x);
  switch (a.type) {
    case 'bool':
      if (typeof v !== 'boolean') throw new TypeError(`${where} must be a boolean`);
      break;
    case 'int':
      if (!isInt(v)) throw new TypeError(`${where} must be an integer`);
      break;
    case 'float':
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new TypeError(`${where} must be a finite number`);
      break;
    case 'string':
      if (typeof v !== 'string') throw new TypeError(`${where} must be a string`);
      break;
    case 'ints':
      if (!Array.isArray(v) || !v.every(isInt)) throw new TypeError(`${where} must be an array of integers`);
      break;
    case 'floats':
      if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
        throw new TypeError(`${where} must be an array of finite numbers`);
      break;
  }
  // The counts the list may have (`length: 2`, `length: [2, 4]`).
  if (a.length !== undefined && Array.isArray(v) && !a.length.includes(v.length)) {
    const counts =
      a.length.length === 1 ? `exactly ${a.length[0]}` : `${a.length.slice(0, -1).join(', ')} or ${a.length.at(-1)}`;
    throw new RangeError(`${where} must have ${counts} elements, got ${v.length}`);
  }
  const values = /** @type {number[]} */ (Array.isArray(v) ? v : [v]);
  if (a.enum !== undefined && !a.enum.includes(/** @type {string | number} */ (v)))
    throw new RangeError(`${where} must be one of ${a.enum.join(', ')}, got ${String(v)}`);
  for (const x of values) {
    if (a.min !== undefined && (x < a.min || (a.minExclusive && x === a.min)))
      throw new RangeError(`${where} must be ${a.minExclusive ? '>' : '>='} ${a.min}, got ${x}`);
    if (a.max !== undefined && (x > a.max || (a.maxExclusive && x === a.max)))
      throw new RangeError(`${where} must be ${a.maxExclusive ? '<' : '<='} ${a.max}, got ${x}`);
  }
}

/** Per addon: its scratch slots and its pool of small outputs. */
const CONNECTED = new WeakMap();

/**
 * The addon's call state, made once per addon; the addon must speak this index.js's ABI.
 * @param {Addon} addon
 * @param {number} version  the ABI version index.js was generated for
 * @param {TypedArrays} arrays
 * @returns {Connection}
 */
export function connect(addon, version, arrays) {
  let c = CONNECTED.get(addon);
  if (c === undefined) {
    if (addon?.abi?.version !== version)
      throw new Error(
        'opforge: the loaded addon does not match out/node/index.js (built from another out/?); run `opforge build`',
      );
    const { scratch, tensorSlots, inputBase, outputBase, attrBase, poolExhausted, maxMembers } = addon.abi;
    c = {
      addon,
      slots: new Float64Array(scratch),
      arrays,
      dtypes: Object.keys(arrays),
      tensorSlots,
      inputBase,
      outputBase,
      attrBase,
      poolExhausted,
      maxMembers,
    };
    markAsUntransferable(scratch);
    addon.set_pool(newPool());
    CONNECTED.set(addon, c);
  }
  return c;
}

/**
 * Small outputs are views into 64 KiB pools, a new one whenever the addon reports the last full:
 * a transfer would detach every output sharing one.
 */
function newPool() {
  const b = new ArrayBuffer(64 * 1024);
  markAsUntransferable(b);
  return b;
}

/**
 * Checks the arguments, writes dtypes, dims and scalar attributes into the slots and calls the op.
 * @param {Connection} c
 * @param {OpDesc} op
 * @param {(Tensor | undefined | null)[]} inputs
 * @param {Record<string, unknown> | undefined} attrs
 * @param {boolean} isAsync
 */
export function call(c, op, inputs, attrs, isAsync) {
  if (attrs !== undefined && (attrs === null || typeof attrs !== 'object'))
    throw new TypeError(`${op.name}: attributes must be an object`);
  const given = attrs ?? {};
  if (attrs !== undefined) {
    for (const k of Object.keys(given)) {
      if (!op.attributes.some((a) => a.name === k))
        throw new TypeError(
          `${op.name}: unknown attribute ${k} (attributes: ${op.attributes.map((a) => a.name).join(', ') || 'none'})`,
        );
    }
  }
  const S = c.slots;
  /** @type {unknown[]} */
  const args = new Array(op.arity);
  for (let k = 0; k < op.attributes.length; k++) {
    const a = /** @type {AttrDesc} */ (op.attributes[k]);
    const v = given[a.name] ?? a.default;
    if (v === undefined) throw new TypeError(`${op.name}: attribute ${a.name} is required`);
    checkAttr(op, a, v);
    if (a.slot >= 0) S[c.attrBase + a.slot] = Number(v);
    else args[a.arg] = v;
  }
  let onDevice = false;
  // The tensors in call order: the inputs, then a variadic input's members (their own slots).
  /** @type {{ spec: InputDesc, t: unknown, where: string, arg: number, member: number }[]} */
  const tensors = [];
  for (let i = 0; i < op.inputs.length; i++) {
    const spec = /** @type {InputDesc} */ (op.inputs[i]);
    const where = `${op.name}: input ${spec.name}`;
    if (spec.minCount === undefined) {
      tensors.push({ spec, t: inputs[i], where, arg: i, member: -1 });
      continue;
    }
    const list = inputs[i];
    if (!Array.isArray(list)) throw new TypeError(`${where} is variadic: pass an array of tensors`);
    if (list.length < spec.minCount || list.length > c.maxMembers)
      throw new RangeError(`${where} has ${list.length} members; it takes ${spec.minCount} to ${c.maxMembers}`);
    args[i] = new Array(list.length);
    list.forEach((t, m) => tensors.push({ spec, t, where: `${where} (member ${m})`, arg: i, member: m }));
  }
  for (let k = 0; k < tensors.length; k++) {
    const { spec, t: given, where, arg, member } = /** @type {(typeof tensors)[number]} */ (tensors[k]);
    const list = /** @type {unknown[]} */ (member < 0 ? args : args[arg]);
    /** @param {unknown} v */
    const put = (v) => {
      list[member < 0 ? arg : member] = v;
    };
    const t = /** @type {Tensor | undefined | null} */ (given);
    if (t === undefined || t === null) {
      if (!spec.optional) throw new TypeError(`${where} is required`);
      put(undefined);
      continue;
    }
    if (typeof t !== 'object' || !Array.isArray(t.dims))
      throw new TypeError(`${where} must be a tensor { dtype, dims, data }`);
    if (!spec.dtypes.includes(t.dtype))
      throw new TypeError(`${where} has dtype ${String(t.dtype)}; allowed: ${spec.dtypes.join(', ')}`);
    const dims = t.dims;
    // rank: a number, null (any) or the list of ranks allowed (`rank: [4, 5]`).
    if (Array.isArray(spec.rank) ? !spec.rank.includes(dims.length) : spec.rank !== null && dims.length !== spec.rank)
      throw new RangeError(
        `${where} must have rank ${Array.isArray(spec.rank) ? spec.rank.join(' or ') : spec.rank}, got ${dims.length}`,
      );
    if (dims.length > c.tensorSlots - 2) throw new RangeError(`${where} has more than ${c.tensorSlots - 2} dims`);
    let n = 1;
    for (let d = 0; d < dims.length; d++) {
      const x = dims[d];
      if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 0)
        throw new RangeError(`${where}.dims must be non-negative integers, got [${dims.join(', ')}]`);
      n *= x;
    }
    if (t.device !== undefined) {
      if (t.device !== 'cuda' || t.handle === undefined)
        throw new TypeError(`${where}: a device tensor comes from toDevice() or a CUDA op`);
      put(t.handle);
      onDevice = true;
    } else {
      const Array_ = /** @type {Function} */ (c.arrays[t.dtype]);
      if (!(t.data instanceof Array_)) throw new TypeError(`${where}: ${t.dtype} data must be a ${Array_.name}`);
      if (t.data.length !== n)
        throw new RangeError(`${where} has ${t.data.length} elements, dims [${dims.join(', ')}] need ${n}`);
      put(t.data);
    }
    const b = c.inputBase + k * c.tensorSlots;
    S[b] = c.dtypes.indexOf(t.dtype);
    S[b + 1] = dims.length;
    for (let d = 0; d < dims.length; d++) S[b + 2 + d] = /** @type {number} */ (dims[d]);
  }
  const addon = /** @type {{ [fn: string]: (...a: unknown[]) => unknown }} */ (/** @type {unknown} */ (c.addon));
  const name = isAsync ? op.fnAsync : op.fn;
  const r = /** @type {(...a: unknown[]) => unknown} */ (addon[name]).apply(addon, args);
  // The output dtypes and dims are in the slots now; read them before another call reuses them.
  const made = outputs(c, op, onDevice);
  if (S[c.poolExhausted] !== 0) {
    S[c.poolExhausted] = 0;
    c.addon.set_pool(newPool());
  }
  return isAsync ? /** @type {Promise<unknown>} */ (r).then((values) => named(op, made, values)) : named(op, made, r);
}

/**
 * Output tensors without their data: dtype and dims from the scratch slots.
 * @param {Connection} c
 * @param {OpDesc} op
 * @param {boolean} onDevice
 * @returns {Tensor[]}
 */
function outputs(c, op, onDevice) {
  const S = c.slots;
  const made = new Array(op.outputs.length);
  for (let o = 0; o < op.outputs.length; o++) {
    const b = c.outputBase + o * c.tensorSlots;
    if (/** @type {number} */ (S[b + 1]) < 0) continue; // left out by the attributes (`present:`)
    const dims = new Array(S[b + 1]);
    for (let d = 0; d < dims.length; d++) dims[d] = S[b + 2 + d];
    const dtype = /** @type {string} */ (c.dtypes[/** @type {number} */ (S[b])]);
    made[o] = onDevice ? { dtype, dims, device: 'cuda', handle: undefined } : { dtype, dims, data: undefined };
  }
  return made;
}

/**
 * Outputs by name: one output comes back as its data (or handle), several as an array.
 * @param {OpDesc} op
 * @param {Tensor[]} made
 * @param {unknown} values
 */
function named(op, made, values) {
  /** @type {Record<string, Tensor>} */
  const r = {};
  if (op.dataDims) exactDims(op.dataDims, made, /** @type {unknown[]} */ (values));
  const many = made.length > 1 || op.dataDims !== undefined;
  for (let o = 0; o < made.length; o++) {
    const t = /** @type {Tensor | undefined} */ (made[o]);
    if (t === undefined) continue;
    let v = many ? /** @type {unknown[]} */ (values)[o] : values;
    // Allocated at the bound: a host output is the leading part of its array (a view, no copy).
    if (op.dataDims && t.device !== 'cuda')
      v = /** @type {Uint8Array} */ (v).subarray(
        0,
        t.dims.reduce((n, d) => n * d, 1),
      );
    if (t.device === 'cuda') t.handle = v;
    else t.data = /** @type {ArrayLike<unknown>} */ (v);
    if (op.members && o >= op.members[0]) {
      const list = /** @type {Tensor[]} */ (
        /** @type {unknown} */ ((r[op.members[1]] ??= /** @type {Tensor} */ (/** @type {unknown} */ ([]))))
      );
      list.push(t);
    } else r[/** @type {string} */ (op.outputs[o])] = t;
  }
  return r;
}

/**
 * The dims the kernel decided, from the values the addon returns after the outputs.
 * @param {[number, number, number][]} dataDims
 * @param {Tensor[]} made
 * @param {unknown[]} values
 */
function exactDims(dataDims, made, values) {
  const sizes = /** @type {Float64Array} */ (values[made.length]);
  for (const [o, axis, d] of dataDims) {
    const t = made[o];
    if (t !== undefined) t.dims[axis] = /** @type {number} */ (sizes[d]);
  }
}

/**
 * Device memory: copies between host and CUDA, and explicit release.
 * @param {Addon} addon
 */
export function device(addon) {
  return {
    cudaAvailable: () => addon.cuda_available(),
    builtWithCuda: () => addon.built_with_cuda === true,
    /** @param {Tensor} t */
    toDevice: (t) => addon.to_device(t),
    /** @param {Tensor} t */
    toHost: (t) => addon.to_host(t),
    /** @param {Tensor} t */
    free: (t) => addon.free(t),
  };
}
