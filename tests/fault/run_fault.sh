#!/usr/bin/env bash
# One fault test: runs fault_driver CASE through shoalrun and checks how the job ended.
#
#   run_fault.sh SHOALRUN NP DRIVER CASE [LIMIT_S]
#
# Fault cases (unit 1 dies or exits early) pass when
#   - the launcher returns less than LIMIT_S (default 10) seconds after the victim's death,
#   - with a non-zero status,
#   - with a clear message: the launcher's report of signal 9, or Shoal's exit guard line,
#   - no unit's process outlives the launcher,
#   - no shared-memory object of the run is left in /dev/shm (Shoal names them
#     /shoal.<pid of the node's first unit>.<n>, see src/xport/shm.c),
#   - and no unit reported a wrong result (FAIL) before.
# Control cases (clean*) pass when the job ends with status 0, without the exit guard's line.
set -u

if [ $# -lt 4 ]; then
    echo "usage: run_fault.sh SHOALRUN NP DRIVER CASE [LIMIT_S]" >&2
    exit 2
fi
shoalrun=$1 np=$2 driver=$3 case=$4 limit=${5:-10}
# A hung launcher is a failure of this test, reported as such, before CTest's own timeout.
hard=${FAULT_HARD_LIMIT:-60}
guard_msg='shoal: unit 1: (exited|called MPI_Finalize) without shoal_finalize; aborting the job so the other units do not wait forever'
# MPICH's hydra: "EXIT STRING: Killed (signal 9)"; Open MPI: "... exited on signal 9 (Killed)."
kill_msg='Killed \(signal 9\)|KILLED BY SIGNAL: 9|exited on signal 9'

work=$(mktemp -d "${TMPDIR:-/tmp}/shoal-fault.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
fails=0
fail() {
    echo "run_fault: FAIL: $*" >&2
    fails=$((fails + 1))
}

# Objects already in /dev/shm are not this run's: pids wrap (pid_max is often 32768, and a CI run
# starts tens of thousands of processes), so a unit may carry the pid of an older process that
# left an object behind (seen once: shoal.<victim's pid>.2 although the victim never creates one).
declare -A before=()
for f in /dev/shm/shoal.*; do
    [ -e "$f" ] && before[$f]=1
done

t_start=$(date +%s.%N)
timeout -k 5 "$hard" "$shoalrun" -n "$np" "$driver" "$case" "$work" >"$work/out" 2>"$work/err"
rc=$?
t_end=$(date +%s.%N)

echo "---- stdout ----"
cat "$work/out"
echo "---- stderr ----"
cat "$work/err"
echo "----------------"

pids=()
[ -f "$work/pids" ] && mapfile -t pids <"$work/pids"
[ "${#pids[@]}" -eq "$np" ] || fail "${#pids[@]} of $np units started"

# (By the time taken: 137 is also Open MPI's own status for a unit killed by signal 9.)
if awk -v a="$t_start" -v b="$t_end" -v h="$hard" 'BEGIN { exit !(b - a >= h) }'; then
    fail "the launcher was still running after $hard s (killed by timeout)"
fi

# Every unit's process is gone once the launcher has returned (a short grace for the reaping).
exe=$(basename "$driver")
for _ in $(seq 20); do
    alive=()
    for p in "${pids[@]}"; do
        if grep -qs "$exe" "/proc/$p/cmdline"; then alive+=("$p"); fi
    done
    [ "${#alive[@]}" -eq 0 ] && break
    sleep 0.1
done
if [ "${#alive[@]}" -ne 0 ]; then
    fail "unit process(es) ${alive[*]} still running after the launcher returned"
    kill -9 "${alive[@]}" 2>/dev/null # ours: started by this run
fi

# Nothing of the run left in /dev/shm.
left=()
for p in "${pids[@]}"; do
    for f in /dev/shm/shoal."$p".*; do
        [ -e "$f" ] && [ -z "${before[$f]:-}" ] && left+=("$f")
    done
done
if [ "${#left[@]}" -ne 0 ]; then
    fail "left in /dev/shm: ${left[*]}"
    rm -f "${left[@]}" # do not leak the machine's memory to the next test
fi

if grep -q "FAIL" "$work/out" "$work/err"; then
    fail "a unit reported a wrong result or left its loop (see above)"
fi

case "$case" in
clean*)
    [ "$rc" -eq 0 ] || fail "the control run ended with status $rc, expected 0"
    grep -q "without shoal_finalize; aborting" "$work/err" &&
        fail "the exit guard fired in a run where every unit finalised"
    grep -q "fault: clean run OK" "$work/out" || fail "no 'clean run OK' line from unit 0"
    ;;
*)
    if [ ! -s "$work/mark" ]; then
        fail "unit 1 never reached its fault point"
    else
        read -r t_mark what <"$work/mark"
        elapsed=$(awk -v a="$t_mark" -v b="$t_end" 'BEGIN { printf "%.2f", b - a }')
        echo "run_fault: $case np$np (SHOAL_DIRECT=${SHOAL_DIRECT:-1}): unit 1: $what; the launcher" \
            "returned $elapsed s later with status $rc"
        awk -v e="$elapsed" -v l="$limit" 'BEGIN { exit !(e < l) }' ||
            fail "the job ended $elapsed s after unit 1's fault (limit $limit s)"
    fi
    [ "$rc" -ne 0 ] || fail "the job ended with status 0 after a unit failed"
    case "$case" in
    nofin*) want=$guard_msg ;;
    *) want=$kill_msg ;;
    esac
    grep -qE "$want" "$work/out" "$work/err" || fail "no message matching '$want'"
    # The guard speaks only for the unit that really left: a survivor ended by the launcher or by
    # MPI's abort must not claim it exited without shoal_finalize.
    others=$(grep -E "shoal: unit [0-9]+: .* without shoal_finalize" "$work/err" |
        grep -vc "^shoal: unit 1: ")
    [ "$others" -eq 0 ] || fail "the exit guard fired on $others survivor(s) as well"
    ;;
esac

if [ "$fails" -ne 0 ]; then
    echo "run_fault: $case np$np: FAILED ($fails)"
    exit 1
fi
echo "run_fault: $case np$np: OK"
