#!/usr/bin/env bash
# The npm package with CUDA kernels (CI packs and checks a CPU one): the seed ops as a namespaced
# project, `opforge package npm --cuda`, unpacked into a project's node_modules as npm would
# install it (this machine has no registry: NODE_GYP_BUILD_TGZ is node-gyp-build's tarball), then
# test/gpu/npm-package-cuda.mjs with only node on PATH.
# Run from the repo root after `source .carry/setup.sh` (Node on PATH, dist/ built).
set -euo pipefail
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/seeds"
cp -r ops "$work/seeds/ops"
echo '{"name": "seeds", "version": "1.0.0", "opforge": {"namespace": "acme_ops"}}' > "$work/seeds/package.json"
mkdir -p "$work/app/node_modules/acme_ops" "$work/app/node_modules/node-gyp-build" "$work/bin"
# Where Node comes without npm (a carried Node), npm pack cannot run: the folder it would pack
# (package.json's files, staged in build/npm/) is installed instead, as npm would unpack it.
if (cd "$work/seeds" && CUDAARCHS="${CUDAARCHS:-90}" node "$repo/dist/cli/opforge.js" package npm --cuda); then
  tar -xzf "$work/seeds/packages/acme_ops-1.0.0.tgz" -C "$work/app/node_modules/acme_ops" --strip-components=1
elif command -v npm > /dev/null; then
  exit 1
else
  echo "no npm on PATH: installing the staged package folder"
  (cd "$work/seeds/build/npm/acme_ops" && cp -r package.json README.md main.js main.d.ts index.js index.d.ts runtime.js prebuilds "$work/app/node_modules/acme_ops/")
fi
tar -xzf "${NODE_GYP_BUILD_TGZ:-$repo/.gpu/npm/node-gyp-build-4.8.4.tgz}" -C "$work/app/node_modules/node-gyp-build" --strip-components=1
echo '{"name": "app", "private": true, "type": "module"}' > "$work/app/package.json"
cp test/gpu/npm-package-cuda.mjs "$work/app/"
ln -s "$(command -v node)" "$work/bin/node"
ls "$work/app/node_modules/acme_ops/prebuilds/"*
cd "$work/app" && env -i PATH="$work/bin" HOME="$work" node npm-package-cuda.mjs
