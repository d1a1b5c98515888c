// The ONNX Runtime columns: ort runs a one-node model per case with the generated custom-op
// library; ort-legacy and ort-dynamo run the models PyTorch's two exporters wrote (the PyTorch
// side exported them). Each also holds the shapes ONNX inference claimed to the dims written.
// A variadic input's members are graph inputs of their own, after the other inputs.
// With --device cuda and a runtime that has the CUDA provider (ONNXRUNTIME_ROOT: an onnxruntime-gpu
// install), the columns are ort:cuda, ort-legacy:cuda and ort-dynamo:cuda: the library is built with
// its CUDA-EP kernels and the sessions run ORT's CUDA EP; otherwise they run the CPU EP as on the CPU.

import { testUnityBatch } from '../../unity-batch.js';
import { machineCacheDir } from '../../../machine-cache.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { onDevice, type Case, type Outputs, type TestBackend, type TestContext } from '../../backend.js';
import { buildFailureResults } from '../../build-failure.js';
import type { HostTensor } from '../../cases.js';
import type { OpIR } from '../../../../generator/model/ir.js';
import { firstLines, shapeMismatch } from '../../outputs.js';
import type { PyCase } from '../pytorch/build.js';
import { hasCudaKernel } from '../../../../generator/model/ir-helpers.js';

interface OrtKit {
  library: string;
  /** Whether the sessions run ORT's CUDA EP. */
  cuda: boolean;
  session: typeof import('../../../ort.js').session;
  opModel: typeof import('../../../op-model.js').opModel;
  memberInputName: typeof import('../../../op-model.js').memberInputName;
}
type ExportCell = { model: string; shapes: PyCase['python-shapes'] } | { error: string } | { skip: string };

/** The custom-op library and the session binding, built by prepare: the library, or the error. */
const built = new WeakMap<TestContext, Promise<{ library: string } | { error: unknown }>>();

function buildLibrary(ctx: TestContext): Promise<{ library: string } | { error: unknown }> {
  return ctx
    .compile(async () => {
      const m = await import('../../../ort.js');
      const cuda = await onCudaEp(ctx);
      ctx.say(`building the ONNX Runtime custom-op library${cuda ? ' with its CUDA-EP kernels' : ''}`);
      // On the CPU EP the CPU kernel objects only; on the CUDA EP the CUDA ones too (the shared
      // kernel build's configuration: WITH_CUDA and its architectures).
      const kernels = ctx.kernels && (cuda ? ctx.kernels.defs : { OPFORGE_KERNELS: ctx.kernels.manifest });
      const library = await m.buildOrtLibrary({
        root: ctx.root,
        outDir: ctx.outDir,
        buildDir: path.join(ctx.buildRoot, cuda ? 'ort-cuda' : 'ort'),
        ...(cuda ? { cuda: true } : {}),
        ...(kernels ? { kernels } : {}),
        jobs: ctx.jobs,
        unityBatch: testUnityBatch(ctx.project.ops.length),
        onLine: ctx.progress,
      });
      // The session binding: the same for every project, so built once per machine (machine-cache.ts).
      await m.loadSessionBinding({ cacheDir: machineCacheDir(), onLine: ctx.progress });
      return { library };
    })
    .catch((error: unknown) => ({ error }));
}

/** Whether the sessions run ORT's CUDA EP: --device cuda with a runtime that has the CUDA provider. */
async function onCudaEp(ctx: TestContext): Promise<boolean> {
  if (ctx.device !== 'cuda') return false;
  const m = await import('../../../ort.js');
  try {
    return m.cudaProviderOf(m.onnxruntimeLibrary()) !== undefined;
  } catch {
    return false;
  }
}

/** A column's name: `ort:cuda` where the sessions run the CUDA EP. */
function column(ort: Pick<OrtKit, 'cuda'>, name: string): string {
  return onDevice({ device: ort.cuda ? 'cuda' : 'cpu' }, name);
}

/** Whether ONNX Runtime and its headers are installed (what is not is skipped, not built). */
async function installed(): Promise<boolean> {
  const m = await import('../../../ort.js');
  try {
    m.onnxruntimeLibrary();
    m.ortIncludeDir();
    return true;
  } catch {
    return false;
  }
}

