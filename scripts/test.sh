#!/usr/bin/env bash
# THE test command (make test, .ci/run): installs missing Debian packages, then for MPICH and for
# Open MPI configures a fresh build/ci-<mpi>, builds it and runs every CTest test. Ends with one
# line "N passed, N failed" (CTest tests over both MPIs; a configure or build that fails counts as
# one failed test) and exits non-zero when anything failed.
#
# Options (or environment):
#   -L, --label REGEX        run only tests whose labels match (SHOAL_TEST_LABEL)
#   -E, --exclude REGEX      skip tests whose names match (SHOAL_TEST_EXCLUDE)
#   -R, --regex REGEX        run only tests whose names match (SHOAL_TEST_REGEX)
#   -j, --jobs N             parallel CTest jobs, default 2 (SHOAL_TEST_JOBS); the tests
#                            oversubscribe the cores already, so more rarely helps
#   --mpi "mpich openmpi"    which MPIs (SHOAL_TEST_MPIS)
#   --keep                   reuse existing build dirs instead of starting fresh (SHOAL_TEST_KEEP=1)
#   --timeout SECONDS        per-test timeout of the MPI tests (SHOAL_TEST_TIMEOUT; CMake default)
# Labels: unit, mpi, coll, np<N>, direct0/direct1, nodes2 (pretend nodes), tools, install.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
label="${SHOAL_TEST_LABEL:-}"
exclude="${SHOAL_TEST_EXCLUDE:-}"
regex="${SHOAL_TEST_REGEX:-}"
jobs="${SHOAL_TEST_JOBS:-2}"
mpis="${SHOAL_TEST_MPIS:-mpich openmpi}"
keep="${SHOAL_TEST_KEEP:-0}"
timeout="${SHOAL_TEST_TIMEOUT:-}"
while [ $# -gt 0 ]; do
    case "$1" in
    -L | --label) label="$2"; shift 2 ;;
    -E | --exclude) exclude="$2"; shift 2 ;;
    -R | --regex) regex="$2"; shift 2 ;;
    -j | --jobs) jobs="$2"; shift 2 ;;
    --mpi) mpis="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --timeout) timeout="$2"; shift 2 ;;
    -h | --help) sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

start=$SECONDS
"$root/scripts/install-deps.sh" || { echo "test.sh: installing dependencies failed" >&2; exit 1; }

total_pass=0
total_fail=0
summary=()
for mpi in $mpis; do
    t0=$SECONDS
    build="$root/build/ci-$mpi"
    echo "=== $mpi: configure and build $build"
    [ "$keep" = 1 ] || rm -rf "$build"
    mkdir -p "$build"
    cfg=(-DSHOAL_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
    [ -n "$timeout" ] && cfg+=(-DSHOAL_TEST_TIMEOUT="$timeout")
    if ! cmake -S "$root" -B "$build" "${cfg[@]}" >"$build/configure.log" 2>&1; then
        cat "$build/configure.log"
        echo "=== $mpi: CONFIGURE FAILED"
        total_fail=$((total_fail + 1))
        summary+=("$mpi: configure failed ($((SECONDS - t0)) s)")
        continue
    fi
    if ! cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
        grep -E -B2 -A8 'error|Error' "$build/build.log" | head -n 150
        echo "(full log: $build/build.log)"
        echo "=== $mpi: BUILD FAILED"
        total_fail=$((total_fail + 1))
        summary+=("$mpi: build failed ($((SECONDS - t0)) s)")
        continue
    fi
    echo "=== $mpi: built in $((SECONDS - t0)) s; running tests (ctest -j$jobs)"
    args=(--output-on-failure -j"$jobs" --no-tests=ignore)
    [ -n "$label" ] && args+=(-L "$label")
    [ -n "$exclude" ] && args+=(-E "$exclude")
    [ -n "$regex" ] && args+=(-R "$regex")
    (cd "$build" && ctest "${args[@]}") 2>&1 | tee "$build/ctest.log"
    line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$build/ctest.log" |
        tail -n 1)"
    if [ -n "$line" ]; then
        failed="$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
        all="$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")"
    elif grep -q 'No tests were found' "$build/ctest.log"; then
        failed=0 all=0
    else
        echo "=== $mpi: ctest gave no summary (crashed?)"
        failed=1 all=1
    fi
    passed=$((all - failed))
    total_pass=$((total_pass + passed))
    total_fail=$((total_fail + failed))
    summary+=("$mpi: $passed passed, $failed failed ($((SECONDS - t0)) s)")
done

echo
echo "=== Summary"
for s in "${summary[@]}"; do echo "  $s"; done
echo "  total wall time: $((SECONDS - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
