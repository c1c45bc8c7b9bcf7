#!/usr/bin/env bash
# Long soak runs: tests/soak/soak (a seeded random stream of puts, gets, non-blocking and strided
# transfers, atomics, signals, locks, collectives and barriers, with allocations and teams made
# and freed on the way; every unit's memory is checked byte for byte against a sequential model)
# over both MPIs, both paths and pretend nodes, with fresh random seeds.
#
#   scripts/soak.sh --minutes N [--mpi mpich|openmpi|both] [--np LIST] [--seed S]
#                   [--run-seconds T] [--build PREFIX] [--no-build] [--logs DIR]
#
#   --minutes N      total wall time, split evenly over the MPIs (default 10)
#   --mpi M          mpich, openmpi or both (default both)
#   --np LIST        process counts, e.g. "2 3 4" (default); each runs with the direct path on
#                    (SHOAL_DIRECT=1), off (SHOAL_DIRECT=0) and, from 2 units, on two pretend
#                    nodes (SHOAL_PRETEND_NODES=2: direct within a node, MPI between)
#   --seed S         use seed S for every run (to repeat one); default: a new random seed per run
#   --run-seconds T  length of one run (default: the time split so every configuration runs at
#                    least once, between 30 and 300 s)
#   --build PREFIX   build directories PREFIX-mpich and PREFIX-openmpi, configured if missing and
#                    reused otherwise (default build/soak); only the soak program is built
#   --no-build       run the soak programs already built there (a tree being edited)
#   --logs DIR       one log per run (default PREFIX-logs)
#
# Configurations run round-robin until the time is up. Every run prints its seed and its counts;
# a failing run prints the mismatch (seed, epoch, operation, offset, expected and found bytes) and
# the command that repeats it. Exits non-zero when any run failed.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
minutes=10
mpis=both
nps="2 3 4"
seed=""
run_seconds=""
prefix="$root/build/soak"
logs=""
build=1
while [ $# -gt 0 ]; do
    case "$1" in
    --minutes) minutes="$2"; shift 2 ;;
    --mpi) mpis="$2"; shift 2 ;;
    --np) nps="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --run-seconds) run_seconds="$2"; shift 2 ;;
    --build) prefix="$2"; shift 2 ;;
    --logs) logs="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "soak.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done
[ "$mpis" = both ] && mpis="mpich openmpi"
for m in $mpis; do
    case "$m" in mpich | openmpi) ;; *) echo "soak.sh: --mpi: mpich, openmpi or both" >&2; exit 2 ;; esac
done
if ! [[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]]; then
    echo "soak.sh: --minutes needs a number" >&2
    exit 2
fi
logs="${logs:-$prefix-logs}"
mkdir -p "$logs"

# Build (or reuse) one directory per MPI; only the soak program and what it needs.
for m in $mpis; do
    dir="$prefix-$m"
    if [ "$build" = 0 ]; then
        [ -x "$dir/tests/soak/soak" ] || { echo "soak.sh: no $dir/tests/soak/soak" >&2; exit 1; }
        continue
    fi
    if [ ! -f "$dir/CMakeCache.txt" ]; then
        echo "=== $m: configuring $dir"
        cmake -S "$root" -B "$dir" -DSHOAL_MPI="$m" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
            >"$logs/configure-$m.log" 2>&1 || { cat "$logs/configure-$m.log"; exit 1; }
    fi
    echo "=== $m: building soak in $dir"
    # shoalrun preloads MPICH's yield shim when units outnumber cores: build it with the soak
    # (without it every oversubscribed MPICH run failed at once, "...-yield.so is missing").
    targets=(soak)
    [ "$m" = mpich ] && targets+=(shoal-mpich-yield shoal-ucx-no-disconnect)
    if ! cmake --build "$dir" -j2 --target "${targets[@]}" >"$logs/build-$m.log" 2>&1; then
        tail -20 "$logs/build-$m.log"
        # a tree being edited may not build for a while: go on with the last good build
        [ -x "$dir/tests/soak/soak" ] || exit 1
        echo "=== $m: BUILD FAILED; reusing the soak built before in $dir"
    fi