export const ortBackend: TestBackend = {
  name: 'ONNX Runtime',
  wanted: (ctx) => ctx.want.has('ort') || ctx.want.has('export'),
  async prepare(ctx) {
    if (!(await installed())) return;
    const p = buildLibrary(ctx);
    built.set(ctx, p);
    await p;
  },
  async run(ctx) {
    const ort = await buildOrt(ctx);
    if (!ort) return;
    if (ctx.want.has('ort')) {
      ctx.col(column(ort, 'ort'));
      const models = path.join(ctx.buildRoot, 'test', 'models');
      mkdirSync(models, { recursive: true });
      for (const c of ctx.cases) {
        const t = c.op.tests[c.doc.index]!;
        const tensors = caseTensors(ort, c);
        const inputShapes = Object.fromEntries(tensors.map((x) => [x.name, x.tensor.dims]));
        const omitInputs = c.op.inputs.filter((_, i) => !c.inputs[i]).map((i) => i.name);
        const members = c.inputs.find((x) => Array.isArray(x))?.length;
        const file = path.join(models, `${c.op.ident.snake}_${c.doc.index}.onnx`);
        writeFileSync(
          file,
          ort.opModel(c.op, {
            binding: t.binding,
            attributes: c.doc.given,
            inputShapes,
            omitInputs,
            ...(members === undefined ? {} : { members }),
            memberDtypes: t.inputs.filter((x) => x.dtype !== undefined).map((x) => x.dtype!),
          }),
        );
        await runModel(ctx, ort, c, column(ort, 'ort'), file);
      }
    }
    if (!ctx.want.has('export') || !ctx.torchRun) return;
    for (const exporter of ['ort-legacy', 'ort-dynamo'] as const) {
      if (ctx.skipped[exporter]) continue;
      const b = column(ort, exporter);
      ctx.col(b);
      for (const c of ctx.cases) {
        const o = ctx.torchRun.cases.find((x) => x.op === c.op.name && x.case === c.doc.index)?.[exporter] as
          | ExportCell
          | undefined;
        if (!o) continue;
        const at = { op: c.op.name, case: c.doc.index, backend: b };
        if ('skip' in o) ctx.results.push({ ...at, status: 'skip', message: o.skip });
        else if ('error' in o) ctx.results.push({ ...at, status: 'fail', message: `export: ${o.error}` });
        else await runModel(ctx, ort, c, b, path.join(c.dir, o.model), o.shapes);
      }
    }
  },
};

/** The custom-op library; undefined when ONNX Runtime is not installed (skipped) or did not build (failed). */
async function buildOrt(ctx: TestContext): Promise<OrtKit | undefined> {
  const cuda = await onCudaEp(ctx);
  const cols = [
    ...(ctx.want.has('ort') ? ['ort'] : []),
    ...(ctx.want.has('export') ? ['ort-legacy', 'ort-dynamo'] : []),
  ];
  const m = await import('../../../ort.js');
  try {
    // What is not installed is skipped with the reason; what fails to build is a failure.
    m.onnxruntimeLibrary();
    m.ortIncludeDir();
  } catch (e) {
    for (const b of cols) ctx.skipped[b] ??= firstLines(e, 6);
  }
  if (cols.every((b) => ctx.skipped[b])) return undefined;
  try {
    const b = await (built.get(ctx) ?? buildLibrary(ctx));
    if ('error' in b) throw b.error;
    const { library } = b;
    const lib = m.onnxruntimeLibrary();
    ctx.env.onnxruntime = `${await m.ortVersion()} (${lib}; ${
      cuda
        ? 'CUDA EP'
        : ctx.device === 'cuda'
          ? 'CPU EP: no libonnxruntime_providers_cuda.so beside it; ONNXRUNTIME_ROOT names an onnxruntime-gpu install'
          : 'CPU EP'
    })`;
    const { opModel, memberInputName } = await import('../../../op-model.js');
    return { library, cuda, session: m.session, opModel, memberInputName };
  } catch (e) {
    ctx.results.push(
      ...buildFailureResults(
        e,
        ctx.ops,
        cols.filter((b) => !ctx.skipped[b]).map((b) => ctx.col(column({ cuda }, b))),
        ctx.root,
        ctx.project.ops,
      ),
    );
    return undefined;
  }
}

