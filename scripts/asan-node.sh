#!/usr/bin/env bash
# The Node addon built with ASan + UBSan, driven with valid, invalid and hostile raw calls
# (bypassing index.js checks). Run from the repo root after `npm run gen`.
set -euo pipefail
cd "$(dirname "$0")/.."
npm_config_nodedir=${npm_config_nodedir:-/usr} node node_modules/cmake-js/bin/cmake-js compile -d out/node -O build/node-asan \
  --CDOPFORGE_PROJECT_ROOT="$PWD" --CDCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer" \
  --CDCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" ASAN_OPTIONS=detect_leaks=0 \
  UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 OPFORGE_ASAN_ADDON="$PWD/build/node-asan/Release/opforge_node.node" node scripts/asan-node.mjs
# The randomized fuzz driver of test/node-fuzz.test.ts over the same sanitized build.
for seed in 1 2 3; do
  LD_PRELOAD="$(gcc -print-file-name=libasan.so):$(gcc -print-file-name=libubsan.so)" ASAN_OPTIONS=detect_leaks=0 \
    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 node dist/test/node-fuzz-driver.js build/node-asan 3000 "$seed"
done
