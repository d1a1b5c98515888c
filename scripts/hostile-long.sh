#!/usr/bin/env bash
# The long run of the hostile-call fuzzer (docs/security.md): N calls (default 20000) per binding ×
# mode and project through the generated Python bindings (torch, jax, paddle), with the test venv's
# Python. Builds what it needs (incremental). Run from anywhere after `npm run build`.
#   scripts/hostile-long.sh [N] [--seed S] [--bindings torch,jax,paddle]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20000}
shift || true
if [ -z "${VIRTUAL_ENV:-}" ] && [ -x .venv/bin/python ]; then
  export VIRTUAL_ENV=$PWD/.venv PATH=$PWD/.venv/bin:$PATH
fi
exec nice node dist/test/hostile/long.js --calls "$n" "$@"
