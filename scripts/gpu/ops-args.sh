# Sourced by the scripts in scripts/gpu/: `--ops DIR` (default: the seed ops in ops/) and
# `--out DIR` (the generated code for them). Sets
#   OPS        the ops dir, absolute
#   GEN_OUT    the generated out/ dir, absolute (out/ for the seed ops; else --out, default
#              build/gpu/<project>/out)
#   PROJECT    the project root (the ops dir's parent: kernel paths are relative to it)
#   SEED       1 for the seed ops (checks written for them alone run), else 0
#   ARGS       the remaining arguments (an array)
# For other ops, or the seed ops with --out, the code is (re)generated with the repo's
# dist/generator when Node is on PATH (`source .carry/setup.sh`); without Node, --out must
# already hold `opforge gen --ops DIR --out DIR` output.
_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OPS=$_repo/ops
GEN_OUT=
ARGS=()
while [ $# -gt 0 ]; do
  case $1 in
    --ops) OPS=${2:?--ops needs a directory}; shift 2 ;;
    --ops=*) OPS=${1#--ops=}; shift ;;
    --out) GEN_OUT=${2:?--out needs a directory}; shift 2 ;;
    --out=*) GEN_OUT=${1#--out=}; shift ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[ -d "$OPS" ] || { echo "no ops directory $OPS" >&2; exit 2; }
OPS=$(cd "$OPS" && pwd)
PROJECT=$(dirname "$OPS")
SEED=0
[ "$OPS" = "$_repo/ops" ] && SEED=1
if [ "$SEED" = 1 ] && [ -z "$GEN_OUT" ]; then
  GEN_OUT=$_repo/out
else
  GEN_OUT=${GEN_OUT:-$_repo/build/gpu/$(basename "$PROJECT")/out}
  if command -v node >/dev/null && [ -f "$_repo/dist/cli/opforge.js" ]; then
    node "$_repo/dist/cli/opforge.js" gen --ops "$OPS" --out "$GEN_OUT" >&2 || exit 2
  elif [ ! -d "$GEN_OUT/include/opforge" ]; then
    echo "no generated code in $GEN_OUT and no Node to run opforge gen: pass --out <dir of opforge gen output>" >&2
    exit 2
  fi
  GEN_OUT=$(cd "$GEN_OUT" && pwd)
fi
export OPS GEN_OUT PROJECT SEED
