#!/usr/bin/env bash
# The waiting policy's regime (runtime/wait.c, runtime/cpus.c): a job counts the CPUs its units
# may use, not the machine's online CPUs. Runs <program> at <np> units with SHOAL_DEBUG=2 and
# checks the program's own result and what shoal_init reports:
#   online   nothing restricts the job further: the union is the CPUs this script may use;
#   affinity every unit taskset to one CPU: 1 CPU in the union, so <np> >= 2 units are oversubscribed;
#   adaptive every unit taskset to one CPU, but SHOAL_OVERSUBSCRIBED=0 says a CPU per unit: the
#            waits' probe yields find the CPU wanted (the other unit runs on it), so the adaptive
#            spin must move to the short spin on some unit (its switches, reported at
#            shoal_finalize);
#   hogged   every unit and three spinning processes taskset to one CPU, SHOAL_OVERSUBSCRIBED=0:
#            waits past the long spin whose yields give the CPU away for a slice (1 ms or more)
#            must sleep instead (runtime/wait.c, wait_on): some unit reports sleeps; and with
#            SHOAL_SPIN_SLEEP_US=0 none does;
#   quota    a cgroup of its own with half a CPU of bandwidth (v1 cpu.cfs_quota_us or v2
#            cpu.max): 0.50 CPUs of quota, oversubscribed.
# Exit 77 (skipped) when the machine cannot give the case (one CPU; no writable cgroup).
# usage: run_regime.sh SHOALRUN NP PROGRAM online|affinity|adaptive|hogged|quota
set -u
shoalrun=$1 np=$2 prog=$3 mode=$4
online=$(getconf _NPROCESSORS_ONLN)
cg=""
spinners=()
cleanup() {
    [ ${#spinners[@]} -gt 0 ] && kill "${spinners[@]}" 2>/dev/null
    if [ -n "$cg" ] && [ -d "$cg" ]; then
        # back to the root cgroup of the hierarchy, then remove ours
        echo $$ >"$(dirname "$cg")/cgroup.procs" 2>/dev/null
        rmdir "$cg" 2>/dev/null
    fi
}
trap cleanup EXIT

wrap=()
case "$mode" in
online)
    # what this script may use (a CI container may restrict it); its quota, if any, decides the
    # regime, which the other cases check
    want_affinity="$(nproc) in the units' affinity"
    want_quota="CPUs of cgroup quota"
    want_regime="(a CPU per unit|oversubscribed)"
    ;;
affinity)
    [ "$online" -ge 2 ] || { echo "SKIP: one CPU online"; exit 77; }
    first=$(taskset -pc $$ | sed -E 's/.*: *([0-9]+).*/\1/')
    # each unit confines itself (Open MPI's mpiexec binds units to cores of its own choosing,
    # whatever the affinity it was started with)
    wrap=(taskset -c "$first")
    want_affinity="1 in the units' affinity"
    want_quota="CPUs of cgroup quota"
    want_regime="oversubscribed"
    ;;
adaptive)
    first=$(taskset -pc $$ | sed -E 's/.*: *([0-9]+).*/\1/')
    wrap=(taskset -c "$first")
    export SHOAL_OVERSUBSCRIBED=0
    want_affinity="1 in the units' affinity"
    want_quota="CPUs of cgroup quota"
    want_regime="a CPU per unit"
    ;;
hogged)
    first=$(taskset -pc $$ | sed -E 's/.*: *([0-9]+).*/\1/')
    wrap=(taskset -c "$first")
    export SHOAL_OVERSUBSCRIBED=0
    for _ in 1 2 3; do
        # bounded, should the script itself be killed (the test's timeout is 120 s)
        timeout 110 taskset -c "$first" sh -c 'while :; do :; done' &
        spinners+=($!)
    done
    want_affinity="1 in the units' affinity"
    want_quota="CPUs of cgroup quota"
    want_regime="a CPU per unit"
    ;;
