#!/usr/bin/env bash
# Long libFuzzer run over every op core's deserializer: SECONDS_PER_OP (default 120) each.
# Usage: scripts/fuzz-long.sh [seconds-per-op]   (after `npm test` built the harnesses in build/fuzz)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-120}
for d in build/fuzz/*/; do
  op=$(basename "$d")
  echo "== $op: ${secs}s"
  (cd "$d" && ./fuzz -max_total_time="$secs" -max_len=4096 -print_final_stats=1 corpus 2>&1 | grep -E "Done|stat::number_of_executed_units|ERROR|SUMMARY" || true)
done
