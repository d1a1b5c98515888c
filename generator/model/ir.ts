// The typed intermediate representation every emitter reads. Specs are parsed and
// validated once into this shape; emitters never look at YAML or re-parse strings.

import type { DType, AttrType } from './type-table.js';
export type { DType, AttrType } from './type-table.js';

/** A dim expression, parsed once from the spec. */
export type Expr =
  | { kind: 'int'; value: number }
  // axis normalized to >= 0 for an input of one rank; negative (from the end) for an input of several
  // ranks (`rank: [4, 5]`), where every listed rank has that dim.
  //
  // `member` (a variadic output's shape only: `feats[member][2]`): the dim of that member of the
  // variadic input at `inputIndex`, the call's tensor inputIndex + member; absent: member 0.
  | { kind: 'dim'; input: string; inputIndex: number; axis: number; member?: number }
  // The input's rank (a single declared rank is folded to an int).
  | { kind: 'rank'; input: string; inputIndex: number }
  // The number of members of the variadic input (`count(feats)`); its dims, rank and slices read
  // its first member, which is the tensor at `inputIndex`.
  | { kind: 'count'; input: string; inputIndex: number }
  // The dims input[start:end] (Python's bounds; null: missing): a list, only ever an operand of a
  // `cmp` == or != with another slice, in `checks:` (GatherTopk: `indices[:-1] == data[:rank(indices) - 1]`).
  // A slice outside its input's dims makes either comparison false.
  | { kind: 'slice'; input: string; inputIndex: number; start: Expr | null; end: Expr | null }
  | { kind: 'attr'; name: string }
  // An element of an `ints` attribute; index normalized to >= 0, within the declared `length`.
  // `guarded` (a variadic output's member shape only): an `ints` attribute without a declared
  // length, read where a check makes sure it is long enough; printers give 0 past its end, which
  // only the unchecked evaluation of an absent member's shape can reach.
  | { kind: 'elem'; name: string; index: number; guarded?: true }
  // The element count of a list attribute.
  | { kind: 'len'; name: string }
  // sizeof(T): the bytes of one element of the dtype type variable T is bound to, read from the
  // first required input of that type (`inputIndex`). Only in `workspace` (and the lets it reads):
  // the one size every backend computes in the C++ op core, where the dtypes are known.
  | { kind: 'sizeof'; typeVar: string; inputIndex: number }
  // numel(x): the element count of input x (the product of its dims). Only in a Triton kernel's
  // `args` and `grid` (kernels.triton), which the C++ launcher evaluates with the tensors at hand.
  | { kind: 'numel'; input: string; inputIndex: number }
  // `%` is the floor modulo (Python's): the result takes the divisor's sign.
  | { kind: 'binary'; op: '+' | '-' | '*' | '//' | '%'; left: Expr; right: Expr }
  | { kind: 'call'; fn: 'ceil_div' | 'max' | 'min'; args: [Expr, Expr] }
  // floor(scale * f) or ceil(scale * f) of a float attribute (or element) f, taken as the exact
  // value of its float32: every backend gives the same integer (TensorRT through f's dyadic form).
  | { kind: 'round'; fn: 'floor' | 'ceil'; scale: Expr; factor: FloatRef }
  // Conditions (bool-valued): comparisons of ints, a bool attribute, a string attribute against one
  // of its values, and / or / not. `cond` picks `yes` or `no` (both ints, or both bools).
  | { kind: 'cmp'; op: CmpOp; left: Expr; right: Expr }
  | { kind: 'flag'; name: string }
  | { kind: 'is'; name: string; value: string }
  | { kind: 'logic'; op: 'and' | 'or'; left: Expr; right: Expr }
  | { kind: 'not'; arg: Expr }
  | { kind: 'cond'; cond: Expr; yes: Expr; no: Expr };

export type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>=';

/** A float attribute, or an element of a `floats` attribute with a declared length. */
export type FloatRef = { name: string; index?: number };

/** Whether an expression is a condition (bool) rather than an integer. */
export function isCondition(e: Expr): boolean {
  switch (e.kind) {
    case 'cmp':
    case 'flag':
    case 'is':
    case 'logic':
    case 'not':
      return true;
    case 'cond':
      return isCondition(e.yes);
    default:
      return false;
  }
}

/** Dtype of a tensor: a fixed dtype or a type variable resolved to its allowed dtypes. */
export type TensorType =
  | { kind: 'fixed'; dtype: DType }
  | { kind: 'var'; name: string; dtypes: DType[] }
  // A heterogeneous variadic input's (`homogeneous: false`): each member has any of `dtypes`, on
  // its own. Not a binding's variable: the kernel gets the members untyped (AnyTensorList).
  | { kind: 'each'; typeVar: string; dtypes: DType[] };

