#!/usr/bin/env bash
# The Node addon under valgrind memcheck: the fuzz driver (valid, invalid and hostile calls, sync
# and async) plus a loop of valid calls on every op. Reports invalid accesses anywhere and leaks
# whose allocation stack passes through the addon (V8's own allocations are not ours to judge).
# Run from the repo root after `npm run build && opforge build`. Writes build/valgrind-node.log.
set -uo pipefail
cd "$(dirname "$0")/.."
log=build/valgrind-node.log
valgrind --tool=memcheck --leak-check=full --show-leak-kinds=definite,indirect --num-callers=30 \
  --error-exitcode=0 node --jitless dist/test/node-fuzz-driver.js build/node "${1:-600}" 1 > "$log" 2>&1
errors=$(grep -E '^==[0-9]+== (Invalid|Conditional jump|Use of uninitialised|Mismatched|Source and destination)' "$log" | grep -c . || true)
ours=$(awk '/are definitely lost|are indirectly lost/{rec=1; buf=""} rec{buf=buf"\n"$0} /^==[0-9]+== $/{if (rec && buf ~ /opforge_node/) n++; rec=0} END{print n+0}' "$log")
tail -n 1 "$log" | head -c 0
echo "valgrind: $(grep -c '^{' "$log" || true) fuzz summary line(s); invalid accesses/uninitialised uses: $errors; leak records through the addon: $ours"
grep -E '^\{"ok"' "$log" || true
[ "$errors" = 0 ] && [ "$ours" = 0 ]