done

# The configurations: "np env..." lines.
configs=()
for np in $nps; do
    configs+=("$np SHOAL_DIRECT=1" "$np SHOAL_DIRECT=0")
    [ "$np" -ge 2 ] && configs+=("$np SHOAL_DIRECT=1 SHOAL_PRETEND_NODES=2")
done
nmpi=$(echo $mpis | wc -w)
budget=$(awk -v m="$minutes" -v n="$nmpi" 'BEGIN { printf "%d", m * 60 / n }')
if [ -z "$run_seconds" ]; then
    run_seconds=$(awk -v b="$budget" -v c="${#configs[@]}" \
        'BEGIN { t = int(b / c); if (t < 30) t = 30; if (t > 300) t = 300; print t }')
fi

new_seed() {
    if [ -n "$seed" ]; then echo "$seed"; else od -An -N6 -tu8 /dev/urandom | tr -d ' '; fi
}

runs=0 failed=0 total_ops=0 total_epochs=0
summary=()
for m in $mpis; do
    dir="$prefix-$m"
    start=$SECONDS m_runs=0 m_fail=0 m_ops=0 m_epochs=0
    i=0
    while [ $((SECONDS - start)) -lt "$budget" ]; do
        read -r np env <<<"${configs[$((i % ${#configs[@]}))]}"
        i=$((i + 1))
        left=$((budget - (SECONDS - start)))
        secs=$run_seconds
        [ "$left" -lt "$secs" ] && secs=$left
        [ "$secs" -lt 5 ] && secs=5
        s=$(new_seed)
        log="$logs/$m-np$np-$(echo "$env" | tr ' =' '_-')-$s.log"
        cmd="env $env $dir/bin/shoalrun -n $np $dir/tests/soak/soak --seed $s"
        env $env timeout $((secs + 300)) "$dir/bin/shoalrun" -n "$np" "$dir/tests/soak/soak" \
            --seed "$s" --seconds "$secs" --watchdog 120 >"$log" 2>&1
        rc=$?
        line=$(grep -m1 'epochs in' "$log")
        epochs=$(sed -n 's/.*: \([0-9]*\) epochs in .*/\1/p' <<<"$line")
        ops=$(sed -n 's/.* s, \([0-9]*\) operations:.*/\1/p' <<<"$line")
        m_runs=$((m_runs + 1))
        m_ops=$((m_ops + ${ops:-0}))
        m_epochs=$((m_epochs + ${epochs:-0}))
        if [ "$rc" -eq 0 ] && grep -q '^soak: OK' "$log"; then
            printf '%-8s np %s %-40s seed %-16s %6s epochs %9s ops  ok\n' "$m" "$np" "$env" "$s" \
                "${epochs:-?}" "${ops:-?}"
        else
            m_fail=$((m_fail + 1))
            printf '%-8s np %s %-40s seed %-16s FAILED (exit %d), log %s\n' "$m" "$np" "$env" \
                "$s" "$rc" "$log"
            grep -E 'FAIL|watchdog|written this epoch' "$log" | head -20 | sed 's/^/    /'
            ep=$(sed -n 's/.*--epochs \([0-9]*\).*/\1/p' "$log" | head -1)
            echo "    repeat: $cmd --epochs ${ep:-N}"
        fi
    done
    summary+=("$m: $m_runs runs, $m_fail failed, $m_epochs epochs, $m_ops operations in $((SECONDS - start)) s")
    runs=$((runs + m_runs))
    failed=$((failed + m_fail))
    total_ops=$((total_ops + m_ops))
    total_epochs=$((total_epochs + m_epochs))
done
echo "=== soak summary"
for l in "${summary[@]}"; do echo "$l"; done
echo "$runs runs, $failed failed, $total_epochs epochs, $total_ops operations"
[ "$failed" -eq 0 ]
