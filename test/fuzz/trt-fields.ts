// libFuzzer harnesses over each op's TensorRT creator field parsing (PluginCore::fromFields):
// random field collections — names, PluginFieldTypes, lengths, values — never crash, and any
// accepted attributes pass the op core's validation and serialize/deserialize cleanly.

import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { OpIR } from '../../generator/model/ir.js';
import { cppString } from '../../generator/emit/lang/literals.js';

export function fieldHarness(op: OpIR): string {
  const names = [...op.attributes.map((a) => a.name), 'unknown_field'];
  return `#include "${op.ident.snake}/${op.ident.snake}_trt.h"
#include <cstring>
#include <vector>

namespace {
// Silence the creators' error log: rejection is the expected outcome for most inputs.
class Quiet : public nvinfer1::ILogger {
 public:
  void log(Severity, const char*) noexcept override {}
};
class Finder : public nvinfer1::ILoggerFinder {
 public:
  nvinfer1::ILogger* findLogger() override { return &logger; }
  Quiet logger;
};
Finder finder;
const char* const kNames[] = {${names.map(cppString).join(', ')}};
constexpr size_t kMaxElem = sizeof(nvinfer1::Dims);  // the largest PluginField element
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  opforge::trt::loggerFinder().store(&finder);
  using Op = opforge::trt::${op.ident.snake}::Op;
  size_t p = 0;
  auto next = [&]() -> uint8_t { return p < size ? data[p++] : 0; };
  const int n = next() % 6;
  std::vector<std::vector<uint8_t>> storage(n);
  std::vector<nvinfer1::PluginField> fields(n);
  for (int i = 0; i < n; ++i) {
    const char* name = kNames[next() % ${names.length}];
    const auto type = static_cast<nvinfer1::PluginFieldType>(next() % 14);
    const int32_t length = next() % 9;
    // The PluginField contract: data holds length elements of the type. Zero-pad what the input lacks.
    storage[i].assign(static_cast<size_t>(length) * kMaxElem + 1, 0);
    for (size_t k = 0; k < storage[i].size() - 1 && p < size; ++k) storage[i][k] = data[p++];
    fields[i] = nvinfer1::PluginField(name, storage[i].data(), type, length);
  }
  nvinfer1::PluginFieldCollection fc{n, fields.data()};
  Op::Attrs attrs;
  if (!opforge::trt::PluginCore<Op>::fromFields(&fc, "fuzz", &attrs)) return 0;
  if (!Op::validate(attrs).ok()) __builtin_trap();
  Op::State state;
  std::vector<uint8_t> buf(opforge::ops::${op.ident.snake}::serializedSize(attrs, state));
  opforge::ops::${op.ident.snake}::serialize(attrs, state, buf.data());
  Op::Attrs back;
  if (!opforge::ops::${op.ident.snake}::deserialize(buf.data(), buf.size(), &back, &state).ok()) __builtin_trap();
  return 0;
}
`;
}

export function writeFieldHarness(op: OpIR, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const f = path.join(dir, `fuzz_fields_${op.ident.snake}.cpp`);
  writeFileSync(f, fieldHarness(op));
  return f;
}
