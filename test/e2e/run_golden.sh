#!/usr/bin/env bash
# Runs one golden CLI case: test/e2e/cases/<name>/{cmd,expected.out,expected.rc}.
#   cmd          the corral arguments, one line (paths relative to the repository root)
#   expected.out stdout, byte for byte
#   expected.rc  exit code
#   expected.err stderr, byte for byte (only checked when the file exists)
# The Corral version (`corral --version`) is replaced by <corral-version> in both before comparing.
# UPDATE_GOLDEN=1 rewrites expected.* from the current binary.
set -uo pipefail
corral="$1"
case_dir="$2"
root="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$root"
read -r -a args < "$case_dir/cmd"
actual_out="$(mktemp)"
"$corral" "${args[@]}" > "$actual_out" 2> "$actual_out.err"
rc=$?
# Run provenance names the Corral version, which changes with every commit (git describe): the
# goldens hold <corral-version> in its place.
version="$("$corral" --version 2>/dev/null | sed -n 's/^corral //p')"
if [ -n "$version" ]; then
  V="$version" perl -pi -e 's/\Q$ENV{V}\E/<corral-version>/g' "$actual_out" "$actual_out.err"
fi
if [ "${UPDATE_GOLDEN:-0}" = "1" ]; then
  cp "$actual_out" "$case_dir/expected.out"
  echo "$rc" > "$case_dir/expected.rc"
  if [ -s "$actual_out.err" ]; then cp "$actual_out.err" "$case_dir/expected.err"; else rm -f "$case_dir/expected.err"; fi
  echo "updated $case_dir"
  exit 0
fi
status=0
if ! diff -u "$case_dir/expected.out" "$actual_out"; then
  echo "stdout differs from $case_dir/expected.out" >&2
  status=1
fi
if [ -f "$case_dir/expected.err" ] && ! diff -u "$case_dir/expected.err" "$actual_out.err"; then
  echo "stderr differs from $case_dir/expected.err" >&2
  status=1
fi
want_rc="$(cat "$case_dir/expected.rc")"
if [ "$rc" != "$want_rc" ]; then
  echo "exit code $rc, want $want_rc; stderr:" >&2
  cat "$actual_out.err" >&2
  status=1
fi
rm -f "$actual_out" "$actual_out.err"
exit $status