/** One dim of an input's declared shape: unconstrained, or an expression it must equal. */
export type InputDim = { kind: 'any' } | { kind: 'expr'; expr: Expr; source: string };

/** A shape that equals another input's shape, one expression per dim, or dims spliced with slices of inputs' dims. */
export type ShapeIR =
  | { kind: 'like'; input: string; inputIndex: number }
  | { kind: 'dims'; dims: Expr[]; source: string[] }
  | { kind: 'splice'; parts: ShapePart[]; source: string[] };

/**
 * One entry of a spliced output shape: a dim, or the dims `x[start:end]` of an input (Python's
 * slice: a missing bound is the start or the end, a negative one counts from the end). The bounds
 * read only ints, attributes and ranks, so every backend knows the output's rank when it builds
 * the graph (TensorRT's nbDims); a bound outside the input's rank is a run-time error.
 */
export type ShapePart =
  | { kind: 'dim'; expr: Expr }
  | { kind: 'slice'; input: string; inputIndex: number; start: Expr | null; end: Expr | null };

/** What an input's dims must satisfy. */
export type InputConstraint =
  | { kind: 'none' }
  | { kind: 'like'; input: string; inputIndex: number }
  | { kind: 'dims'; dims: InputDim[] };

export interface InputIR {
  name: string;
  /** Case forms of the (validated, keyword-free) name. */
  ident: Idents;
  index: number;
  type: TensorType;
  /** null: any rank, or one of `ranks`. */
  rank: number | null;
  /** The ranks it may have when the spec lists several (`rank: [4, 5]`), ascending; else null. */
  ranks: number[] | null;
  constraint: InputConstraint;
  optional: boolean;
  /** The kernel reads only the dims, never the data. */
  shapeOnly: boolean;
  /**
   * The last input may be variadic: `min` or more tensors in its place (at most MAX_MEMBERS), each
   * with this rank and constraint, and this dtype (homogeneous) or each any of its type variable's
   * dtypes (`homogeneous: false`, ONNX's heterogeneous variadic: `type.kind` is 'each'). A call's
   * tensors are the other inputs, then the members.
   */
  variadic: { min: number; homogeneous: boolean } | null;
  /**
   * Gradients flow to it in every binding where its dtype is a float dtype (it may be one, and is
   * neither shape_only nor marked `differentiable: false`). An integer or bool binding of a mixed
   * type variable never takes a gradient: `differentiableUnder` (ir-helpers) decides per binding.
   */
  differentiable: boolean;
  description: string;
}

export interface OutputIR {
  name: string;
  ident: Idents;
  index: number;
  type: TensorType;
  /**
   * null: the rank of the input it is shaped like, which itself has no single rank, or a spliced
   * shape whose rank depends on the inputs' ranks or on attributes.
   */
  rank: number | null;
  shape: ShapeIR;
  /** Its gradient reaches the backward in every binding where it is a float (not marked `differentiable: false`). */
  differentiable: boolean;
  /**
   * Present only where this condition over attributes holds (`present: return_index`); absent:
   * always present. Such outputs trail the others; a node lists the present ones in order.
   */
  present?: { expr: Expr; source: string };
  /**
   * A member of a variadic output (`variadic: <count>`): the spec's output (`of`), this member's
   * index, and the count the attributes give. The op lists `max` such outputs, named
   * `<of>_<index>`, each present where `count > index`; they come last, and the kernel and the
   * bindings' functions see them as one list.
   */
  member?: {
    of: string;
    ofIdent: Idents;
    index: number;
    count: Expr;
    countSource: string;
    min: number;
    max: number;
    /**
     * The heterogeneous variadic input (its index) whose member of the same index gives this
     * member's dtype (`dtype:` its type variable; `type.kind` is then 'each').
     */
    follows?: number;
  };
  /**
   * The dims the kernel decides (`data_dims`), by axis: `shape`'s dims at those axes are their
   * bounds, what the output is allocated at. Empty for every other output.
   */
  dataDims: { axis: number; dim: number }[];
  description: string;
}

/**
 * A dim the kernel decides at run time (`data_dims:`): NonZero's count, the boxes NMS keeps. The
 * kernel writes the outputs that name it contiguously in their actual dims and sets its value.
 */
export interface DataDimIR {
  name: string;
  ident: Idents;
  index: number;
  /** The upper bound, over input dims, attributes and lets: what its outputs are allocated at. */
  bound: Expr;
  /** The bound as the spec writes it (messages, docs). */
  source: string;
}

