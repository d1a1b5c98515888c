#!/usr/bin/env bash
# GPU machine, no Node needed (issue 18): builds the seed ops' PyTorch extension with CUDA by plain
# CMake, then the call-path bench (generated function, torch.ops, torch) and the Python entry's
# checks (bit for bit torch.ops' own builtin, the fallbacks, torch.ops routed through the entry,
# opcheck and torch.compile) on cpu and cuda, and the gradient/compile check on cuda.
# Run from the repo root; logs to $OUT/call-*.log.
set -uo pipefail
out=${OUT:-/tmp}
mkdir -p "$out"
b=build/torch-call
prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)')
{ cmake -S out/torch -B "$b" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" -DPython3_EXECUTABLE="$(command -v python3)" \
    -DOPFORGE_PROJECT_ROOT="$PWD" -DWITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build "$b" -j "$(nproc)"; } > "$out/call-build.log" 2>&1 || { tail -n 30 "$out/call-build.log"; exit 1; }
lib=$b/libopforge_torch.so
export PYTHONPATH=out/python
rc=0
for d in cpu cuda; do
  python3 bench/python/torch_call.py --library "$lib" --device "$d" > "$out/call-bench-$d.log" 2>&1 || rc=1
  python3 test/python/torch_ops_check.py --library "$lib" --device "$d" --compile --no-legacy > "$out/call-check-$d.log" 2>&1 || rc=1
done
python3 test/python/grad_compile_check.py --library "$lib" --device cuda > "$out/call-grad-compile-cuda.log" 2>&1 || rc=1
tail -n 6 "$out"/call-*.log
exit $rc
