// Per op: the XLA typed-FFI handlers (<op>/<op>_jax.cc): the op's attributes decoded with the
// widths JAX passes (ATTR_INFO[...].xla), converted to the op core's Attrs, and the call handed to
// the shared bridge (opforge/jax/ffi_bridge.h), which runs the core's checks, runCpu and runCuda.

import type { AttributeIR, OpIR, ProjectNames } from '../../model/ir.js';
import { coreHeaderPath, cppNamespace } from '../../model/ir-helpers.js';
import { ATTR_INFO } from '../../model/type-table.js';
import { lines, paragraphs } from '../emitter.js';
import { cppUnit, docComment, namespaceBlock } from '../lang/cpp.js';
import { cppString } from '../lang/literals.js';
import { jaxSymbols, jaxTarget, PRESENT_ATTR } from './names.js';

/** The op core's value of an attribute from its decoded FFI value. */
function coreValue(a: AttributeIR): string {
  switch (a.type) {
    case 'float':
      return `bridge::narrow(${a.name})`;
    case 'string':
      return `bridge::toString(${a.name})`;
    case 'ints':
    case 'floats':
      return `bridge::toVector(${a.name})`;
    default:
      return a.name;
  }
}

/** Lines compiled only in CUDA builds of the library. */
function cudaOnly(...body: string[]): string {
  return lines('#ifdef OPFORGE_JAX_WITH_CUDA', body, '#endif');
}

export function emitJaxHandlers(op: OpIR, names: ProjectNames): string {
  const s = op.ident.snake;
  const sym = jaxSymbols(op);
  const hasOptional = op.inputs.some((i) => i.optional);
  const attrParams = op.attributes.map((a) => `${ATTR_INFO[a.type].xla.decode} ${a.name}`);
  const attrArgs = op.attributes.map((a) => a.name);
  const params = [
    'ffi::RemainingArgs opforge_args',
    'ffi::RemainingRets opforge_rets',
    ...attrParams,
    ...(hasOptional ? ['int64_t opforge_present'] : []),
  ];
  const present = hasOptional ? 'static_cast<uint64_t>(opforge_present)' : 'kAllPresent';
  const binds = [
    '.RemainingArgs()',
    '.RemainingRets()',
    ...op.attributes.map((a) => `.Attr<${ATTR_INFO[a.type].xla.decode}>(${cppString(a.name)})`),
    ...(hasOptional ? [`.Attr<int64_t>(${cppString(PRESENT_ATTR)})`] : []),
  ];
  /** The handler symbol's binding: what XLA passes, in the handler's parameter order. */
  const bind = (ctx: readonly string[]): string =>
    lines(
      '    ::xla::ffi::Ffi::Bind()',
      [...ctx, ...binds].map((b) => `        ${b}`),
    ).concat(');');
  const attrs = `makeAttrs(${attrArgs.join(', ')})`;
  const handlers = paragraphs(
    [
      'namespace ffi = ::xla::ffi;',
      'namespace bridge = ::opforge::jax_bridge;',
      `using Op = ::${cppNamespace(op)}::Core;`,
    ],
    hasOptional
      ? `// Which inputs the Python side passed arrives as the attribute ${PRESENT_ATTR} (bit i: input i), the present ones as operands.`
      : '// Every input is required: every bit of the presence mask is set.\nconstexpr uint64_t kAllPresent = ~uint64_t{0};',
    [
      docComment(
        "The op core's Attrs from the FFI attributes (JAX passes floats as f64, ints as i64, lists as arrays).",
      ),
      `inline Op::Attrs makeAttrs(${attrParams.join(', ')}) {`,
      '  Op::Attrs opforge_attrs;',
      ...op.attributes.map((a) => `  opforge_attrs.${a.name} = ${coreValue(a)};`),
      '  return opforge_attrs;',
      '}',
    ],
    [
      `ffi::Error runCpu(${params.join(', ')}) {`,
      `  return bridge::runCpu<Op>(${attrs}, opforge_args, opforge_rets, ${present});`,
      '}',
    ],
    cudaOnly(
      `ffi::Error runCuda(cudaStream_t opforge_stream, ffi::ScratchAllocator opforge_scratch, ${params.join(', ')}) {`,
      `  return bridge::runCuda<Op>(${attrs}, opforge_args, opforge_rets, ${present}, opforge_stream, opforge_scratch);`,
      '}',
    ),
  );
  const ns = `::opforge::jax_ops::${s}`;
  return cppUnit({
    comment: [
      `${op.name} for JAX: XLA typed-FFI handlers over the op core, registered by ${names.jaxPackage} as the`,
      `custom-call target ${jaxTarget(op)} (CPU; CUDA in builds with OPFORGE_JAX_WITH_CUDA).`,
      ...(op.description ? [op.description] : []),
    ],
    includes: {
      system: ['cstdint'],
      external: ['"xla/ffi/api/ffi.h"'],
      project: [coreHeaderPath(op).include, 'opforge/jax/ffi_bridge.h'],
    },
    // cuda_runtime_api.h (cudaStream_t) comes with ffi_bridge.h in CUDA builds.
    body: paragraphs(
      namespaceBlock(['opforge', 'jax_ops', s], handlers),
      [`XLA_FFI_DEFINE_HANDLER_SYMBOL(${sym.cpu}, ${ns}::runCpu,`, bind([])],
      cudaOnly(
        `XLA_FFI_DEFINE_HANDLER_SYMBOL(${sym.cuda}, ${ns}::runCuda,`,
        bind(['.Ctx<::xla::ffi::PlatformStream<cudaStream_t>>()', '.Ctx<::xla::ffi::ScratchAllocator>()']),
      ),
    ),
  });
}
