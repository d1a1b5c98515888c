// The PyTorch extension: one TORCH_LIBRARY fragment per op (out/torch/<snake>.cpp) registering
// the spec's schema under torch.ops.opforge with CPU and CUDA kernels that call the op core,
// and the CMake project that links them into libopforge_torch.so for torch.ops.load_library.
// The unit's fixed text is generator/static/cpp/opforge/torch/op.cpp.tmpl; this prints its slots.

import type { AttributeIR, AttrValue, GradientIR, GradSource, OpIR, ProjectIR } from '../../model/ir.js';
import {
  noBackwardMessage,
  torchEntryModule,
  torchLibraryEnv,
  torchLibraryFile,
  torchLibraryTarget,
  variadicInput,
} from '../../model/ir-helpers.js';
import type { AttrType } from '../../model/type-table.js';
import {
  defineEmitter,
  type Emitter,
  type GeneratedFile,
  lines,
  opFile,
  projectFile,
  staticFiles,
} from '../emitter.js';
import { braced, includeLines } from '../lang/cpp.js';
import { commentText, cppAttrValue, cppString } from '../lang/literals.js';
import { block, fillTemplate } from '../lang/template.js';
import { torchSchema } from './schema.js';
import { hasCudaKernel } from '../../model/ir-helpers.js';

const ENTRY = 'generator/static/cpp/opforge/torch/python_entry.cpp';
const CMAKE = 'generator/static/cmake/torch-extension.cmake';

export const torchEmitter: Emitter = defineEmitter({
  name: 'torch',
  project(project: ProjectIR): GeneratedFile[] {
    const names = project.names;
    const entry = torchEntryModule(names);
    return [
      ...staticFiles('torch/include/opforge/torch', 'generator/static/cpp/opforge/torch', '.h'),
      // The entry's module name and the library's are the project's: two projects' builds coexist.
      projectFile('torch/python_entry.cpp', fillTemplate(ENTRY, { entry, library: torchLibraryFile(names) }), ENTRY),
      projectFile(
        'torch/CMakeLists.txt',
        fillTemplate(CMAKE, {
          target: torchLibraryTarget(names),
          entry,
          package: names.torchPackage,
          torchNamespace: names.torchNamespace,
          libraryEnv: torchLibraryEnv(names),
        }),
        CMAKE,
      ),
    ];
  },
  op(op: OpIR, project: ProjectIR): GeneratedFile[] {
    return [opFile(op, `torch/${op.ident.snake}.cpp`, opSource(op, project))];
  },
});

/** C++ parameter type of an attribute in the TORCH_LIBRARY function (opforge::torch_ext::assignAttr takes each). */
const PARAM_TYPE: Readonly<Record<AttrType, string>> = {
  bool: 'bool',
  int: 'int64_t',
  float: 'double',
  string: 'c10::string_view',
  ints: 'at::IntArrayRef',
  floats: 'at::ArrayRef<double>',
};
const paramType = (a: AttributeIR): string => PARAM_TYPE[a.type];

/** The TORCH_LIBRARY function's parameters, in the schema's order: the inputs, then the attributes. */
function kernelParams(op: OpIR): string[] {
  return [
    ...op.inputs.map((i) =>
      i.variadic
        ? `at::TensorList ${i.name}`
        : i.optional
          ? `const c10::optional<at::Tensor>& ${i.name}`
          : `const at::Tensor& ${i.name}`,
    ),
    ...op.attributes.map((a) => `${paramType(a)} ${a.name}`),
  ];
}

/** Its return type: one tensor, or a tuple with one per output. */
function returnType(op: OpIR): string {
  return op.outputs.length > 1 ? `std::tuple<${op.outputs.map(() => 'at::Tensor').join(', ')}>` : 'at::Tensor';
}

/**
 * The op's unit (op.cpp.tmpl): the CPU/CUDA kernel calling the op core, the schema, and the
 * Autograd kernel, a torch::autograd::Function whose forward redispatches below autograd and saves
 * what the gradient ops read, and whose backward runs them (opforge/torch/autograd.h).
 */
