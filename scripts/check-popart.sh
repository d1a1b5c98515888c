#!/usr/bin/env bash
# Compiles the generated PopART translation units against real PopART headers with
# -Wall -Wextra -Werror (C++17); SDK headers are SYSTEM includes (their warnings are not ours).
#   scripts/check-popart.sh <PopART include dir> <poprithms include dir> [build dir]
# PopART's public sources (graphcore/popart willow/include) and poprithms' (graphcore/poprithms
# poprithms/poprithms/include) suffice for each <op>_op.cpp (popart::Op, OpCreator). Each
# <op>_opx.cpp includes Poplar's headers, which are not public: compiled only when
# POPLAR_INCLUDE_DIR points at a Poplar SDK include dir.
# OPFORGE_OUT selects another generated out/ directory (the tests' fixture project).
set -euo pipefail
pa=${1:?usage: scripts/check-popart.sh <PopART include dir> <poprithms include dir> [build dir]}
pr=${2:?usage: scripts/check-popart.sh <PopART include dir> <poprithms include dir> [build dir]}
out=$(cd "${OPFORGE_OUT:-$(dirname "$0")/../out}" && pwd)
build=${3:-$out/../build/check-popart/$(echo "$pa" | tr '/' '_')}
cxx=${CXX:-g++}
[ -f "$pa/popart/op.hpp" ] || { echo "check-popart: no popart/op.hpp in $pa" >&2; exit 2; }
[ -f "$pr/poprithms/memory/inplace/proposal.hpp" ] || { echo "check-popart: no poprithms headers in $pr" >&2; exit 2; }
mkdir -p "$build"
# ONNX_NAMESPACE: what PopRT's example Makefile defines; PopART's names.hpp needs it.
flags=(-std=c++17 -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor -O1 -fPIC -DONNX_NAMESPACE=onnx
       -isystem "$pa" -isystem "$pr" -I "$out/include" -I "$out/popart/include" -I "$out/popart")
mapfile -t units < <(cd "$out" && find popart -name '*_op.cpp' | sort)
if [ -n "${POPLAR_INCLUDE_DIR:-}" ]; then
  flags+=(-isystem "$POPLAR_INCLUDE_DIR")
  mapfile -t -O "${#units[@]}" units < <(cd "$out" && find popart -name '*_opx.cpp' | sort)
else
  echo "check-popart: POPLAR_INCLUDE_DIR not set: the opx units (Poplar SDK) are not compiled"
fi
fail=0
pids=()
for u in "${units[@]}"; do
  obj="$build/$(echo "$u" | tr '/' '_').o"
  ( "$cxx" "${flags[@]}" -c "$out/$u" -o "$obj" 2>"$obj.log" && echo "ok   $u" || { echo "FAIL $u"; head -c 4000 "$obj.log"; exit 1; } ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "${JOBS:-2}" ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "check-popart: PopART headers in $pa, ${#units[@]} translation units, $([ $fail = 0 ] && echo all clean || echo FAILED)"
exit $fail