/** What a gradient op's input is bound to: a forward input, a forward output, or the gradient flowing into an output. */
export type GradSource = { kind: 'input' | 'output' | 'grad'; index: number };

/** One gradient op of a backward declaration, resolved against that op's spec (indices, not names). */
export interface GradientIR {
  /** The gradient op's name (an op of the same project). */
  op: string;
  ident: Idents;
  /** Per input of the gradient op, in its order: what feeds it (undefined: an optional input left out). */
  inputs: (GradSource | undefined)[];
  /** Per attribute of the gradient op: the forward attribute it takes (undefined: its own default). */
  attributes: (string | undefined)[];
  /** Per output of the gradient op: the forward input whose gradient it is (undefined: not used). */
  outputs: (number | undefined)[];
}

export type AttrValue = boolean | number | string | number[];

export interface AttributeIR {
  name: string;
  ident: Idents;
  type: AttrType;
  required: boolean;
  /** Present unless required. */
  default: AttrValue | undefined;
  enum: (string | number)[] | undefined;
  /** The lower bound, from `min` or `exclusive_min` (then minExclusive: values must exceed it). */
  min: number | undefined;
  minExclusive: boolean;
  /** The upper bound, from `max` or `exclusive_max` (then maxExclusive: values must stay below it). */
  max: number | undefined;
  maxExclusive: boolean;
  /**
   * The element counts a list attribute may have, ascending, when the spec declares them
   * (`length: 2`, or `length: [2, 4]`: either); checked at run time.
   */
  length: readonly number[] | undefined;
  description: string;
}

export interface StateFieldIR {
  name: string;
  ident: Idents;
  type: AttrType;
  description: string;
}

export interface TypeVarIR {
  name: string;
  /** The dtypes it may take (a chosen variable's: its choice's, in order of appearance). */
  dtypes: DType[];
  /**
   * A variable the attributes choose instead of an input (`TOut: 'float16 if output_fp16 else
   * float32'`, TensorRT's CustomEmbLayerNormPluginDynamic): only outputs have its dtype.
   */
  choice?: DtypeChoice;
}

/** A dtype picked by conditions over attributes: `float16 if output_fp16 else float32`. */
export type DtypeChoice =
  | { kind: 'dtype'; dtype: DType }
  | { kind: 'if'; cond: Expr; yes: DtypeChoice; no: DtypeChoice };

/** One assignment of a dtype to every type variable: the unit the kernel contract is declared per. */
export interface TypeBinding {
  /** typeVar name -> dtype, in declaration order of `types`. */
  vars: Record<string, DType>;
  /** Stable suffix such as `f32_i32`; empty when the op has no type variables. */
  suffix: string;
}

export interface TestInputIR {
  name: string;
  /** A variadic input's member (0, 1, ...), listed in order after the other inputs; absent for the others. */
  member?: number;
  /** A heterogeneous variadic input's member: its dtype (the case's `dtype:`, else the first allowed). */
  dtype?: DType;
  shape: number[];
  /** Explicit data, row-major; when absent, seeded random data in `range`. */
  values: number[] | undefined;
  range: [number, number];
}

export interface TestCaseIR {
  index: number;
  /** The dtype per type variable this case runs with (defaults to each variable's first dtype). */
  binding: TypeBinding;
  inputs: TestInputIR[];
  /** Every attribute: the case's values, defaults filled in. */
  attributes: Record<string, AttrValue>;
  /** Names of the attributes the case sets itself (a backend must supply the others' defaults). */
  given: string[];
  rtol: number;
  atol: number;
  seed: number;
}

/** One of the spec's `checks:`: a condition over always-present inputs' dims and attributes. */
export interface CheckIR {
  expr: Expr;
  /** The condition as the spec writes it (messages quote it). */
  source: string;
  /** The spec's own words for a failure, if any. */
  message: string | undefined;
  /** The dims and attributes it reads, in order of first appearance (messages show their values). */
  reads: Expr[];
  /** The optional inputs it reads: the check applies only while every one of them is present. */
  optional: number[];
}

export interface Idents {
  /** As written in the spec (validated identifier). */
  raw: string;
  /** snake_case, acronym runs kept together (DynamicTRTResize -> dynamic_trt_resize). */
  snake: string;
  /** camelCase. */
  camel: string;
  /** PascalCase. */
  pascal: string;
}

export interface SourceLoc {
  file: string;
  /** Path relative to the project root (the directory holding ops/). */
  relFile: string;
}

