// The op core's serialization, checked per case: the bytes a TensorRT plugin writes into an engine
// and Paddle into a model come from serialize(); a field written in one order and read in another
// would load a different op from a saved engine and run silently wrong. One C++ program (g++,
// -Wall -Wextra -Werror) sets every case's attributes, serializes, deserializes, and compares
// every field and the re-serialized bytes; a truncated and a corrupted buffer must be refused.

import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { lowerIfIdle } from '../../../build-priority.js';
import { cppAttrValue } from '../../../../generator/emit/lang/literals.js';
import { cppString } from '../../../../generator/emit/lang/literals.js';
import type { OpIR } from '../../../../generator/model/ir.js';
import { compileKey, upToDate } from '../../compile-key.js';
import type { CaseResult } from '../../results.js';

function caseBlock(op: OpIR, k: number): string {
  const t = op.tests[k]!;
  const ns = `opforge::ops::${op.ident.snake}`;
  const set = op.attributes.map((a) => `    a.${a.name} = ${cppAttrValue(a, t.attributes[a.name]!)};`);
  const cmp = op.attributes.map(
    (a) =>
      `    if (!(b.${a.name} == a.${a.name})) return fail(${cppString(op.name)}, ${k}, "attribute ${a.name} read back differs");`,
  );
  return [
    `  [&]() -> bool {  // ${op.name} case ${k}`,
    `    ${ns}::Attrs a;`,
    ...set,
    `    const ${ns}::State s{};`,
    `    const opforge::Status valid = ${ns}::validate(a);`,
    `    if (!valid.ok()) return fail(${cppString(op.name)}, ${k}, "validate: " + valid.message());`,
    `    std::vector<uint8_t> buf(${ns}::serializedSize(a, s));`,
    `    ${ns}::serialize(a, s, buf.data());`,
    `    ${ns}::Attrs b;`,
    `    ${ns}::State t;`,
    `    const opforge::Status read = ${ns}::deserialize(buf.data(), buf.size(), &b, &t);`,
    `    if (!read.ok()) return fail(${cppString(op.name)}, ${k}, "deserialize: " + read.message());`,
    ...cmp,
    `    std::vector<uint8_t> again(${ns}::serializedSize(b, t));`,
    `    ${ns}::serialize(b, t, again.data());`,
    `    if (again != buf) return fail(${cppString(op.name)}, ${k}, "serializing what was read gives other bytes");`,
    `    ${ns}::Attrs c;`,
    `    ${ns}::State u;`,
    `    if (${ns}::deserialize(buf.data(), buf.size() - 1, &c, &u).ok()) return fail(${cppString(op.name)}, ${k}, "a truncated buffer was accepted");`,
    `    buf.back() = static_cast<uint8_t>(buf.back() ^ 0x5a);`,
    `    if (${ns}::deserialize(buf.data(), buf.size(), &c, &u).ok()) return fail(${cppString(op.name)}, ${k}, "a corrupted buffer was accepted");`,
    `    std::printf("ok %s %d %zu\\n", ${cppString(op.name)}, ${k}, again.size());`,
    '    return true;',
    '  }();',
  ].join('\n');
}

/** The program: one block per case; prints `ok <Op> <case> <bytes>` or `FAIL <Op> <case> <why>` lines. */
export function serializationProgram(ops: readonly OpIR[]): string {
  return [
    '// Written by opforge test: the op core serialization round trip of every spec test case.',
    '#include <cstdint>',
    '#include <cstdio>',
    '#include <string>',
    '#include <vector>',
    ...ops.map((o) => `#include "opforge/ops/${o.ident.snake}.h"`),
    '',
    'static int failures = 0;',
    'static bool fail(const char* op, int k, const std::string& why) {',
    '  std::printf("FAIL %s %d %s\\n", op, k, why.c_str());',
    '  ++failures;',
    '  return false;',
    '}',
    '',
    ...ops.map((o) =>
      [`static void check_${o.ident.snake}() {`, ...o.tests.map((_, k) => caseBlock(o, k)), '}'].join('\n'),
    ),
    '',
    'int main() {',
    ...ops.map((o) => `  check_${o.ident.snake}();`),
    '  return failures == 0 ? 0 : 1;',
    '}',
    '',
  ].join('\n');
}

export async function checkSerialization(o: {
  ops: readonly OpIR[];
  outDir: string;
  buildDir: string;
}): Promise<CaseResult[]> {
  const ops = o.ops.filter((op) => op.tests.length);
  if (!ops.length) return [];
  mkdirSync(o.buildDir, { recursive: true });
  const src = path.join(o.buildDir, 'serialize.cpp');
  const exe = path.join(o.buildDir, 'serialize');
  const program = serializationProgram(ops);
  const cxx = process.env.CXX ?? 'g++';
  const flags = ['-std=c++17', '-O1', '-Wall', '-Wextra', '-Werror', `-I${path.join(o.outDir, 'include')}`];
  // Compiled again only when the program or the op headers it includes changed.
  const key = compileKey([cxx, ...flags, program], [path.join(o.outDir, 'include')]);
  const keyFile = path.join(o.buildDir, 'serialize.key');
  if (!upToDate(keyFile, key, [exe])) {
    rmSync(keyFile, { force: true });
    writeFileSync(src, program);
    const c = await lowerIfIdle(execa(cxx, [...flags, src, '-o', exe], { reject: false, all: true }));
    if (c.exitCode !== 0)
      throw new Error(
        `compiling the serialization check (${src}) failed:\n${String(c.all).split('\n').slice(0, 25).join('\n')}`,
      );
    writeFileSync(keyFile, key);
  }
  const r = await execa(exe, [], { reject: false });
  const results: CaseResult[] = [];
  for (const line of String(r.stdout).split('\n')) {
    const m = /^(ok|FAIL) (\S+) (\d+) (.*)$/.exec(line);
    if (!m) continue;
    results.push({
      op: m[2]!,
      case: Number(m[3]),
      backend: 'serialize',
      status: m[1] === 'ok' ? 'ok' : 'fail',
      ...(m[1] === 'ok' ? { message: `${m[4]} bytes` } : { message: m[4]! }),
    });
  }
  if (r.exitCode !== 0 && !results.some((x) => x.status === 'fail'))
    throw new Error(`the serialization check crashed (exit ${r.exitCode}, signal ${r.signal ?? '-'})`);
  return results;
}
