#!/usr/bin/env bash
# `corral simulate` as a process: output paths are checked before the run (exit 2), the progress line
# appears only on a terminal or with --progress, and SIGTERM/SIGINT stop a long run cleanly — exit code
# 143/130, a summary marked partial, and every output file either complete or absent (no truncated file,
# no temporary file left behind).
#   simulate_lifecycle_test.sh CORRAL
set -uo pipefail
corral="$1"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

# --- Output paths are checked before the run starts.
expect_path_error() {  # flag value expected-message
  local out rc
  out="$("$corral" simulate examples/scenarios/small.yaml -q "$1" "$2" 2>&1 >/dev/null)"
  rc=$?
  [ "$rc" = 2 ] || fail "$1 $2: exit code $rc, want 2"
  [[ "$out" == *"$3"* ]] || fail "$1 $2: stderr '$out' lacks '$3'"
}
expect_path_error --report "$tmp/no-such-dir/r.html" "corral simulate: --report: directory \"$tmp/no-such-dir\" does not exist"
expect_path_error --csv "$tmp/no-such-dir/r.csv" "--csv: directory \"$tmp/no-such-dir\" does not exist"
expect_path_error --metrics "$tmp" "--metrics: \"$tmp\" is a directory"
touch "$tmp/plain-file"
expect_path_error --event-log "$tmp/plain-file/log.txt" "--event-log: \"$tmp/plain-file\" is not a directory"
[ -z "$(ls -A "$tmp" | grep -v plain-file)" ] || fail "a failed path check wrote files: $(ls -A "$tmp")"

# --- Provenance names the gates a flag set; flags for "the" scheduler are errors with clusters.
out="$("$corral" simulate examples/scenarios/small.yaml -q --feature-gates OpportunisticBatching=false)"
[[ "$out" == *"feature gates     set: OpportunisticBatching=false; differ from the defaults: OpportunisticBatching=false"* ]] ||
  fail "--feature-gates not in the summary's INPUTS: $(echo "$out" | grep 'feature gates')"
for flag in "--feature-gates OpportunisticBatching=false" "--config examples/scenarios/three-clusters-binpack.yaml"; do
  # shellcheck disable=SC2086
  err="$("$corral" simulate examples/scenarios/three-clusters.yaml -q $flag 2>&1 >/dev/null)"
  rc=$?
  [ "$rc" = 2 ] || fail "$flag with clusters: exit code $rc, want 2"
  [[ "$err" == *"${flag%% *}: the scenario has clusters"* ]] || fail "$flag with clusters: '$err'"
done

# --- Progress: never when stderr is not a terminal (unless --progress), and then honest lines.
"$corral" simulate examples/scenarios/small.yaml --no-report > /dev/null 2> "$tmp/err.txt"
rc=$?
[ "$rc" = 0 ] || fail "small.yaml without a terminal: exit code $rc"
if grep -q "virtual time" "$tmp/err.txt" || grep -q $'\r' "$tmp/err.txt"; then
  fail "progress written to a non-terminal stderr: $(cat "$tmp/err.txt")"
fi
"$corral" simulate examples/scenarios/small.yaml -q --progress > /dev/null 2> "$tmp/err.txt"
grep -q "^progress: virtual time [0-9:.]* / 02:00:00.000  events [0-9,]*  pods" "$tmp/err.txt" ||
  fail "--progress: no progress line: $(cat "$tmp/err.txt")"
grep -q '%' "$tmp/err.txt" && fail "--progress shows a percentage: $(cat "$tmp/err.txt")"

# --- Signals stop a long run at an event boundary.
stop_run() {  # signal want-rc output-format
  local sig="$1" want="$2" fmt="$3" dir="$tmp/$1"
  mkdir -p "$dir"
  "$corral" simulate test/e2e/long_run.yaml -o "$fmt" --progress --report "$dir/report.html" \
    --csv "$dir/run.csv" --metrics "$dir/run.prom" --event-log "$dir/events.log" \
    > "$dir/out" 2> "$dir/err" &
  local pid=$! waited=0
  until grep -q "^progress: " "$dir/err" 2>/dev/null; do
    sleep 0.1
    waited=$((waited + 1))
    if [ "$waited" -gt 300 ]; then
      kill -KILL "$pid" 2>/dev/null
      fail "$sig: no progress line within 30 s"
      return
    fi
  done
  kill -"$sig" "$pid"
  local rc=0 waited_end=0
  while kill -0 "$pid" 2>/dev/null && [ "$waited_end" -lt 300 ]; do
    sleep 0.1
    waited_end=$((waited_end + 1))
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid"
    fail "$sig: still running 30 s after the signal"
  fi
  wait "$pid"
  rc=$?
  [ "$rc" = "$want" ] || fail "$sig: exit code $rc, want $want; stderr: $(tail -3 "$dir/err")"
  if [ "$fmt" = json ]; then
    grep -q '"partial": true' "$dir/out" || fail "$sig: JSON lacks \"partial\": true"
    grep -q "\"partial_cause\": \"SIG$sig\"" "$dir/out" || fail "$sig: JSON lacks the cause"
    if command -v python3 > /dev/null; then
      python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/out" ||
        fail "$sig: stdout is not one JSON document"
    fi
  else
    grep -q "^partial: stopped by signal at virtual time [0-9:.]* (SIG$sig)" "$dir/out" ||
      fail "$sig: summary lacks the partial marker: $(head -3 "$dir/out")"
  fi
  # Each file is complete (it ends as its format ends) or absent; no temporary file is left.
  [ ! -e "$dir/report.html" ] || [ "$(tail -n 1 "$dir/report.html")" = "</html>" ] ||
    fail "$sig: report.html is truncated"
  if [ -e "$dir/report.html" ]; then
    grep -q 'id="partial"' "$dir/report.html" || fail "$sig: report lacks the partial banner"
  fi
  for f in run.csv run.prom events.log; do
    [ ! -e "$dir/$f" ] || [ -z "$(tail -c 1 "$dir/$f")" ] || fail "$sig: $f does not end with a newline"
  done
  [ ! -e "$dir/run.csv" ] || grep -q "^# partial: stopped by signal" "$dir/run.csv" ||
    fail "$sig: run.csv lacks the partial comment"
  [ ! -e "$dir/run.prom" ] || grep -q "^corral_sim_partial 1$" "$dir/run.prom" ||
    fail "$sig: run.prom lacks corral_sim_partial 1"
  local leftovers
  leftovers="$(ls -A "$dir" | grep -v -x -e out -e err -e report.html -e run.csv -e run.prom -e events.log)"
  [ -z "$leftovers" ] || fail "$sig: files left behind: $leftovers"
}
stop_run TERM 143 json
stop_run INT 130 table

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "ok"
