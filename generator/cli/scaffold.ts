// `opforge new <Name>`: a commented spec and kernel files whose signatures are exactly the
// generated contract (rendered from the IR of the new spec, so they cannot disagree).

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOp } from '../model/build-ir.js';
import { SpecErrors } from '../model/diagnostics.js';
import type { OpIR } from '../model/ir.js';
import { coreHeaderPath, ioType } from '../model/ir-helpers.js';
import { loadSpec } from '../model/load.js';
import { identProblem, toSnake } from '../model/names.js';
import { checkSchema } from '../model/schema-check.js';
import { DTYPE_INFO } from '../model/type-table.js';

export function specTemplate(name: string, snake: string, triton = false): string {
  return `# yaml-language-server: $schema=../schema/op.schema.json
# ${name}: describe what it computes. Reference: docs/spec.md.
name: ${name}                 # ONNX op_type, TensorRT plugin name
# snake: ${snake}  # files, C++ namespace, opforge_ops.<snake>, torch.ops.opforge.<snake>, the Paddle op: derived from name; set to override
domain: custom               # ONNX domain: the node is custom::${name}
version: 1                   # plugin version and opset version; bump when attributes change
description: TODO say what ${name} computes.
types:                       # type variables: tensors bound to one variable share its dtype
  T: [float32, float16]
inputs:
  - name: x
    dtype: T
    # rank: 4                # number of dims; omit for any rank
    # shape: ['?', 3]        # or constrain dims: an earlier input's name, or '?' / expressions
    # optional: false        # optional inputs come last; kernels see data == nullptr
    # shape_only: false      # the kernel reads only the dims
    description: Input tensor.
outputs:
  - name: y
    dtype: T
    shape: x                 # an input's name, or dim expressions: [x[0], 'ceil_div(x[1], 2)']
    description: Output tensor.
attributes:
  - name: alpha
    type: float              # bool | int | float | string | ints | floats
    default: 1.0             # or required: true
    # min: 0.0
    # max: 10.0
    # enum: [a, b]           # for string and int attributes
    description: Scale factor.
# state: []                  # extra serialized fields filled by configure() in the CPU kernel
# workspace: 0               # scratch bytes, a dim expression
# checks: ['x[1] % 2 == 0']  # conditions over attributes and ranked inputs' dims, checked on every call
kernels:                     # relative to this file
  cpu: kernels/${snake}.cpp
${triton ? tritonKeys(snake) : `  cuda: kernels/${snake}.cu\n`}  # reference: kernels/${snake}_ref.py   # PyTorch: def reference(*inputs, **attributes)
tests:                       # parity cases every backend runs
  - inputs: { x: [2, 3, 4] }
    attributes: { alpha: 0.5 }
    rtol: 1.0e-5
    atol: 1.0e-6
`;
}

/** The spec's `triton:` block for the template's op: y from x and alpha, one program per BLOCK elements. */
function tritonKeys(snake: string): string {
  return `  triton:                    # the CUDA kernel in Triton, compiled ahead of time (docs/triton.md)
    source: kernels/${snake}.py
    kernel: ${snake}_kernel
    args: [x, y, 'numel(x)', alpha]    # the parameters that are not constexprs, in order
    constexprs: { BLOCK: 1024 }
    grid: ['ceil_div(numel(x), 1024)'] # programs: 1 to 3 dim expressions
    num_warps: 4
`;
}

/** The Triton kernel stub: the parameters the template's spec passes, and a body to replace. */
export function tritonStub(name: string, snake: string): string {
  return `"""The CUDA kernel of ${name} in Triton: compiled ahead of time for each dtype binding and
CUDA architecture by the build, launched by every backend (docs/triton.md)."""
import triton
import triton.language as tl


@triton.jit
def ${snake}_kernel(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    # TODO: compute ${name}; this stub scales x by alpha.
    tl.store(y_ptr + offs, (alpha * x).to(y_ptr.dtype.element_ty), mask=mask)
`;
}

export function kernelStub(op: OpIR, device: 'cpu' | 'cuda'): string {
  const ctx = device === 'cpu' ? 'CpuContext' : 'CudaContext';
  const overloads = op.bindings.map((b) => {
    const dt = op.typeVars.map((tv) => DTYPE_INFO[b.vars[tv.name]!].cpp).join(', ');
    return `Status ${device}(const Attrs& attrs, const State& state, const ${ioType(op, b)}& io, const ${ctx}& ctx) {
  // TODO: compute the ${device === 'cpu' ? 'outputs on the host' : 'outputs: launch on static_cast<cudaStream_t>(ctx.stream), do not synchronize'}${dt ? ` for ${dt}` : ''}.
  (void)attrs; (void)state; (void)io; (void)ctx;
  return Status::Error(std::string(kName) + ": ${device} kernel not implemented yet");
}`;
  });
  return `// ${device === 'cpu' ? 'CPU' : 'CUDA'} kernel of ${op.name}: implements the contract declared in out/${coreHeaderPath(op).path}.
${device === 'cuda' ? '#include <cuda_runtime.h>\n\n' : ''}#include "${coreHeaderPath(op).include}"

namespace opforge {
namespace ops {
namespace ${op.ident.snake} {

${overloads.join('\n\n')}

}  // namespace ${op.ident.snake}
}  // namespace ops
}  // namespace opforge
`;
}

/**
 * Validates a freshly written spec and writes CPU and CUDA kernel stubs rendered from its IR.
 * Placeholders are written first: validation requires the kernel files to exist.
 */
export function writeKernelStubs(spec: string, cpu: string, cu: string, opsDir: string): void {
  for (const f of [cpu, cu]) if (!existsSync(f)) writeFileSync(f, '');
  const { spec: loaded, errors } = loadSpec(spec, spec);
  const all = [...errors, ...(loaded ? checkSchema(loaded) : [])];
  const built = loaded && all.length === 0 ? buildOp(loaded, { root: path.dirname(path.resolve(opsDir)) }) : undefined;
  if (!built?.op) throw new SpecErrors([...all, ...(built?.errors ?? [])]);
  writeFileSync(cpu, kernelStub(built.op, 'cpu'));
  if (!cu.endsWith('.py')) writeFileSync(cu, kernelStub(built.op, 'cuda'));
}

/** Writes ops/<snake>.yaml and its kernel stubs; refuses to overwrite. Returns the files written. */
export function scaffold(name: string, opsDir: string, opts: { triton?: boolean } = {}): string[] {
  const problem = identProblem(name);
  if (problem) throw new Error(`op name \`${name}\` ${problem}`);
  const snake = toSnake(name);
  const spec = path.join(opsDir, `${snake}.yaml`);
  const cpu = path.join(opsDir, 'kernels', `${snake}.cpp`);
  const cu = path.join(opsDir, 'kernels', `${snake}.${opts.triton ? 'py' : 'cu'}`);
  for (const f of [spec, cpu, cu]) if (existsSync(f)) throw new Error(`${f} already exists`);
  mkdirSync(path.dirname(cpu), { recursive: true });
  // The kernel paths must exist for validation; write placeholders first, then the real stubs.
  writeFileSync(spec, specTemplate(name, snake, opts.triton));
  // A Triton kernel's function is checked when the spec loads: its stub comes first.
  if (opts.triton) writeFileSync(cu, tritonStub(name, snake));
  writeKernelStubs(spec, cpu, cu, opsDir);
  return [spec, cpu, cu];
}
