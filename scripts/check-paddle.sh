#!/usr/bin/env bash
# Compiles every generated Paddle translation unit against real Paddle headers with
# -Wall -Wextra -Werror (C++17); Paddle's headers are SYSTEM includes (their warnings are not ours).
#   scripts/check-paddle.sh <Paddle include root> [build dir]
# OPFORGE_OUT selects another generated out/ directory (the tests' fixture project).
# The include root holds paddle/extension.h: a paddle_inference library's paddle/include, or a
# Paddle source tree whose generated API headers exist (scripts/paddle-headers.sh makes them).
# Compiled: each <op>_op.cc for the CPU, again with PADDLE_WITH_CUDA (the GPU path) when CUDA
# headers are found, and each custom_op_test.cc when paddle_inference_api.h is found.
set -euo pipefail
pd=${1:?usage: scripts/check-paddle.sh <Paddle include root> [build dir]}
root=$(cd "${OPFORGE_OUT:-$(dirname "$0")/../out}" && pwd)
build=${2:-$root/../build/check-paddle/$(echo "$pd" | tr '/' '_')}
cxx=${CXX:-g++}
[ -f "$pd/paddle/extension.h" ] || { echo "check-paddle: no paddle/extension.h in $pd" >&2; exit 2; }
[ -f "$pd/paddle/phi/api/include/api.h" ] || { echo "check-paddle: $pd lacks the generated paddle/phi/api/include/api.h (run scripts/paddle-headers.sh)" >&2; exit 2; }
api_dir=
for d in "$pd" "$pd/paddle/fluid/inference/api"; do [ -f "$d/paddle_inference_api.h" ] && api_dir=$d && break; done
cuda_inc=${CUDA_INCLUDE_DIR:-}
if [ -z "$cuda_inc" ]; then
  if [ -f /usr/local/cuda/include/cuda_runtime_api.h ]; then cuda_inc=/usr/local/cuda/include
  elif command -v nvcc >/dev/null; then cuda_inc=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")/include
  fi
fi
mkdir -p "$build"
# A source tree's extension.h still includes pybind unless PADDLE_ON_INFERENCE (the inference
# library's copy has that block removed); out/paddle/CMakeLists.txt defines it too.
flags=(-std=c++17 -Wall -Wextra -Werror -Wshadow -O1 -fPIC -DPADDLE_ON_INFERENCE -DPADDLE_WITH_SHARED_LIB
       -isystem "$pd" -I "$root/include" -I "$root/paddle/include" -I "$root/paddle")
jobs=()
while IFS= read -r u; do jobs+=("cpu $u"); done < <(cd "$root" && find paddle -name '*_op.cc' | sort)
if [ -f "$cuda_inc/cuda_runtime_api.h" ]; then
  while IFS= read -r u; do jobs+=("gpu $u"); done < <(cd "$root" && find paddle -name '*_op.cc' | sort)
else
  echo "check-paddle: no CUDA headers (set CUDA_INCLUDE_DIR): GPU path not compiled"
fi
if [ -n "$api_dir" ]; then
  while IFS= read -r u; do jobs+=("example $u"); done < <(cd "$root" && find paddle -name 'custom_op_test.cc' | sort)
else
  echo "check-paddle: no paddle_inference_api.h under $pd: examples not compiled"
fi
fail=0
pids=()
for j in "${jobs[@]}"; do
  kind=${j%% *}; u=${j#* }
  obj="$build/$kind-$(echo "$u" | tr '/' '_').o"
  extra=()
  case $kind in
    gpu) extra=(-DPADDLE_WITH_CUDA -DOPFORGE_PADDLE_WITH_GPU -isystem "$cuda_inc")
         # CUDA 13 keeps thrust (Paddle's complex.h includes it) under include/cccl
         [ -d "$cuda_inc/cccl" ] && extra+=(-isystem "$cuda_inc/cccl") ;;
    example) extra=(-isystem "$api_dir")
         # a source tree keeps crypto/cipher.h where the inference library's paddle/include has it
         [ -d "$pd/paddle/fluid/framework/io/crypto" ] && extra+=(-isystem "$pd/paddle/fluid/framework/io") ;;
  esac
  ( "$cxx" "${flags[@]}" "${extra[@]}" -c "$root/$u" -o "$obj" 2>"$obj.log" && echo "ok   $kind $u" || { echo "FAIL $kind $u"; head -c 4000 "$obj.log"; exit 1; } ) &
  pids+=($!)
  if [ ${#pids[@]} -ge "${JOBS:-2}" ]; then wait "${pids[0]}" || fail=1; pids=("${pids[@]:1}"); fi
done
for p in "${pids[@]}"; do wait "$p" || fail=1; done
echo "check-paddle: Paddle headers in $pd, ${#jobs[@]} compilations, $([ $fail = 0 ] && echo all clean || echo FAILED)"
exit $fail
