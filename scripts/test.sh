#!/usr/bin/env bash
# THE test command (make test, .ci/run): installs missing Debian packages, then for MPICH and for
# Open MPI configures a fresh build/ci-<mpi> (warnings are errors there), builds it and runs every
# CTest test; then two sanitizer configurations on MPICH (README, Tests):
#   mpich-asan  AddressSanitizer + UndefinedBehaviorSanitizer (Debug at -O1): the unit tests, the
#               MPI tests at 1-3 processes with the direct path on and off, and the ZCom tests
#   mpich-tsan  ThreadSanitizer: everything that runs threads, i.e. the MPI tests at 2 processes
#               and test_progress and test_threads at every count, with the progress thread on
#               (SHOAL_PROGRESS_THREAD=1)
# Ends with one line "N passed, N failed" (CTest tests over all configurations; a configure or
# build that fails counts as one failed test) and exits non-zero when anything failed.
#
# Options (or environment):
#   -L, --label REGEX        run only tests whose labels match (SHOAL_TEST_LABEL)
#   -E, --exclude REGEX      skip tests whose names match (SHOAL_TEST_EXCLUDE)
#   -R, --regex REGEX        run only tests whose names match (SHOAL_TEST_REGEX); in the sanitizer
#                            configurations it replaces their own choice of tests
#   -j, --jobs N             parallel CTest jobs, default 2 (SHOAL_TEST_JOBS); the tests
#                            oversubscribe the cores already, so more rarely helps
#   --mpi "mpich openmpi"    which MPIs (SHOAL_TEST_MPIS); the sanitizer runs need mpich in it
#   --san, --no-san          run the sanitizer configurations or not, default on
#                            (SHOAL_TEST_SAN=1 or 0)
#   --keep                   reuse existing build dirs instead of starting fresh (SHOAL_TEST_KEEP=1)
#   --timeout SECONDS        per-test timeout of the MPI tests (SHOAL_TEST_TIMEOUT; CMake default)
# Labels: unit, mpi, coll, zcom, np<N>, direct0/direct1, nodes2 (pretend nodes), dynwin (dynamic windows),
#         fault, soak, tools, install, multinode (MPI tests across a namespace cluster on this
#         machine, scripts/cluster.sh and docs/cluster.md; needs root; not in the sanitizer runs).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
label="${SHOAL_TEST_LABEL:-}"
exclude="${SHOAL_TEST_EXCLUDE:-}"
regex="${SHOAL_TEST_REGEX:-}"
jobs="${SHOAL_TEST_JOBS:-2}"
mpis="${SHOAL_TEST_MPIS:-mpich openmpi}"
keep="${SHOAL_TEST_KEEP:-0}"
timeout="${SHOAL_TEST_TIMEOUT:-}"
san="${SHOAL_TEST_SAN:-1}"
while [ $# -gt 0 ]; do
    case "$1" in
    -L | --label) label="$2"; shift 2 ;;
    -E | --exclude) exclude="$2"; shift 2 ;;
    -R | --regex) regex="$2"; shift 2 ;;
    -j | --jobs) jobs="$2"; shift 2 ;;
    --mpi) mpis="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    --san) san=1; shift ;;
    --no-san) san=0; shift ;;
    --timeout) timeout="$2"; shift 2 ;;
    -h | --help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "test.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    esac
done

start=$SECONDS
# The tests see the built-in decision tables, not whatever `make bench` measured on this host
# (~/.cache/shoal); the tuning-cache tests give themselves a folder of their own.
export SHOAL_COLL_TUNING_CACHE="${SHOAL_COLL_TUNING_CACHE:-off}"
# CTest runs two tests side by side, so even 2-unit runs share the 2 cores with another test:
# MPICH's idle progress loops should yield in every run, not only above a CPU per unit
# (shoalrun's default; docs/design.md, "MPICH polling").
export SHOALRUN_MPICH_YIELD="${SHOALRUN_MPICH_YIELD:-1}"
# Open MPI: name the point-to-point layer Debian's defaults end up with anyway (its
# openmpi-mca-params.conf excludes ucx, and cm finds no network library here), so that MPI_Init
# does not open and probe cm's libraries first: 0.27 s instead of 0.51 s per 2-process start, about
# a fifth of the Open MPI run (session 30). A user's own OMPI_MCA_pml wins.
export OMPI_MCA_pml="${OMPI_MCA_pml:-ob1}"
"$root/scripts/install-deps.sh" || { echo "test.sh: installing dependencies failed" >&2; exit 1; }

total_pass=0
total_fail=0
summary=()