export interface OpIR {
  name: string;
  ident: Idents;
  domain: string;
  version: number;
  description: string;
  source: SourceLoc;
  typeVars: TypeVarIR[];
  /** Every combination of type variable dtypes, in a stable order. */
  bindings: TypeBinding[];
  inputs: InputIR[];
  outputs: OutputIR[];
  attributes: AttributeIR[];
  state: StateFieldIR[];
  /** Workspace bytes as an expression of input dims and int attributes (0 when none). */
  workspace: Expr;
  /** The spec's `checks:`: conditions every backend verifies after the inputs' own checks. */
  checks: CheckIR[];
  /** The spec's `data_dims:`, in the spec's order (empty: every output dim follows from the inputs). */
  dataDims: DataDimIR[];
  kernels: {
    /** Paths relative to the project root (forward slashes). */
    cpu: string;
    cuda: string | undefined;
    /** Python (PyTorch) reference implementation, if the spec names one. */
    reference: string | undefined;
    /** A CUDA kernel written in Triton (instead of `cuda`), compiled ahead of time at build time. */
    triton?: TritonIR;
  };
  tests: TestCaseIR[];
  /** Whether the kernel supplies configure() (true when the op has state). */
  hasConfigure: boolean;
  /** The spec's `backward`: how gradients of the inputs are computed; undefined without one. */
  backward: GradientIR[] | undefined;
}

/**
 * What a project's packages, libraries and registrations are called: opforge's own names, or
 * those its package.json's `opforge.namespace` derives (project-names.ts), so that two projects'
 * op sets load side by side in one process.
 */
export interface ProjectNames {
  /** package.json's `opforge.namespace`; undefined: opforge's own names. */
  namespace: string | undefined;
  /** The PyTorch Python package (out/python/<torchPackage>). */
  torchPackage: string;
  /** The JAX Python package (out/jax/<jaxPackage>). */
  jaxPackage: string;
  /** The Paddle Python package (out/paddle/<paddlePackage>). */
  paddlePackage: string;
  /** torch.ops.<torchNamespace>: the TORCH_LIBRARY namespace. */
  torchNamespace: string;
  /** The ONNX domain of specs that name none. */
  defaultDomain: string;
  /** What the built libraries' names start with: lib<prefix>_torch.so, <prefix>_torch_py, lib<prefix>_ort.so, ... */
  libraryPrefix: string;
}

export interface ProjectIR {
  /** Sorted by op name, so emission order never depends on the filesystem. */
  ops: OpIR[];
  /** The names of its packages and libraries. */
  names: ProjectNames;
  /** The version its wheel carries (package.json's `version`, project-names.ts). */
  version: string;
  /** Absolute path of the project root (parent of the ops dir). */
  root: string;
  /** Ops dir relative to root. */
  opsDir: string;
  /**
   * Absolute path of the directory the files are generated into (`opforge gen --out`), when
   * known. Generated files that point back into the project (CMake's kernel paths) are written
   * relative to it; emitters assume `<root>/out` when it is absent.
   */
  outDir?: string;
}

/** One parameter of a Triton kernel that is not a constexpr, as the launcher passes it. */
export type TritonArgIR =
  /** A tensor's data pointer (input, or output after the inputs: the op core's port). */
  | { kind: 'tensor'; name: string; port: number }
  /** The op's workspace (CudaContext::workspace). */
  | { kind: 'workspace' }
  /** A float attribute, as fp32. */
  | { kind: 'float'; name: string }
  /** A dim expression, as i64. */
  | { kind: 'int'; expr: Expr; source: string };

/** `kernels.triton`: a @triton.jit kernel, compiled ahead of time per dtype binding and CUDA architecture. */
export interface TritonIR {
  /** The Python file, relative to the project root (forward slashes). */
  source: string;
  /** The @triton.jit function's name. */
  kernel: string;
  args: TritonArgIR[];
  /** The compiled configurations, the first the default (TensorRT's IPluginV3 times them all as tactics). */
  configs: TritonConfigIR[];
  /**
   * The attributes constexprs read, each with every value it may take: the kernel is compiled per
   * combination (the first attribute's values vary slowest), and a call runs its attributes' one.
   */
  variants: { attr: string; values: (number | boolean | string)[] }[];
}

/** A constexpr's value: a number or boolean, or a type variable's dtype under each binding (a `tl.dtype`). */
export type TritonConstexpr = number | boolean | { dtypeOf: string } | { attr: string };

/** One configuration of a Triton kernel: its constexprs, launch grid, warps and stages. */
export interface TritonConfigIR {
  /** The constexpr parameters and their values, in the spec's order. */
  constexprs: [string, TritonConstexpr][];
  /** 1 to 3 dim expressions: the launch grid (x, y, z). */
  grid: Expr[];
  numWarps: number;
  numStages: number;
  /** The compute capabilities (e.g. 90) on which it is the default outside TensorRT; [] for none. */
  archs: number[];
}
