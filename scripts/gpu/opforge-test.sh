#!/usr/bin/env bash
# On the GPU machine: `opforge test` on the seed ops (CPU, with torch 2.11's dynamo column, and
# --device cuda) and on the five user ops (--device cuda), as a user runs it. Run from the repo root
# after `source .carry/setup.sh`; onnxruntime-node's library may travel xz-compressed next to where
# it belongs (decompressed here). Writes $OUT/opforge-test-<what>.{txt,json,err}.
set -uo pipefail
out=${OUT:-/tmp}
mkdir -p "$out"
lib=node_modules/onnxruntime-node/bin/napi-v6/linux/x64/libonnxruntime.so.1
[ -f "$lib" ] || [ ! -f "$lib.xz" ] || python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1] + '.xz'), open(sys.argv[1], 'wb'))" "$lib"
rc=0
run() {  # name, cwd, args...
  local name=$1 dir=$2; shift 2
  local t0=$SECONDS
  (cd "$dir" && node "$OLDPWD/dist/cli/opforge.js" test "$@" --json 2>"$out/opforge-test-$name.err") >"$out/opforge-test-$name.json"
  local s=$?
  node -e 'import(process.argv[1]).then((m) => process.stdout.write(m.formatReport(JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"))) + "\n"))' \
    "$PWD/dist/runtime/testing/results.js" "$out/opforge-test-$name.json" | tee "$out/opforge-test-$name.txt"
  echo "opforge test $name: exit $s, $((SECONDS - t0)) s" | tee -a "$out/opforge-test-$name.txt"
  [ $s = 0 ] || rc=1
}
run seed-cpu .
run seed-cuda . --device cuda
mkdir -p build/user-ops-gpu && rm -rf build/user-ops-gpu/ops && cp -r test/fixtures/user-ops/ops build/user-ops-gpu/ops
run user-ops-cuda build/user-ops-gpu --device cuda
exit $rc