function opSource(op: OpIR, project: ProjectIR): string {
  const multi = op.outputs.length > 1;
  const cls = `${op.ident.pascal}Function`;
  const args = [...op.inputs.map((i) => i.name), ...op.attributes.map((a) => a.name)].join(', ');
  // A variadic input (Tensor[]) goes after the others, as its members.
  const v = variadicInput(op);
  const fixed = braced(op.inputs.filter((i) => !i.variadic).map((i) => i.name));
  const run = `opforge::torch_ext::run<op::Core>(attrs, ${fixed}${v ? `, ${v.name}` : ''})`;
  const tuple = (r: string): string => `std::make_tuple(${op.outputs.map((o) => `${r}[${o.index}]`).join(', ')})`;
  // A variadic input's members take no gradient.
  const needsGrad = op.inputs
    .filter((i) => !i.variadic)
    .map((i) => (i.optional ? `(${i.name}.has_value() && ${i.name}->requires_grad())` : `${i.name}.requires_grad()`));
  const gradOps = op.backward ? `the spec's backward (${[...new Set(op.backward.map((g) => g.op))].join(', ')})` : '';
  return fillTemplate('generator/static/cpp/opforge/torch/op.cpp.tmpl', {
    name: op.name,
    snake: op.ident.snake,
    torchNamespace: project.names.torchNamespace,
    package: project.names.torchPackage,
    fn: op.ident.camel,
    cls,
    domain: commentText(op.domain),
    kernels: hasCudaKernel(op) ? 'CPU and CUDA' : 'CPU',
    systemIncludes: lines(includeLines({ system: multi ? ['tuple', 'string'] : ['string'] })),
    returnType: returnType(op),
    params: kernelParams(op).join(', '),
    assignAttrs: block(op.attributes.map((a) => `  opforge::torch_ext::assignAttr(attrs.${a.name}, ${a.name});`)),
    run: multi ? lines(`  auto r = ${run};`, `  return ${tuple('r')};`) : `  return ${run}[0];`,
    schema: cppString(torchSchema(op)),
    cudaNote: hasCudaKernel(op)
      ? 'the CUDA kernel (an extension built without CUDA says so).'
      : `a clear error (${op.name} has no kernels.cuda), not the dispatcher's "Could not run".`,
    gradOps: gradOps || 'the spec declares no backward',
    forwardType: multi ? VARIABLES : 'at::Tensor',
    forward: lines(...forward(op, args)),
    backward: lines(backwardBody(op, project, savedForBackward(op))),
    needsGrad: needsGrad.join(' || ') || 'false',
    args,
    apply: multi
      ? lines(`  const auto r = ${cls}::apply(${args});`, `  return ${tuple('r')};`)
      : `  return ${cls}::apply(${args});`,
  });
}

/** An attribute value as a c10::IValue the boxed dispatcher takes (floats are doubles there). */
function ivalueOf(a: AttributeIR, v: AttrValue): string {
  switch (a.type) {
    case 'float':
      return `static_cast<double>(${cppAttrValue(a, v)})`;
    case 'floats':
      return `std::vector<double>{${(v as number[]).map((x) => `static_cast<double>(${cppAttrValue({ type: 'float' }, x)})`).join(', ')}}`;
    default:
      return cppAttrValue(a, v);
  }
}

/** What torch::autograd saved_data keeps of an attribute parameter. */
function savedAttr(a: AttributeIR): string {
  switch (a.type) {
    case 'string':
      return `std::string(${a.name})`;
    case 'ints':
    case 'floats':
      return `${a.name}.vec()`;
    default:
      return a.name;
  }
}

/** What the forward saves for the gradient ops: the inputs and outputs some gradient op reads, and attributes. */
interface Saved {
  /** Every gradient op input's source, in declaration order. */
  sources: GradSource[];
  /** Indices of the saved inputs, then of the saved outputs: save_for_backward's order. */
  inputs: number[];
  outputs: number[];
  /** Forward attribute names kept in ctx->saved_data. */
  attrs: string[];
}

function savedForBackward(op: OpIR): Saved {
  const sources = (op.backward ?? []).flatMap((g) => g.inputs.filter((s): s is GradSource => s !== undefined));
  return {
    sources,
    inputs: [...new Set(sources.filter((s) => s.kind === 'input').map((s) => s.index))].sort((a, b) => a - b),
    outputs: [...new Set(sources.filter((s) => s.kind === 'output').map((s) => s.index))].sort((a, b) => a - b),
    attrs: [...new Set((op.backward ?? []).flatMap((g) => g.attributes.filter((a): a is string => a !== undefined)))],
  };
}

/** A gradient op input in backward(): an incoming gradient, or the saved tensor (an absent optional input is None). */
function slotOf(saved: Saved, s: GradSource, op: OpIR): string {
  // The saved list: the inputs but a variadic one, the outputs, then the members (forward()).
  const fixed = saved.inputs.filter((i) => !op.inputs[i]!.variadic);
  if (s.kind === 'input' && op.inputs[s.index]!.variadic)
    return `std::vector<at::Tensor>(saved.begin() + ${fixed.length + saved.outputs.length}, saved.end())`;
  return s.kind === 'grad'
    ? `grads[${s.index}]`
    : s.kind === 'input'
      ? `opforge::torch_ext::tensorOrNone(saved[${fixed.indexOf(s.index)}])`
      : `saved[${fixed.length + saved.outputs.indexOf(s.index)}]`;
}

/**
 * One gradient op's call in backward(), through the boxed dispatcher: its inputs from the slots,
 * its attributes from saved_data or its defaults; its outputs land in the forward inputs' gradients.
 */
