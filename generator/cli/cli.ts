#!/usr/bin/env node
// opforge command line. Exit codes: 0 success, 1 invalid specs, 2 usage error, 3 internal or I/O error.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatDiagnostic, SpecErrors, useColor } from '../model/diagnostics.js';
import { importRuntime, markGenerated } from './runtime-import.js';
import { preflight } from '../output/stamp.js';
// Everything else is imported by the command that needs it: a no-op `gen` then loads only the
// stamp check (no validator, no emitters, no protobuf), which keeps it fast on large projects.

const USAGE = `usage: opforge <command> [options]

commands:
  gen          validate ops/*.yaml and write every backend to out/
  check        validate only; write nothing
  new <Name> [--triton]   write ops/<name>.yaml and kernel stubs for a new op (--triton: its CUDA kernel in Triton)
  docs         regenerate docs/spec-schema.md from schema/op.schema.json
  build [--cuda]  build the Node addon (out/node) with cmake-js into build/node, offline (--cuda: with the CUDA kernels)
  run <Op> --input name=d0,d1[:v0,v1,...]|name=file.npy [--input ...] [--attr name=value] [--device cpu|cuda] [--seed N]
               run one op of the built addon on seeded random inputs
  package [wheel] [npm] [ort] [trt] [--cuda] [--jax] [--paddle] [--dest <dir>]
               gen, then ship the ops into packages/: wheel (the default) a Python wheel for the
               torch (jax, paddle) of the Python opforge finds (scikit-build-core; a manylinux tag
               with auditwheel); npm the Node binding with its addon prebuilt (npm pack); ort and
               trt the ONNX Runtime and TensorRT libraries with a README each (TENSORRT_ROOT)
  from-onnx <model.onnx>   write a spec skeleton per custom op type the model uses
  test [--only Op[,Op]] [--backend node,torch,grad,ort,export,paddle,jax,serialize,trt] [--device cpu|cuda] [--jobs N] [--json]
               run every spec test case through every backend against the spec's reference (gen and builds first)

options:
  --ops <dir>    specs directory (default: ops)
  --out <dir>    output directory (default: out)
  --only <op>    regenerate only this op's files
  --quiet        print errors only
  --json         print the result as JSON
  --watch        regenerate (gen) or test again (test) whenever a spec or kernel changes
  -h, --help     this text

exit codes: 0 ok, 1 invalid specs (test: a backend disagrees with the reference), 2 usage error, 3 internal or I/O error`;

export const EXIT = { ok: 0, invalid: 1, usage: 2, internal: 3 } as const;

type Values = ReturnType<typeof parse>['values'];
type Command = (values: Values, args: readonly (string | undefined)[]) => Promise<number>;

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      ops: { type: 'string', default: 'ops' },
      out: { type: 'string', default: 'out' },
      only: { type: 'string' },
      jobs: { type: 'string' },
      quiet: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      watch: { type: 'boolean', default: false },
      input: { type: 'string', multiple: true, default: [] },
      attr: { type: 'string', multiple: true, default: [] },
      device: { type: 'string', default: 'cpu' },
      cuda: { type: 'boolean', default: false },
      seed: { type: 'string', default: '1' },
      backend: { type: 'string' },
      jax: { type: 'boolean', default: false },
      paddle: { type: 'boolean', default: false },
      triton: { type: 'boolean', default: false },
      dest: { type: 'string', default: 'packages' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
}

export async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    process.stderr.write(`opforge: ${(e as Error).message}\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return EXIT.ok;
  }
  const cmd = positionals[0];
  const command = cmd !== undefined && Object.hasOwn(COMMANDS, cmd) ? COMMANDS[cmd] : undefined;
  if (!command) {
    process.stderr.write(
      `opforge: ${cmd === undefined ? 'missing command' : `unknown command \`${cmd}\``}\n${USAGE}\n`,
    );
    return EXIT.usage;
  }
  return command(values, positionals.slice(1));
}

/** `opforge run <Op>`: one op of the built addon on seeded inputs. */
const runCommand: Command = async (values, [op]) => {
  if (op === undefined) {
    process.stderr.write(`opforge run: missing op name\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { runOp } = await importRuntime<typeof import('../../runtime/run-op.js')>('runtime/run-op.js');
  runOp({
    op,
    inputs: values.input,
    attrs: values.attr,
    device: values.device,
    opsDir: values.ops,
    seed: Number(values.seed),
  })
    .then((s) => process.stdout.write(`${s}\n`))
    .catch((e: unknown) => {
      process.stderr.write(`opforge run: ${(e as Error).message}\n`);
      process.exitCode = EXIT.usage;
    });
  return EXIT.ok;
};

