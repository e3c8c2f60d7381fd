#!/usr/bin/env bash
# Runs every libFuzzer target (`*_fuzz`) of a fuzzer build for a fixed time each, one after another.
#
#   scripts/run-fuzzers.sh BUILD_DIR SECONDS [NAME...]
#
# With NAMEs (e.g. scenario_fuzz), only those fuzzers run, in the order given.
# BUILD_DIR is a build configured with -DCORRAL_BUILD_FUZZERS=ON (see fuzz/CMakeLists.txt); the fuzzers are
# BUILD_DIR/fuzz/*_fuzz. Each runs for SECONDS (-max_total_time) on one core. The growing corpus is kept in
# build/fuzz-corpus/<name>/ (seeded from fuzz/corpus/<name>/ when present), crash reproducers go to
# build/fuzz-artifacts/<name>/, and fuzz/<name>.dict is used as a dictionary when present.
# Exits non-zero if any fuzzer finds a crash, leak, timeout or sanitizer error, or if there is no fuzzer.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: $0 BUILD_DIR SECONDS [NAME...]" >&2
  exit 2
fi
build_dir=$1
seconds=$2
shift 2
case "$seconds" in
  '' | *[!0-9]*) echo "run-fuzzers: SECONDS must be a positive integer, got '$seconds'" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
shopt -s nullglob
if [ $# -gt 0 ]; then
  fuzzers=()
  for name in "$@"; do
    if [ ! -x "$build_dir/fuzz/$name" ]; then
      echo "run-fuzzers: no fuzzer $build_dir/fuzz/$name" >&2
      exit 2
    fi
    fuzzers+=("$build_dir/fuzz/$name")
  done
else
  fuzzers=("$build_dir"/fuzz/*_fuzz)
fi
if [ ${#fuzzers[@]} -eq 0 ]; then
  echo "run-fuzzers: no *_fuzz executables in $build_dir/fuzz (configure with -DCORRAL_BUILD_FUZZERS=ON)" >&2
  exit 2
fi

failed=()
for fuzzer in "${fuzzers[@]}"; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  corpus="$repo/build/fuzz-corpus/$name"
  artifacts="$repo/build/fuzz-artifacts/$name"
  mkdir -p "$corpus" "$artifacts"
  args=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/")
  if [ -f "$repo/fuzz/$name.dict" ]; then
    args+=(-dict="$repo/fuzz/$name.dict")
  fi
  dirs=("$corpus")
  if [ -d "$repo/fuzz/corpus/$name" ]; then
    dirs+=("$repo/fuzz/corpus/$name")  # read-only seeds; new inputs are written to $corpus only
  fi
  echo "run-fuzzers: $name for ${seconds}s (corpus $corpus)"
  log="$artifacts/last-run.log"
  start=$(date +%s)
  status=0
  "$fuzzer" "${args[@]}" "${dirs[@]}" 2>&1 | tee "$log" || status=$?
  # One summary line per fuzzer, for docs/formats.md's table: wall time, executions (libFuzzer's
  # final stats) and the size of the kept corpus.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  echo "run-fuzzers: $name: $(($(date +%s) - start)) s, ${execs:-?} executions, corpus $files files"
  if [ "$status" -ne 0 ]; then
    echo "run-fuzzers: $name FAILED; reproducers in $artifacts" >&2
    failed+=("$name")
  fi
done

if [ ${#failed[@]} -ne 0 ]; then
  echo "run-fuzzers: failures in: ${failed[*]}" >&2
  exit 1
fi
echo "run-fuzzers: all ${#fuzzers[@]} fuzzer(s) ran ${seconds}s without findings"
