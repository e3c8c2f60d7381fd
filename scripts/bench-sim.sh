#!/usr/bin/env bash
# The simulator benchmarks of docs/performance.md ("Simulator (issue 7)"): runs each with /usr/bin/time -v
# and prints wall time, CPU time (user + sys) and peak RSS.
#   scripts/bench-sim.sh [CORRAL_BINARY]      (default build/release/tools/corral/corral)
set -euo pipefail
cd "$(dirname "$0")/.."
CORRAL=${1:-build/release/tools/corral/corral}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

measure() {
  local name=$1
  shift
  /usr/bin/time -v "$@" >"$TMP/out" 2>"$TMP/time" || { cat "$TMP/time" >&2; echo "$name: failed" >&2; return 1; }
  awk -v name="$name" '
    /User time/ {u=$NF} /System time/ {s=$NF} /Elapsed \(wall clock\)/ {w=$NF} /Maximum resident/ {r=$NF}
    END {printf "%-40s wall %8s  cpu %7.2f s  peak RSS %7.1f MiB\n", name, w, u+s, r/1024}' "$TMP/time"
}

measure "default scenario (corral simulate)" "$CORRAL" simulate -q --report "$TMP/report.html"
python3 scripts/gen-alibaba-trace.py "$TMP/trace" --nodes 1500 --pods 8000
measure "Alibaba trace, 1,500 nodes, 8,000 pods" "$CORRAL" simulate -q "$TMP"/trace/openb_node_list_synthetic.csv \
  "$TMP"/trace/openb_pod_list_synthetic.csv
measure "10,000 nodes, 1,000,000 pods" "$CORRAL" simulate -q examples/scenarios/fleet-10k.yaml
measure "perf SchedulingBasic/5000Nodes_10000Pods" "$CORRAL" perf -q \
  examples/scheduler_perf/misc/performance-config.yaml --test-case SchedulingBasic --workload 5000Nodes_10000Pods