function gradientCall(g: GradientIR, project: ProjectIR, saved: Saved, op: OpIR): string {
  const gop = project.ops.find((o) => o.name === g.op)!;
  const stack = [
    ...g.inputs.map((s) => (s === undefined ? 'c10::IValue()' : slotOf(saved, s, op))),
    ...gop.attributes.map((a, k) => {
      const f = g.attributes[k];
      return f !== undefined ? `ctx->saved_data[${cppString(f)}]` : ivalueOf(a, a.default!);
    }),
  ];
  return lines(
    '    {',
    `      const auto r = opforge::torch_ext::callGradient("${project.names.torchNamespace}::${g.ident.snake}", {${stack.join(', ')}});`,
    ...g.outputs.flatMap((i, j) => (i === undefined ? [] : [`      d[${i}] = r[${j}];`])),
    '    }',
  );
}

/**
 * The body of the Function's backward: the gradient ops' calls; without a `backward`, an error
 * naming the spec when some input is differentiable, else no gradients.
 */
function backwardBody(op: OpIR, project: ProjectIR, saved: Saved): (string | null)[] {
  const anySaved = saved.inputs.length + saved.outputs.length > 0;
  const arity = gradientCount(op);
  if (op.backward)
    return [
      anySaved ? '    const torch::autograd::variable_list saved = ctx->get_saved_variables();' : null,
      saved.attrs.length || anySaved || variadicInput(op) ? null : '    (void)ctx;',
      saved.sources.some((s) => s.kind === 'grad') ? null : '    (void)grads;',
      `    torch::autograd::variable_list d(${arity});  // one per forward argument${variadicInput(op) ? ' (each member one)' : ''}`,
      ...op.backward.map((g) => gradientCall(g, project, saved, op)),
      '    return d;',
    ];
  // No backward declared: asking for a gradient through a differentiable input is the user's error, said at run time.
  const message = noBackwardMessage(op);
  if (op.inputs.some((i) => i.differentiable))
    return ['    (void)ctx;', '    (void)grads;', `    TORCH_CHECK(false, ${cppString(message)});`, '    return {};'];
  return [
    variadicInput(op) ? null : '    (void)ctx;',
    '    (void)grads;',
    `    return torch::autograd::variable_list(${arity});  // no differentiable input`,
  ];
}

/** The key of saved_data holding the member count (not an identifier: no attribute has it). */
const MEMBERS_KEY = '"opforge:members"';

/**
 * How many gradients the Function's backward returns: torch::autograd::Function counts each
 * argument once, and each member of a TensorList argument once.
 */
function gradientCount(op: OpIR): string {
  const fixed = op.inputs.length + op.attributes.length;
  return variadicInput(op) ? `${fixed - 1} + ctx->saved_data[${MEMBERS_KEY}].toInt()` : `${fixed}`;
}

/** The Function's forward: below autograd, saving what the gradient ops read. */
function forward(op: OpIR, args: string): (string | null | string[])[] {
  const multi = op.outputs.length > 1;
  const { inputs: savedIn, outputs: savedOut, attrs: savedAttrs } = savedForBackward(op);
  const nonDiff = op.outputs.filter((o) => !o.differentiable).map((o) => `outs[${o.index}]`);
  const v = variadicInput(op);
  const toSave = [
    ...savedIn
      .filter((i) => !op.inputs[i]!.variadic)
      .map((i) => (op.inputs[i]!.optional ? `${op.inputs[i]!.name}.value_or(at::Tensor())` : op.inputs[i]!.name)),
    ...savedOut.map((o) => `outs[${o}]`),
  ];
  // A gradient op that reads the members gets them saved last (slotOf reads them from there).
  const savesMembers = !!v && savedIn.includes(v.index);
  return [
    toSave.length + savedAttrs.length + nonDiff.length || v ? null : '    (void)ctx;',
    BELOW_GUARD,
    multi
      ? [
          `    const auto r = below().call(${args});`,
          `    ${VARIABLES} outs${braced(op.outputs.map((o) => `std::get<${o.index}>(r)`))};`,
        ]
      : `    ${VARIABLES} outs{below().call(${args})};`,
    savesMembers
      ? [
          `    ${VARIABLES} saved${braced(toSave)};`,
          `    saved.insert(saved.end(), ${v!.name}.begin(), ${v!.name}.end());`,
          '    ctx->save_for_backward(saved);',
        ]
      : toSave.length
        ? `    ctx->save_for_backward(${braced(toSave)});`
        : null,
    savedAttrs.map(
      (f) => `    ctx->saved_data[${cppString(f)}] = ${savedAttr(op.attributes.find((a) => a.name === f)!)};`,
    ),
    // The backward returns a gradient (none) per member: it needs their count, not the members.
    v ? `    ctx->saved_data[${MEMBERS_KEY}] = static_cast<int64_t>(${v.name}.size());` : null,
    nonDiff.length ? `    ctx->mark_non_differentiable(${braced(nonDiff)});` : null,
    `    return ${multi ? 'outs' : 'outs[0]'};`,
  ];
}

const VARIABLES = 'torch::autograd::variable_list';
const BELOW_GUARD = '    at::AutoDispatchBelowADInplaceOrView guard;';