quota)
    [ "$online" -ge 2 ] || { echo "SKIP: one CPU online"; exit 77; }
    if [ -w /sys/fs/cgroup/cpu/cgroup.procs ] && [ -e /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]; then
        cg=/sys/fs/cgroup/cpu/shoal-regime-$$
        mkdir "$cg" && echo 100000 >"$cg/cpu.cfs_period_us" && echo 50000 >"$cg/cpu.cfs_quota_us" ||
            { echo "SKIP: cannot set a cgroup v1 quota"; exit 77; }
    elif grep -qw cpu /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
        cg=/sys/fs/cgroup/shoal-regime-$$
        mkdir "$cg" && echo "50000 100000" >"$cg/cpu.max" ||
            { echo "SKIP: cannot set a cgroup v2 quota"; exit 77; }
    else
        echo "SKIP: no writable cgroup with the cpu controller"
        exit 77
    fi
    echo $$ >"$cg/cgroup.procs" || { echo "SKIP: cannot join $cg"; exit 77; }
    want_affinity="in the units' affinity"
    want_quota="0\.50 CPUs of cgroup quota"
    want_regime="oversubscribed"
    ;;
*)
    echo "usage: $0 SHOALRUN NP PROGRAM online|affinity|adaptive|hogged|quota" >&2
    exit 2
    ;;
esac

# shoalrun tells an ASan program that its preloaded shims come before ASan's runtime, but here
# the program it sees is taskset: say it for the real one.
if [ ${#wrap[@]} -gt 0 ] && readelf -d "$prog" 2>/dev/null | grep -q 'NEEDED.*libasan'; then
    export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
fi
out=$(SHOAL_DEBUG=2 "$shoalrun" -n "$np" "${wrap[@]}" "$prog" 2>&1)
rc=$?
line=$(grep "debug: waiting:" <<<"$out")
echo "$line"
fail=0
[ $rc -eq 0 ] || { echo "FAIL: the program exited with $rc"; echo "$out" | tail -20; fail=1; }
grep -q "OK" <<<"$out" || { echo "FAIL: the program did not report OK"; fail=1; }
for want in "$want_affinity" "$want_quota" ": $want_regime;"; do
    grep -Eq -- "$want" <<<"$line" || { echo "FAIL: expected \"$want\" in the report"; fail=1; }
done
if [ "$mode" = adaptive ]; then
    grep "adaptive spin:" <<<"$out"
    # the first switch is always from the long spin to the short one
    grep -Eq "adaptive spin: .*; [1-9][0-9]* switches" <<<"$out" ||
        { echo "FAIL: no unit moved to the short spin"; fail=1; }
fi
if [ "$mode" = hogged ]; then
    grep "waits' yields:" <<<"$out"
    if ! grep -Eq "waits' yields: .*, [1-9][0-9]* sleeps" <<<"$out"; then
        # a kernel whose yields beside spinners come straight back never needs the sleeps
        if ! grep -Eq "\(([1-9][0-9]*) of them 1 ms or more\)|under 2500 us: [1-9]|under 5000 us: [1-9]|5000 us or more: [1-9]" <<<"$out"; then
            echo "SKIP: no yield gave the CPU away for 1 ms or more on this kernel"
            exit 77
        fi
        echo "FAIL: yields gave the CPU away for a slice, yet no wait slept"
        fail=1
    fi
    again=$(SHOAL_DEBUG=2 SHOAL_SPIN_SLEEP_US=0 "$shoalrun" -n "$np" "${wrap[@]}" "$prog" 2>&1)
    rc=$?
    [ $rc -eq 0 ] && grep -q "OK" <<<"$again" ||
        { echo "FAIL: with SHOAL_SPIN_SLEEP_US=0 the program exited with $rc"; fail=1; }
    grep "waits' yields:" <<<"$again"
    if grep -Eq "waits' yields: .*, [1-9][0-9]* sleeps" <<<"$again"; then
        echo "FAIL: with SHOAL_SPIN_SLEEP_US=0 a wait slept"
        fail=1
    fi
fi
[ $fail -eq 0 ] && echo "regime ($mode, $np units): OK"
exit $fail