async function runModel(
  ctx: TestContext,
  ort: OrtKit,
  c: Case,
  backend: string,
  file: string,
  inferredFrom?: PyCase['python-shapes'],
): Promise<void> {
  if (ort.cuda && !hasCudaKernel(c.op)) {
    ctx.results.push({
      op: c.op.name,
      case: c.doc.index,
      backend,
      status: 'skip',
      message: 'the spec names no kernels.cuda',
    });
    return;
  }
  try {
    // The one-node model runs wholly on the CUDA EP; an exported model's other nodes (shape
    // arithmetic ORT keeps on the CPU) may fall back, while the opforge node has its CUDA kernel.
    const s = await ort.session(file, {
      root: ctx.root,
      outDir: ctx.outDir,
      customOpLibraries: [ort.library],
      ...(ort.cuda ? { provider: 'cuda' as const, cpuFallback: inferredFrom !== undefined } : {}),
    });
    try {
      const feeds = caseFeeds(
        c.op,
        caseTensors(ort, c),
        s.inputs.map((i) => i.name),
      );
      const got = s.run(feeds as Parameters<typeof s.run>[0]) as Outputs;
      // ORT's C API gives no dims both for a rank-0 output and for one it could not infer (ops
      // with optional inputs get no inference, docs/ort.md; rank-0 inputs leave some unknown), so
      // an empty list is no evidence either way.
      const inferred = inferredFrom ?? s.outputs.map((o) => (o.dims.length === 0 ? null : [...o.dims]));
      ctx.check(
        c,
        backend,
        got,
        shapeMismatch(
          inferredFrom === undefined ? "ONNX Runtime's shape inference" : 'ONNX shape inference of the exported model',
          inferred,
          c.op.outputs,
          got,
        ),
      );
    } finally {
      s.close();
    }
  } catch (e) {
    ctx.results.push({ op: c.op.name, case: c.doc.index, backend, status: 'fail', message: firstLines(e) });
  }
}

/** A case's tensor under the name its one-node model (op-model.ts) gives it. */
export interface NamedTensor {
  name: string;
  tensor: HostTensor;
  /** Which member of a variadic input it is. */
  member?: number;
}

/** The case's tensors in the node's order: the inputs given, a variadic input's members as xs.0, xs.1, ... */
function caseTensors(ort: OrtKit, c: Case): NamedTensor[] {
  return c.op.inputs.flatMap((inp, i): NamedTensor[] => {
    const x = c.inputs[i];
    if (x === undefined) return [];
    if (!Array.isArray(x)) return [{ name: inp.name, tensor: x }];
    return x.map((tensor, member) => ({ name: ort.memberInputName(inp.name, member), tensor, member }));
  });
}

/**
 * The feeds of a model whose graph inputs are `graph`. An input the model does not take is not fed
 * (an exporter may leave an unused one out). A variadic input's members go to the inputs of their
 * names (xs.0, ...), or, where an exporter named them otherwise, to the graph inputs no other input takes, in
 * order; a model that cannot take every member is an error, never a call with members dropped.
 */
export function caseFeeds(
  op: OpIR,
  tensors: readonly NamedTensor[],
  graph: readonly string[],
): Record<string, HostTensor> {
  const names = new Set(graph);
  const fixed = tensors.filter((x) => x.member === undefined);
  const members = tensors.filter((x) => x.member !== undefined);
  const feeds: Record<string, HostTensor> = Object.fromEntries(
    fixed.filter((x) => names.has(x.name)).map((x) => [x.name, x.tensor]),
  );
  if (members.length === 0) return feeds;
  if (members.every((x) => names.has(x.name))) {
    for (const x of members) feeds[x.name] = x.tensor;
    return feeds;
  }
  const rest = graph.filter((n) => !fixed.some((x) => x.name === n));
  const input = op.inputs[op.inputs.length - 1]!.name;
  if (rest.length !== members.length)
    throw new Error(
      `${op.name}: the model's inputs [${graph.join(', ')}] do not take the ${members.length} members of input ${input}`,
    );
  rest.forEach((n, k) => {
    feeds[n] = members[k]!.tensor;
  });
  return feeds;
}
