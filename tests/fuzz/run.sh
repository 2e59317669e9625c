#!/usr/bin/env bash
# Runs every libFuzzer target (or the ones named) for SECONDS each.
#
#   tests/fuzz/run.sh SECONDS [TARGET...]     TARGET: frontend elf maps report demangle
#
# Configures and builds <build>/fuzz (BUILD, default ./build) with clang-16
# and -DSPROF_FUZZ=ON, as the `fuzz` test tier does. Each target starts from
# its seeds in tests/fuzz/corpus/<target> and keeps what it finds in
# <build>/fuzz/corpus/<target> (reused by the next run; the repository's
# seeds are never written). A crash, leak, timeout or sanitizer report is
# written to <build>/fuzz/artifacts/ and makes the script exit 1: fix it,
# then copy the input into tests/fuzz/corpus/<target>/regress_<what> so the
# tier runs it from then on.
set -uo pipefail
secs=${1:?usage: tests/fuzz/run.sh SECONDS [TARGET...]}; shift
src=$(cd "$(dirname "$0")/../.." && pwd)
build=$(realpath -m "${BUILD:-$src/build}")/fuzz
targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(frontend elf maps report demangle)
jobs=${JOBS:-2}

CC=clang-16 CXX=clang++-16 cmake -S "$src" -B "$build" -DSPROF_FUZZ=ON -DSPROF_WERROR=OFF >/dev/null || exit 1
cmake --build "$build" -j"$jobs" --target "${targets[@]/#/fuzz_}" >/dev/null || exit 1
mkdir -p "$build/artifacts"
status=0
for t in "${targets[@]}"; do
  mkdir -p "$build/corpus/$t"
  log=$build/fuzz_$t.log
  dict=(); [ -f "$src/tests/fuzz/$t.dict" ] && dict=(-dict="$src/tests/fuzz/$t.dict")
  "$build/fuzz_$t" "${dict[@]}" -max_total_time="$secs" -max_len=65536 -timeout=25 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$build/artifacts/${t}-" \
      "$build/corpus/$t" "$src/tests/fuzz/corpus/$t" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  echo "fuzz_$t: exit $rc, ${runs:-?} runs in ${secs}s, $(ls "$build/corpus/$t" | wc -l) corpus entries"
  if [ $rc -ne 0 ]; then
    grep -E "ERROR|SUMMARY|runtime error" "$log" | head -5
    echo "  (full log: $log)"
    status=1
  fi
done
exit $status