/** `opforge build`: the Node addon, with progress on one line on a terminal. */
const buildCommand: Command = async (values) => {
  const t0 = performance.now();
  const tty = process.stdout.isTTY === true;
  const { build } = await importRuntime<typeof import('../../runtime/index.js')>('runtime/index.js');
  build({
    cuda: values.cuda,
    onLine: (l) => {
      if (!values.quiet && /^\[\d+\/\d+\]|Building|Linking/.test(l))
        process.stdout.write(tty ? `\r\x1b[K${l.slice(0, 100)}` : `${l}\n`);
    },
  })
    .then((p) => {
      process.stdout.write(`${tty ? '\r\x1b[K' : ''}opforge build: ${p} (${Math.round(performance.now() - t0)} ms)\n`);
    })
    .catch((e: unknown) => {
      process.stderr.write(`${tty ? '\n' : ''}${(e as Error).message}\n`);
      process.exitCode = EXIT.internal;
    });
  return EXIT.ok;
};

/** `opforge package [wheel] [npm] [ort] [trt]`: gen, then each artifact, with the build's progress on one line on a terminal. */
const packageCommand: Command = async (values, targets) => {
  const t0 = performance.now();
  const tty = process.stdout.isTTY === true;
  const wanted = targets.length ? targets.filter((t): t is string => t !== undefined) : ['wheel'];
  const unknown = wanted.filter((t) => !['wheel', 'npm', 'ort', 'trt'].includes(t));
  if (unknown.length) {
    process.stderr.write(`opforge package: unknown target ${unknown.join(', ')} (targets: wheel, npm, ort, trt)\n`);
    return EXIT.usage;
  }
  try {
    const { generateIncremental } = await import('../output/incremental.js');
    generateIncremental({ opsDir: values.ops, outDir: values.out });
  } catch (e) {
    if (!(e instanceof SpecErrors)) throw e;
    for (const d of e.diagnostics) process.stderr.write(`${formatDiagnostic(d, useColor(process.stderr))}\n`);
    return EXIT.invalid;
  }
  const { packageNpm, packageWheel } =
    await importRuntime<typeof import('../../runtime/package.js')>('runtime/package.js');
  const onLine = (l: string): void => {
    if (values.quiet) return;
    if (/^opforge package/.test(l)) process.stdout.write(`${tty ? '\r\x1b[K' : ''}${l}\n`);
    else if (/^\[\s*\d+%\]|^\[\d+\/\d+\]|Building|Linking/.test(l))
      process.stdout.write(tty ? `\r\x1b[K${l.slice(0, 100)}` : `${l}\n`);
  };
  const done = (what: string): void => {
    process.stdout.write(
      `${tty ? '\r\x1b[K' : ''}opforge package: ${what} (${Math.round(performance.now() - t0)} ms)\n`,
    );
  };
  try {
    if (wanted.includes('wheel')) {
      const r = await packageWheel({
        outDir: values.out,
        wheelDir: values.dest,
        cuda: values.cuda,
        jax: values.jax,
        paddle: values.paddle,
        onLine,
      });
      done(`${r.wheel}${r.repaired ? '' : ' (linux tag: no auditwheel)'}`);
    }
    if (wanted.includes('npm'))
      done(await packageNpm({ outDir: values.out, dest: values.dest, cuda: values.cuda, onLine }));
    if (wanted.includes('ort') || wanted.includes('trt')) {
      const { packageOrt, packageTrt } =
        await importRuntime<typeof import('../../runtime/package-libraries.js')>('runtime/package-libraries.js');
      const opts = { opsDir: values.ops, outDir: values.out, dest: values.dest, cuda: values.cuda, onLine };
      if (wanted.includes('ort')) done(await packageOrt(opts));
      if (wanted.includes('trt')) done(await packageTrt(opts));
    }
    return EXIT.ok;
  } catch (e) {
    process.stderr.write(`${tty ? '\n' : ''}${(e as Error).message}\n`);
    return EXIT.internal;
  }
};

const docsCommand: Command = async () => {
  const { schemaMarkdown } = await import('./schema-doc.js');
  writeFileSync('docs/spec-schema.md', schemaMarkdown());
  process.stdout.write('wrote docs/spec-schema.md\n');
  return EXIT.ok;
};

