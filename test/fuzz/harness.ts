// libFuzzer harnesses over each op core's deserialize(): any bytes in, never a crash, and
// whatever it accepts must re-serialize to the same bytes (the format has one encoding).

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cppAttrValue } from '../../generator/emit/lang/literals.js';
import type { OpIR } from '../../generator/model/ir.js';
import { coreHeaderPath, cppNamespace } from '../../generator/model/ir-helpers.js';

export function harnessSource(op: OpIR): string {
  return `#include "${coreHeaderPath(op).include}"
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace op = ${cppNamespace(op)};

// Most random bytes die at the checksum; half the inputs get a valid header wrapped around
// them so the fuzzer explores field parsing too.
static std::vector<uint8_t> wrap(const uint8_t* payload, size_t n) {
  std::vector<uint8_t> buf(opforge::serial::kHeaderSize + n);
  if (n) std::memcpy(buf.data() + opforge::serial::kHeaderSize, payload, n);
  opforge::serial::Writer w(buf.data());
  opforge::serial::writeHeader(w, static_cast<uint16_t>(op::kVersion), op::kHash, static_cast<uint32_t>(n), opforge::serial::fnv1a(payload, n));
  return buf;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* raw, size_t rawSize) {
  std::vector<uint8_t> wrapped;
  const uint8_t* data = raw;
  size_t size = rawSize;
  if (rawSize > 0 && (raw[0] & 1)) {
    wrapped = wrap(raw + 1, rawSize - 1);
    data = wrapped.data();
    size = wrapped.size();
  }
  op::Attrs attrs;
  op::State state;
  if (!op::deserialize(data, size, &attrs, &state).ok()) return 0;
  std::vector<uint8_t> again(op::serializedSize(attrs, state));
  op::serialize(attrs, state, again.data());
  if (again.size() != size || !std::equal(again.begin(), again.end(), data)) std::abort();
  return 0;
}
`;
}

/** A seed-corpus program: writes the serialized attributes of each spec test case. */
export function seedSource(op: OpIR): string {
  const cases = op.tests.map(
    (t, k) => `  {
    op::Attrs attrs;
    ${op.attributes.map((a) => `attrs.${a.name} = ${cppAttrValue(a, t.attributes[a.name]!)};`).join('\n    ')}
    op::State state;
    std::vector<uint8_t> b(op::serializedSize(attrs, state));
    op::serialize(attrs, state, b.data());
    std::FILE* f = std::fopen((dir + "/case${k}").c_str(), "wb");
    if (!f) return 1;
    std::fwrite(b.data(), 1, b.size(), f);
    std::fclose(f);
  }`,
  );
  return `#include "${coreHeaderPath(op).include}"
#include <cstdio>
#include <string>
#include <vector>

namespace op = ${cppNamespace(op)};

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const std::string dir = argv[1];
${cases.join('\n')}
  return 0;
}
`;
}

export function writeHarnesses(op: OpIR, dir: string): { harness: string; seed: string } {
  mkdirSync(dir, { recursive: true });
  const harness = path.join(dir, `fuzz_${op.ident.snake}.cpp`);
  const seed = path.join(dir, `seed_${op.ident.snake}.cpp`);
  writeFileSync(harness, harnessSource(op));
  writeFileSync(seed, seedSource(op));
  return { harness, seed };
}
