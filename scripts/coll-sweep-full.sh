#!/usr/bin/env bash
# The full collectives sweep (tests/coll/test_coll_sweep.c with SHOAL_SWEEP_FULL=1: every
# registered algorithm x radix x team shape x size x every root x every type/op), at every process
# count from 1 to 17, on MPICH and on Open MPI, with the direct path on and off. CI runs a subset
# (CTest label "coll": np 1-9, SHOAL_SWEEP_FULL unset); this is the long run to do before changing
# an algorithm or the selector.
#
# Builds build/sweep-<mpi> (only the sweep program and the launcher), then runs
#   SHOAL_SWEEP_FULL=1 SHOAL_DIRECT=<d> shoalrun -n <np> coll_test_coll_sweep
# for each combination, with a log per run in build/sweep-<mpi>/logs/. Prints one line per run and
# a summary; exits non-zero when any run failed or timed out.
#
# Options (or environment):
#   --mpi "mpich openmpi"   which MPIs (SHOAL_SWEEP_MPIS)
#   --np "1 2 ... 17"       process counts (SHOAL_SWEEP_NPS; default 1..17)
#   --direct "1 0"          SHOAL_DIRECT settings (SHOAL_SWEEP_DIRECTS)
#   --only COLLECTIVE       one collective only (passed on as SHOAL_SWEEP_ONLY)
#   --timeout SECONDS       per run (SHOAL_SWEEP_TIMEOUT; default 3600: 17 processes on 2 cores
#                           are slow)
#   --keep                  reuse the build directories (SHOAL_SWEEP_KEEP=1)
#   --stop                  stop at the first failure
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mpis="${SHOAL_SWEEP_MPIS:-mpich openmpi}"
nps="${SHOAL_SWEEP_NPS:-$(seq -s ' ' 1 17)}"
directs="${SHOAL_SWEEP_DIRECTS:-1 0}"
only="${SHOAL_SWEEP_ONLY:-}"
tmo="${SHOAL_SWEEP_TIMEOUT:-3600}"
keep="${SHOAL_SWEEP_KEEP:-0}"
stop=0
while [ $# -gt 0 ]; do
    case "$1" in
    --mpi) mpis="$2"; shift 2 ;;
    --np) nps="$2"; shift 2 ;;
    --direct) directs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --timeout) tmo="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --stop) stop=1; shift ;;
    -h | --help) sed -n '2,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "coll-sweep-full: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

if [ -x "$root/scripts/install-deps.sh" ]; then
    "$root/scripts/install-deps.sh" || { echo "coll-sweep-full: installing dependencies failed" >&2; exit 1; }
fi

# Open MPI refuses root without these (shoalrun adds --allow-run-as-root and --oversubscribe).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SHOAL_SWEEP_FULL=1
[ -n "$only" ] && export SHOAL_SWEEP_ONLY="$only"

start=$SECONDS
pass=0
fail=0
failed=()
for mpi in $mpis; do
    build="$root/build/sweep-$mpi"
    echo "=== $mpi: build $build"
    [ "$keep" = 1 ] || rm -rf "$build"
    mkdir -p "$build/logs"
    if ! cmake -S "$root" -B "$build" -DSHOAL_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DSHOAL_BUILD_TESTS=ON -DSHOAL_BUILD_BENCH=OFF >"$build/configure.log" 2>&1; then
        tail -n 30 "$build/configure.log" >&2
        echo "coll-sweep-full: configuring for $mpi failed" >&2
        fail=$((fail + 1))
        failed+=("$mpi: configure")
        continue
    fi
    if ! cmake --build "$build" -j2 --target coll_test_coll_sweep >"$build/build.log" 2>&1; then
        tail -n 40 "$build/build.log" >&2
        echo "coll-sweep-full: building for $mpi failed (log: $build/build.log)" >&2
        fail=$((fail + 1))
        failed+=("$mpi: build")
        continue
    fi
    prog="$(find "$build/tests" -name coll_test_coll_sweep -type f -perm -u+x | head -n 1)"
    run="$build/bin/shoalrun"
    if [ -z "$prog" ] || [ ! -x "$run" ]; then
        echo "coll-sweep-full: $mpi: sweep program or shoalrun missing in $build" >&2
        fail=$((fail + 1))
        failed+=("$mpi: build")
        continue
    fi
    for np in $nps; do
        for d in $directs; do
            log="$build/logs/np$np.direct$d.log"
            t0=$SECONDS
            SHOAL_DIRECT="$d" timeout -k 10 "$tmo" "$run" -n "$np" "$prog" >"$log" 2>&1
            rc=$?
            dt=$((SECONDS - t0))
            if [ $rc -eq 0 ]; then
                pass=$((pass + 1))
                printf '%-8s np=%-3s direct=%s  PASS  %5d s  %s\n' "$mpi" "$np" "$d" "$dt" \
                    "$(grep -E '^test_coll_sweep:' "$log" | tail -n 1)"
            else
                fail=$((fail + 1))
                why="exit $rc"
                [ $rc -eq 124 ] && why="timeout after $tmo s"
                failed+=("$mpi np=$np direct=$d ($why; log $log)")
                printf '%-8s np=%-3s direct=%s  FAIL  %5d s  %s\n' "$mpi" "$np" "$d" "$dt" "$why"
                grep -m 5 -E "unit [0-9]+:|FAIL|error" "$log" | sed 's/^/    /'
                [ "$stop" = 1 ] && break 3
            fi
        done
    done
done

echo "=== coll-sweep-full: $pass passed, $fail failed in $((SECONDS - start)) s"
for f in "${failed[@]}"; do echo "  failed: $f"; done
[ "$fail" -eq 0 ]