/** `opforge from-onnx <model>`: a spec skeleton per custom op type the model uses. */
const fromOnnxCommand: Command = async (values, [model]) => {
  if (model === undefined) {
    process.stderr.write(`opforge from-onnx: missing model path\n${USAGE}\n`);
    return EXIT.usage;
  }
  try {
    const { fromOnnx } = await import('./from-onnx.js');
    const { written, skipped } = fromOnnx(model, values.ops);
    if (values.json) process.stdout.write(`${JSON.stringify({ written, skipped })}\n`);
    else {
      for (const f of written) process.stdout.write(`wrote ${f}\n`);
      for (const f of skipped) process.stdout.write(`skipped ${f} (exists)\n`);
      if (!written.length && !skipped.length) process.stdout.write('no custom ops in the model\n');
    }
    return EXIT.ok;
  } catch (e) {
    if (e instanceof SpecErrors) {
      for (const d of e.diagnostics) process.stderr.write(`${formatDiagnostic(d, useColor(process.stderr))}\n`);
      return EXIT.internal;
    }
    process.stderr.write(`opforge from-onnx: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
};

/** `opforge new <Name>`: a spec and kernel stubs. */
const newCommand: Command = async (values, [name]) => {
  if (name === undefined) {
    process.stderr.write(`opforge new: missing op name\n${USAGE}\n`);
    return EXIT.usage;
  }
  try {
    const { scaffold } = await import('./scaffold.js');
    for (const f of scaffold(name, values.ops, { triton: values.triton })) process.stdout.write(`wrote ${f}\n`);
    return EXIT.ok;
  } catch (e) {
    process.stderr.write(`opforge new: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
};

/** `opforge check`: validate only. */
const checkCommand: Command = (values) =>
  specCommand('check', values, async (say) => {
    const { loadProject } = await import('../model/project.js');
    const project = loadProject({ opsDir: values.ops });
    const limits = await warnDtypeLimits(project, values);
    if (values.json)
      process.stdout.write(`${JSON.stringify({ ok: true, ops: project.ops.map((o) => o.name), warnings: limits })}\n`);
    say(`opforge check: ${project.ops.length} op(s) valid (${project.ops.map((o) => o.name).join(', ')})`);
  });

/** `opforge gen`: out/ from the specs, incrementally (a no-op checks the stamp only). */
const genCommand: Command = (values) =>
  specCommand('gen', values, async (say) => {
    const t0 = performance.now();
    const opts = {
      opsDir: values.ops,
      outDir: values.out,
      ...(values.only !== undefined ? { only: values.only } : {}),
    };
    if (values.watch) {
      const { watchAndGenerate } = await import('../output/watch.js');
      watchAndGenerate(opts); // the watcher keeps the process alive
      return;
    }
    const pre = preflight(opts);
    const { project, result } = pre.current
      ? {
          project: undefined,
          result: { written: [] as string[], unchanged: pre.current.stamp.files.length, removed: [] as string[] },
        }
      : (await import('../output/incremental.js')).generateIncremental(opts, pre);
    const ms = Math.round(performance.now() - t0);
    if (project !== undefined) markGenerated();
    // The no-op fast path loads no spec, so it has nothing new to warn about.
    const limits = project === undefined ? [] : await warnDtypeLimits(project, values);
    if (values.json) {
      process.stdout.write(
        `${JSON.stringify({ ok: true, upToDate: project === undefined, ops: project?.ops.map((o) => o.name), written: result.written, removed: result.removed, unchanged: result.unchanged, ms, warnings: limits })}\n`,
      );
    }
    if (project === undefined) say(`opforge gen: ${values.out}/ is up to date (${ms} ms)`);
    else
      say(
        `opforge gen: ${project.ops.length} op(s) -> ${values.out}/: ${result.written.length} written, ${result.unchanged} unchanged, ${result.removed.length} removed (${ms} ms)`,
      );
  });

/** gen and check: spec errors as located diagnostics (or JSON), exit 1; nothing written. */
async function specCommand(
  cmd: string,
  values: Values,
  body: (say: (s: string) => void) => Promise<void>,
): Promise<number> {
  const say = (s: string): void => {
    if (!values.quiet && !values.json) process.stdout.write(`${s}\n`);
  };
  try {
    await body(say);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof SpecErrors) {
      if (values.json) process.stdout.write(`${JSON.stringify({ ok: false, errors: e.diagnostics })}\n`);
      else {
        for (const d of e.diagnostics) process.stderr.write(`${formatDiagnostic(d, useColor(process.stderr))}\n`);
        process.stderr.write(`opforge ${cmd}: ${e.diagnostics.length} error(s); nothing written\n`);
      }
      return EXIT.invalid;
    }
    if (e instanceof (await import('../output/gen.js')).UsageError) {
      process.stderr.write(`opforge: ${e.message}\n`);
      return EXIT.usage;
    }
    process.stderr.write(`opforge: internal error: ${(e as Error).stack ?? String(e)}\n`);
    return EXIT.internal;
  }
}

const COMMANDS: Record<string, Command> = {
  gen: genCommand,
  check: checkCommand,
  new: newCommand,
  docs: docsCommand,
  build: buildCommand,
  package: packageCommand,
  run: runCommand,
  test: (values) => runTestCommand(values),
  'from-onnx': fromOnnxCommand,
};

/** `opforge test`: the table (or JSON) on stdout, progress on stderr; exit 1 on any mismatch. */
async function runTestCommand(values: {
  ops: string;
  out: string;
  only?: string | undefined;
  backend?: string | undefined;
  device: string;
  jobs?: string | undefined;
  json: boolean;
  quiet: boolean;
  watch: boolean;
}): Promise<number> {
  const { BACKENDS, runTests } =
    await importRuntime<typeof import('../../runtime/testing/run.js')>('runtime/testing/run.js');
  const { generateIncremental } = await import('../output/incremental.js');
  const { formatReport } =
    await importRuntime<typeof import('../../runtime/testing/results.js')>('runtime/testing/results.js');
  const backends = values.backend
    ?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const bad = backends?.filter((b) => !(BACKENDS as readonly string[]).includes(b)) ?? [];
  if (bad.length) {
    process.stderr.write(`opforge test: unknown backend ${bad.join(', ')} (backends: ${BACKENDS.join(', ')})\n`);
    return EXIT.usage;
  }
  if (values.jobs !== undefined && !/^[1-9]\d*$/.test(values.jobs)) {
    process.stderr.write(`opforge test: --jobs ${values.jobs}: a positive integer\n`);
    return EXIT.usage;
  }
  if (values.device !== 'cpu' && values.device !== 'cuda') {
    process.stderr.write(`opforge test: --device ${values.device}: use cpu or cuda\n`);
    return EXIT.usage;
  }
  const tty = process.stderr.isTTY === true;
  const progress = (l: string): void => {
    if (!values.quiet) process.stderr.write(tty ? `\r\x1b[K${l.slice(0, 120)}` : `${l}\n`);
  };
  const device: 'cpu' | 'cuda' = values.device;
  const once = async (sessions?: import('../../runtime/testing/standby.js').SessionStarter): Promise<number> => {
    try {
      const report = await runTests({
        opsDir: values.ops,
        outDir: values.out,
        device,
        ...(values.only ? { only: values.only.split(',') } : {}),
        ...(values.jobs ? { jobs: Number(values.jobs) } : {}),
        ...(backends ? { backends: backends as (typeof BACKENDS)[number][] } : {}),
        ...(sessions ? { sessions } : {}),
        // gen first, as `opforge gen` would (a no-op when out/ is current).
        regenerate: (dirs) => {
          generateIncremental(dirs);
        },
        onProgress: progress,
      });
      if (tty && !values.quiet) process.stderr.write('\r\x1b[K');
      process.stdout.write(values.json ? `${JSON.stringify(report)}\n` : `${formatReport(report)}\n`);
      return report.ok ? EXIT.ok : EXIT.invalid;
    } catch (e) {
      if (tty && !values.quiet) process.stderr.write('\n');
      if (e instanceof SpecErrors) {
        for (const d of e.diagnostics) process.stderr.write(`${formatDiagnostic(d, useColor(process.stderr))}\n`);
        return EXIT.invalid;
      }
      process.stderr.write(`opforge test: ${(e as Error).message}\n`);
      return EXIT.usage;
    }
  };
  if (!values.watch) return once();
  const { Standby } =
    await importRuntime<typeof import('../../runtime/testing/standby.js')>('runtime/testing/standby.js');
  const { watchTests } = await import('./test-watch.js');
  const root = process.cwd();
  const standby = new Standby();
  return watchTests(
    {
      root,
      opsDir: path.resolve(root, values.ops),
      outDir: path.resolve(root, values.out),
      buildDir: path.resolve(root, 'build'),
    },
    standby,
    () => once(standby.start),
    (l) => {
      if (!values.quiet) process.stderr.write(`${l}\n`);
    },
  );
}

/**
 * Dtypes a backend cannot carry (generator/model/dtype-limits.ts: one `warning:` line per op, backend
 * and dtype) and ops that run on CUDA but cannot train there (generator/model/cuda-training.ts: one per
 * op), on stderr (not with --quiet; with --json they are in the JSON). Returns the messages.
 */
async function warnDtypeLimits(
  project: import('../model/ir.js').ProjectIR,
  values: { quiet: boolean; json: boolean },
): Promise<string[]> {
  if (values.quiet && !values.json) return []; // shown nowhere: not worth computing for every op
  const { dtypeLimits, formatDtypeLimit } = await import('../model/dtype-limits.js');
  const { cudaTrainingGaps, formatCudaTrainingGap } = await import('../model/cuda-training.js');
  const lines = [
    ...dtypeLimits(project).map(formatDtypeLimit),
    ...cudaTrainingGaps(project).map(formatCudaTrainingGap),
  ];
  if (!values.quiet && !values.json) for (const l of lines) process.stderr.write(`${l}\n`);
  return lines;
}

main(process.argv.slice(2)).then((code) => {
  // A command that finishes later (build, run) sets process.exitCode itself.
  if (code !== EXIT.ok || process.exitCode === undefined) process.exitCode = code;
});
