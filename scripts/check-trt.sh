#!/usr/bin/env bash
# Compiles every generated TensorRT translation unit (out/trt/**/*.cpp) against the TensorRT
# headers in the given directory with -Wall -Wextra -Werror (C++17). TensorRT is a SYSTEM include
# (warnings inside NVIDIA's headers are not ours); everything opforge generated must be clean.
#   scripts/check-trt.sh <TensorRT include dir> [build dir]
# OPFORGE_OUT selects another generated out/ directory (the tests' fixture projects).
# CUDA headers come from $CUDA_INCLUDE_DIR, /usr/local/cuda/include or nvcc's include dir.
# Compiles only (-fsyntax-only is not enough for templates: full -c into the build dir).
set -euo pipefail
trt_inc=${1:?usage: scripts/check-trt.sh <TensorRT include dir> [build dir]}
repo=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "${OPFORGE_OUT:-$repo/out}" && pwd)
build=${2:-$repo/build/check-trt/$(echo "$out$trt_inc" | tr '/' '_')}
cxx=${CXX:-g++}
[ -f "$trt_inc/NvInferRuntime.h" ] || { echo "check-trt: no NvInferRuntime.h in $trt_inc" >&2; exit 2; }
cuda_inc=${CUDA_INCLUDE_DIR:-}
if [ -z "$cuda_inc" ]; then
  if [ -f /usr/local/cuda/include/cuda_runtime_api.h ]; then cuda_inc=/usr/local/cuda/include
  elif command -v nvcc >/dev/null; then cuda_inc=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")/include
  fi
fi
[ -f "$cuda_inc/cuda_runtime_api.h" ] || { echo "check-trt: no CUDA headers (set CUDA_INCLUDE_DIR)" >&2; exit 2; }
ver=$(grep -hE '^#define (NV_TENSORRT_MAJOR|TRT_MAJOR_ENTERPRISE|NV_TENSORRT_MINOR|TRT_MINOR_ENTERPRISE) [0-9]+' "$trt_inc/NvInferVersion.h" | awk '{print $3}' | head -2 | paste -sd.)
mkdir -p "$build"
flags=(-std=c++17 -Wall -Wextra -Werror -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -O1 -fPIC
       -isystem "$trt_inc" -isystem "$cuda_inc" -I "$out/include" -I "$out/trt/include" -I "$out/trt")
mapfile -t units < <(cd "$out" && find trt -name '*.cpp' | sort)
fail=0
pids=()
for u in "${units[@]}"; do
  obj="$build/$(echo "$u" | tr '/' '_').o"
  ( "$cxx" "${flags[@]}" -c "$out/$u" -o "$obj" 2>"$obj.log" && echo "ok   $u" || { echo "FAIL $u"; cat "$obj.log"; exit 1; } ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "${JOBS:-2}" ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "check-trt: TensorRT $ver headers ($trt_inc), $out/trt: ${#units[@]} translation units, $([ $fail = 0 ] && echo all clean || echo FAILED)"
exit $fail