# run_config NAME MPI: configure a fresh build/ci-NAME for MPI with the CMake options in cfg_extra,
# build it and run CTest there with the selection in ctest_sel and the environment in ctest_env;
# adds its counts to the totals.
run_config() {
    local name="$1" mpi="$2" t0=$SECONDS
    local build="$root/build/ci-$name"
    echo "=== $name: configure and build $build"
    [ "$keep" = 1 ] || rm -rf "$build"
    mkdir -p "$build"
    local cfg=(-DSHOAL_MPI="$mpi" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${cfg_extra[@]}")
    [ -n "$timeout" ] && cfg+=(-DSHOAL_TEST_TIMEOUT="$timeout")
    if ! cmake -S "$root" -B "$build" "${cfg[@]}" >"$build/configure.log" 2>&1; then
        cat "$build/configure.log"
        echo "=== $name: CONFIGURE FAILED"
        total_fail=$((total_fail + 1))
        summary+=("$name: configure failed ($((SECONDS - t0)) s)")
        return
    fi
    if ! cmake --build "$build" -j2 >"$build/build.log" 2>&1; then
        grep -E -B2 -A8 'error|Error' "$build/build.log" | head -n 150
        echo "(full log: $build/build.log)"
        echo "=== $name: BUILD FAILED"
        total_fail=$((total_fail + 1))
        summary+=("$name: build failed ($((SECONDS - t0)) s)")
        return
    fi
    echo "=== $name: built in $((SECONDS - t0)) s; running tests (ctest -j$jobs)"
    local args=(--output-on-failure -j"$jobs" --no-tests=ignore "${ctest_sel[@]}")
    (cd "$build" && env "${ctest_env[@]}" ctest "${args[@]}") 2>&1 | tee "$build/ctest.log"
    local line failed all
    line="$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$build/ctest.log" |
        tail -n 1)"
    if [ -n "$line" ]; then
        failed="$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<<"$line")"
        all="$(sed -E 's/^[0-9]+% tests passed, ([0-9]+) tests? failed out of ([0-9]+).*/\2/' <<<"$line")"
    elif grep -q 'No tests were found' "$build/ctest.log"; then
        failed=0 all=0
    else
        echo "=== $name: ctest gave no summary (crashed?)"
        failed=1 all=1
    fi
    total_pass=$((total_pass + all - failed))
    total_fail=$((total_fail + failed))
    summary+=("$name: $((all - failed)) passed, $failed failed ($((SECONDS - t0)) s)")
}

# The user's selection: -L adds to a configuration's own labels (CTest requires every -L to match),
# -E joins its exclusions, -R replaces its choice.
# select_tests LABEL EXCLUDE REGEX: sets ctest_sel from a configuration's own choice and the user's.
select_tests() {
    ctest_sel=()
    [ -n "$1" ] && ctest_sel+=(-L "$1")
    [ -n "$label" ] && ctest_sel+=(-L "$label")
    local ex="$2"
    [ -n "$exclude" ] && ex="${ex:+$ex|}$exclude"
    [ -n "$ex" ] && ctest_sel+=(-E "$ex")
    local re="${regex:-$3}"
    [ -n "$re" ] && ctest_sel+=(-R "$re")
    return 0
}

for mpi in $mpis; do
    # CI knows its compiler: warnings are errors here, not for users. Every MPI test also runs
    # across the namespace cluster (label multinode, docs/cluster.md).
    cfg_extra=(-DSHOAL_WERROR=ON -DSHOAL_MULTINODE_ALL=ON)
    ctest_env=()
    select_tests "" "" ""
    run_config "$mpi" "$mpi"
done

if [ "$san" = 1 ] && [[ " $mpis " == *" mpich "* ]]; then
    supp="$root/tests/sanitize"
    # ASan + UBSan. Debug keeps assertions; -O1 halves the run time. Leaks are found (LSan), apart
    # from those inside the MPI stack (lsan.supp); hwloc's pci plugin is off because its leak is in
    # a library unloaded before exit, which no suppression can name. The OpenSHMEM programs too
    # (their global variables are shared in place under ASan's eyes), the collectives, pretend
    # nodes, 1-3 processes. Not here: the valgrind test (valgrind cannot run ASan programs), 4 to
    # 9 processes (time: 4 processes cost this run about 160 s of its 510 on a Zen 5 host; 2 units
    # take the algorithms' power-of-two branches and 3 their remainder branches, and the plain runs
    # above cover 4-9 on both MPIs. They ran here from session 9 to 29).
    cfg_extra=(-DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1"
        -DSHOAL_SANITIZE=address,undefined -DSHOAL_BUILD_BENCH=OFF)
    ctest_env=(ASAN_OPTIONS=check_initialization_order=1:detect_leaks=1
        LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=0"
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 HWLOC_COMPONENTS=-pci)
    select_tests '^(unit|mpi|zcom|shmem|coll)$' 'valgrind|\.np[4-9](\.|$)' ""
    run_config mpich-asan mpich

    # TSan: the tests that run threads: Shoal's progress thread, on for every MPI test at 2
    # processes, test_progress and test_threads (the program's own threads) at every count, and
    # the fence tests with the epochs' copy thread (copy_thread, on one node)
    # (the other tests' other counts add nothing thread-wise). test_init_external initialises MPI without MPI_THREAD_MULTIPLE, so it refuses
    # the thread by design. MPICH's UCX intercepts memory calls in a way TSan crashes on
    # (UCX_MEM_EVENTS=no). tsan.supp: UCX's put handler writing window memory (MPI's model).
    # (Neither sanitizer run builds the benchmarks: it runs none of them.)
    cfg_extra=(-DSHOAL_SANITIZE=thread -DSHOAL_BUILD_BENCH=OFF)
    ctest_env=(SHOAL_PROGRESS_THREAD=1 UCX_MEM_EVENTS=no
        TSAN_OPTIONS="suppressions=$supp/tsan.supp second_deadlock_stack=1")
    # The OpenSHMEM face: test_shmem_threads (threads of its own at SHMEM_THREAD_MULTIPLE) at
    # every count, and every OpenSHMEM program at 2 PEs with the progress thread (left out for
    # CI's time until MPICH stopped spinning, session 9). Of the dynamic-window runs (dynwin) only
    # those whose threads meet the windows: allocation (attach, detach) and the programs' own
    # threads; the others run the same threads over another kind of window (about 55 s).
    # "np2\.([^d]|d[^y])": every 2-process variant but dynwin.
    select_tests '^(mpi|shmem)$' 'nodes2|test_init_external' \
        'test_progress|test_threads|copy_thread|test_alloc\.np2\.|mpi\..*\.np2\.([^d]|d[^y])|shmem\..*\.np2\.|test_shmem_threads'
    run_config mpich-tsan mpich
fi

echo
echo "=== Summary"
for s in "${summary[@]}"; do echo "  $s"; done
echo "  total wall time: $((SECONDS - start)) s"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ]
