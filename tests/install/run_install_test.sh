#!/usr/bin/env bash
# Tests of the tools and of an installed Shoal, one mode per CTest test (tests/install/CMakeLists.txt).
#
#   run_install_test.sh prefix      install the build into $WORK/prefix and copy it to
#                                   $WORK/relocated (the fixture the other modes use)
#   run_install_test.sh cmake       build tests/install/example with find_package(Shoal) from
#                                   $WORK/prefix; run it (shared and static) with the installed shoalrun
#   run_install_test.sh shoalcc     build example.c with the relocated install's shoalcc; run it
#   run_install_test.sh pkgconfig   build example.c with pkg-config (relocated install) + mpicc; run it
#   run_install_test.sh info        the installed shoal-info: --help, --config-markdown, a 2-unit run
#   run_install_test.sh shoalrun    the build tree's shoalrun: options, SHOAL_* forwarding, exit codes
#
# The OpenSHMEM face's tools (tests/install/shmem holds the programs):
#   run_install_test.sh oshcc              the build tree's oshcc builds hello_generic.c (-std=c11)
#   run_install_test.sh oshcxx             the build tree's oshc++ builds hello_cxx.cpp
#   run_install_test.sh oshcc_bad_type     a generic call on a type outside its table does not
#                                          compile, and says which routine
#   run_install_test.sh oshrun             the build tree's oshrun: options, SHMEM_* forwarding, and
#                                          hello_generic at 2 PEs (-np 2 and -n 2)
#   run_install_test.sh shmem_info <shoal-shmem-info> <shoal-info>
#                                          the version and both sets of variables
#   run_install_test.sh shmem              the installed oshcc, oshc++, oshrun, shoal-shmem.pc,
#                                          Shoal::shmem and shoal-shmem-info
#
# Settings come from the environment (set by CTest): SHOAL_BUILD_DIR, SHOAL_SOURCE_DIR, WORK,
# SHOAL_MPI, SHOAL_MPICC, SHOAL_LIBDIR, SHOAL_BINDIR, SHOALRUN_BUILD, OSHRUN_BUILD, OSHCC_BUILD,
# OSHCXX_BUILD.
# Prints "<mode>: OK" and exits 0 on success; prints why and exits 1 on failure.
set -euo pipefail

mode="${1:?usage: run_install_test.sh prefix|cmake|shoalcc|pkgconfig|info|shoalrun|oshcc|oshcxx|oshcc_bad_type|oshrun|shmem_info|shmem}"
: "${WORK:?}" "${SHOAL_MPI:?}"
libdir_rel="${SHOAL_LIBDIR:-lib}"
bindir_rel="${SHOAL_BINDIR:-bin}"
example_dir="${SHOAL_SOURCE_DIR:-}/tests/install/example"
shmem_dir="${SHOAL_SOURCE_DIR:-}/tests/install/shmem"
NP=2

# Every non-MPI program launched below lives 0.2 s ("sleep 0.2"): MPICH 4.0.2's mpiexec (hydra)
# fails 1-2 % of the time (SIGPIPE, or "error writing to control socket" when SIGPIPE is ignored)
# when a process that never starts MPI exits within milliseconds: it still writes to the control
# socket of a proxy that has gone (4 of 200 runs of "sh -c echo"; 0 of 300 with "sleep 0.1").
# MPI programs wait for each other in MPI_Finalize and have not met it.
fail() {
    echo "$mode: FAILED: $*" >&2
    exit 1
}

# run_example <launcher> <program> <label>: runs the example at $NP units with the direct path on and
# off; the example checks its own data and prints "example: OK".
run_example() {
    local launcher="$1" prog="$2" label="$3" direct out
    for direct in 1 0; do
        echo "-- $label: $launcher -n $NP $prog (SHOAL_DIRECT=$direct)"
        if ! out="$(SHOAL_DIRECT=$direct timeout 120 "$launcher" -n "$NP" "$prog" 2>&1)"; then
            echo "$out"
            fail "$label failed with SHOAL_DIRECT=$direct"
        fi
        echo "$out"
        grep -q "^example: OK ($NP units" <<<"$out" || fail "$label printed no 'example: OK'"
    done
}

# check_mpi_linked <program>: the program loads the MPI library Shoal was built with.
check_mpi_linked() {
    local want other
    if [ "$SHOAL_MPI" = openmpi ]; then
        want='libmpi\.so\.' other='libmpich\.so'
    else
        want='libmpich\.so\.' other='libmpi\.so'
    fi
    # ldd's output first, then grep: with pipefail, `ldd | grep -q` fails whenever grep's early
    # exit makes ldd die of SIGPIPE (seen once in a clean-clone run).
    local libs
    libs="$(ldd "$1")" || fail "ldd $1 failed"
    grep -q "$want" <<<"$libs" || { echo "$libs"; fail "$1 does not load $SHOAL_MPI's library"; }
    ! grep -q "$other" <<<"$libs" || { echo "$libs"; fail "$1 loads the other MPI's library too"; }
}

# run_shmem_hello <launcher> <program> <label>: runs hello_generic at $NP PEs, once with -np and the
# direct path on, once with -n and the direct path off; it prints "shmem_hello: OK (N PEs)".
run_shmem_hello() {
    local launcher="$1" prog="$2" label="$3" out flag direct
    for flag in -np -n; do
        direct=$([ "$flag" = -np ] && echo 1 || echo 0)
        echo "-- $label: $launcher $flag $NP $prog (SHOAL_DIRECT=$direct)"
        if ! out="$(SHOAL_DIRECT=$direct timeout 120 "$launcher" "$flag" "$NP" "$prog" 2>&1)"; then
            echo "$out"
            fail "$label failed ($flag $NP, SHOAL_DIRECT=$direct)"
        fi
        echo "$out"
        grep -q "^shmem_hello: OK ($NP PEs)$" <<<"$out" || fail "$label printed no 'shmem_hello: OK'"
    done
}

need_fixture() {
    [ -x "$WORK/prefix/$bindir_rel/shoalrun" ] && [ -x "$WORK/relocated/$bindir_rel/shoalcc" ] ||
        fail "no installed Shoal under $WORK (the install.prefix test sets it up)"
}

case "$mode" in
prefix)
    : "${SHOAL_BUILD_DIR:?}"
    rm -rf "$WORK/prefix" "$WORK/relocated"
    mkdir -p "$WORK"
    cmake --install "$SHOAL_BUILD_DIR" --prefix "$WORK/prefix" >"$WORK/install.log" 2>&1 ||
        { cat "$WORK/install.log"; fail "cmake --install failed"; }
    for f in include/shoal.h "$libdir_rel/libshoal.so" "$libdir_rel/libshoal.a" \
        "$libdir_rel/cmake/Shoal/ShoalConfig.cmake" "$libdir_rel/cmake/Shoal/ShoalConfigVersion.cmake" \
        "$libdir_rel/cmake/Shoal/ShoalTargets.cmake" "$libdir_rel/pkgconfig/shoal.pc" \
        "$bindir_rel/shoalrun" "$bindir_rel/shoalcc" "$bindir_rel/shoal-info" \
        include/shmem.h include/shmem_generic.h include/shmem_generic_types.h \
        include/shmem_generic_cxx.h include/shmemx.h include/shcoll.h "$libdir_rel/pkgconfig/shoal-shmem.pc" \
        "$bindir_rel/oshrun" "$bindir_rel/oshcc" "$bindir_rel/oshc++" "$bindir_rel/shoal-shmem-info"; do
        [ -e "$WORK/prefix/$f" ] || fail "installed tree lacks $f"
    done
    for f in shoalrun shoalcc shoal-info oshrun oshcc oshc++ shoal-shmem-info; do
        [ -x "$WORK/prefix/$bindir_rel/$f" ] || fail "$bindir_rel/$f is not executable"
    done
    if [ "$SHOAL_MPI" = mpich ]; then # shoalrun's LD_PRELOAD shims (tools/preload)
        for f in libshoal-mpich-yield.so libshoal-ucx-no-disconnect.so; do
            [ -r "$WORK/prefix/$libdir_rel/shoal/$f" ] || fail "installed tree lacks $libdir_rel/shoal/$f"
        done
        # The installed shoalrun finds them beside itself, not in the build tree.
        out="$(SHOALRUN_MPICH_YIELD=1 timeout 60 "$WORK/prefix/$bindir_rel/shoalrun" -n 1 \
            sh -c 'echo "pre[$LD_PRELOAD]"; sleep 0.2')" || fail "the installed shoalrun failed"
        echo "$out"
        pre="$(sed -n 's/^pre\[\(.*\)\]$/\1/p' <<<"$out")"
        [ -r "$pre" ] && [ "$(readlink -f "$pre")" = "$(readlink -f "$WORK/prefix/$libdir_rel/shoal/libshoal-mpich-yield.so")" ] ||
            fail "the installed shoalrun preloads '$pre', not its own libshoal-mpich-yield.so"
    fi
    # Nothing installed may point back into the build or source tree.
    if grep -rIl -e "$SHOAL_BUILD_DIR" -e "$SHOAL_SOURCE_DIR" "$WORK/prefix" >"$WORK/leaks.txt"; then
        cat "$WORK/leaks.txt"
        fail "installed text files name the build or source tree"
    fi
    # The relocated copy is what the shoalcc, pkg-config and info tests use.
    cp -a "$WORK/prefix" "$WORK/relocated"
    ;;

cmake)
    need_fixture
    bdir="$WORK/example-build"
    rm -rf "$bdir"
    # No MPI_C_COMPILER here: ShoalConfig.cmake must pick the MPI Shoal was built with.
    cmake -S "$example_dir" -B "$bdir" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$WORK/example-configure.log" 2>&1 ||
        { cat "$WORK/example-configure.log"; fail "configuring the example failed"; }
    cat "$WORK/example-configure.log"
    cmake --build "$bdir" -j2 >"$WORK/example-build.log" 2>&1 ||
        { cat "$WORK/example-build.log"; fail "building the example failed"; }
    grep -q -- "-- MPI C compiler: ${SHOAL_MPICC:?}$" "$WORK/example-configure.log" ||
        fail "the example did not find MPI through $SHOAL_MPICC"
    check_mpi_linked "$bdir/example"
    grep -q "Shoal .* ($SHOAL_MPI) from $WORK/prefix/" "$WORK/example-configure.log" ||
        fail "find_package(Shoal) did not report the installed package"
    run_example "$WORK/prefix/$bindir_rel/shoalrun" "$bdir/example" "CMake package, Shoal::shoal"
    run_example "$WORK/prefix/$bindir_rel/shoalrun" "$bdir/example_static" \
        "CMake package, Shoal::shoal_static"
    ;;

shoalcc)
    need_fixture
    cc="$WORK/relocated/$bindir_rel/shoalcc"
    show="$("$cc" -show -O2 -o x x.c)"
    echo "shoalcc -show: $show"
    grep -q -- "-I$WORK/relocated/include" <<<"$show" || fail "-show lacks the relocated include dir"
    grep -q -- "-L$WORK/relocated/$libdir_rel" <<<"$show" || fail "-show lacks the relocated lib dir"
    grep -q -- "-lshoal" <<<"$show" || fail "-show lacks -lshoal"
    grep -q -- "mpicc.$SHOAL_MPI" <<<"$show" || fail "-show does not use mpicc.$SHOAL_MPI"
    grep -q -- "$WORK/prefix" <<<"$show" && fail "-show still names the original prefix"
    rm -f "$WORK/example-shoalcc" "$WORK/example-shoalcc.o"
    # Separate compile and link steps, as make would do them.
    "$cc" -O2 -Wall -Werror -c "$example_dir/example.c" -o "$WORK/example-shoalcc.o" ||
        fail "shoalcc -c failed"
    "$cc" "$WORK/example-shoalcc.o" -o "$WORK/example-shoalcc" || fail "shoalcc link failed"
    # The program must find libshoal through its rpath alone.
    resolved="$(env -u LD_LIBRARY_PATH ldd "$WORK/example-shoalcc" | awk '/libshoal/ {print $3}')"
    [ "$resolved" = "$WORK/relocated/$libdir_rel/libshoal.so.0" ] ||
        fail "libshoal resolves to '$resolved', not the relocated install"
    check_mpi_linked "$WORK/example-shoalcc"
    run_example "$WORK/relocated/$bindir_rel/shoalrun" "$WORK/example-shoalcc" "shoalcc"
    ;;

pkgconfig)
    need_fixture
    export PKG_CONFIG_PATH="$WORK/relocated/$libdir_rel/pkgconfig"
    flags="$(pkg-config --cflags --libs shoal)" || fail "pkg-config --cflags --libs shoal failed"
    echo "pkg-config --cflags --libs shoal: $flags"
    [ "$(pkg-config --modversion shoal)" = "${SHOAL_VERSION:?}" ] || fail "wrong --modversion"
    [ "$(pkg-config --variable=mpi shoal)" = "$SHOAL_MPI" ] || fail "wrong mpi variable"
    # shellcheck disable=SC2086 # the flags are meant to split
    "$SHOAL_MPICC" -O2 -Wall -Werror "$example_dir/example.c" -o "$WORK/example-pc-mpicc" $flags ||
        fail "mpicc with pkg-config flags failed"
    run_example "$WORK/relocated/$bindir_rel/shoalrun" "$WORK/example-pc-mpicc" "pkg-config + mpicc"
    # The MPI's own .pc (Requires:) must be enough for a plain C compiler as well.
    # shellcheck disable=SC2086
    cc -O2 -Wall -Werror "$example_dir/example.c" -o "$WORK/example-pc-cc" $flags ||
        fail "cc with pkg-config flags failed"
    run_example "$WORK/relocated/$bindir_rel/shoalrun" "$WORK/example-pc-cc" "pkg-config + cc"
    ;;

info)
    need_fixture
    info="$WORK/relocated/$bindir_rel/shoal-info"
    grep -q -- "--config-markdown" <<<"$("$info" --help)" || fail "--help does not list --config-markdown"
    if "$info" --bogus >/dev/null 2>&1; then fail "an unknown option did not fail"; fi
    md="$("$info" --config-markdown)" || fail "--config-markdown failed"
    echo "$md"
    [ "$(head -n 1 <<<"$md")" = "| Variable | Type | Default | Description |" ] ||
        fail "--config-markdown has the wrong header"
    grep -q '^| `SHOAL_DIRECT` | bool | `1` | ' <<<"$md" || fail "SHOAL_DIRECT row missing"
    grep -q '^| `SHOAL_POOL_SIZE` | size | ' <<<"$md" || fail "SHOAL_POOL_SIZE row missing"
    nvars=$(($(wc -l <<<"$md") - 2))
    out="$(SHOAL_POOL_SIZE=8M timeout 60 "$info" --no-init)" || fail "--no-init failed"
    echo "$out"
    grep -q "^Shoal ${SHOAL_VERSION:?}" <<<"$out" || fail "--no-init does not print the version"
    grep -qi "MPI library: .*$( [ "$SHOAL_MPI" = openmpi ] && echo 'Open MPI' || echo MPICH)" \
        <<<"$out" || fail "--no-init does not name $SHOAL_MPI"
    grep -q "SHOAL_POOL_SIZE *= 8M .*set by environment" <<<"$out" ||
        fail "--no-init does not show SHOAL_POOL_SIZE=8M from the environment"
    [ "$(grep -c '^  SHOAL_' <<<"$out")" = "$nvars" ] ||
        fail "--no-init lists a different number of variables than --config-markdown"
    for direct in 1 0; do
        out="$(SHOAL_DIRECT=$direct timeout 120 "$WORK/relocated/$bindir_rel/shoalrun" -n $NP "$info")" ||
            { echo "$out"; fail "shoal-info at $NP units failed (SHOAL_DIRECT=$direct)"; }
        echo "$out"
        grep -q "^Units: $NP$" <<<"$out" || fail "shoal-info does not report $NP units"
        grep -q "SHOAL_DIRECT *= $direct .*set by environment" <<<"$out" ||
            fail "SHOAL_DIRECT=$direct did not reach shoal-info"
        [ "$(grep -c '^  unit ' <<<"$out")" = $NP ] || fail "not one mechanism line per unit"
        [ "$(grep -c '^Shoal ' <<<"$out")" = 1 ] || fail "more than one unit printed the report"
    done
    ;;

shoalrun)
    run="${SHOALRUN_BUILD:?}"
    grep -q "usage: shoalrun" <<<"$("$run" --help)" || fail "--help"
    if "$run" -n 0 true 2>/dev/null; then fail "-n 0 was accepted"; fi
    if "$run" -n 2 2>/dev/null; then fail "a missing program was accepted"; fi
    show="$("$run" --show -np 3 prog a b)"
    echo "shoalrun --show -np 3 prog a b: $show"
    grep -q -- "mpiexec.$SHOAL_MPI" <<<"$show" || fail "--show does not use mpiexec.$SHOAL_MPI"
    grep -q -- "-n 3 prog a b" <<<"$show" || fail "--show does not pass -n 3 prog a b"
    if [ "$SHOAL_MPI" = openmpi ]; then
        grep -q -- "--oversubscribe" <<<"$show" || fail "--show lacks --oversubscribe"
        show="$(SHOAL_FOO_TEST=1 "$run" --show -n 2 prog)"
        grep -q -- "-x SHOAL_FOO_TEST" <<<"$show" || fail "--show does not forward SHOAL_FOO_TEST"
    fi
    # SHOAL_* variables reach every process, including values with spaces; exit codes come back.
    out="$(SHOAL_FOO_TEST="a b" timeout 60 "$run" -n 3 sh -c 'echo "got[$SHOAL_FOO_TEST]"; sleep 0.2')" ||
        fail "running sh at 3 processes failed"
    echo "$out"
    [ "$(grep -c '^got\[a b\]$' <<<"$out")" = 3 ] || fail "SHOAL_FOO_TEST did not reach 3 processes"
    # More processes than cores must work (oversubscription).
    cores="$(nproc)"
    out="$(timeout 60 "$run" -n $((cores + 2)) sh -c 'echo hi; sleep 0.2')" || fail "oversubscribed run failed"
    [ "$(grep -c '^hi$' <<<"$out")" = $((cores + 2)) ] || fail "oversubscribed run lost processes"
    if timeout 60 "$run" -n 2 sh -c 'sleep 0.2; exit 3' >/dev/null 2>&1; then
        fail "a failing program's exit status was lost"
    fi
    # MPICH: the yield shim is preloaded with more units than CPUs or with the progress thread
    # (auto), never otherwise unless asked, and a bad setting is refused (docs/design.md, "MPICH
    # polling").
    shim_count() { # shim_count N [VAR=value...]: processes of an N-unit run that got the shim
        local n="$1"
        shift
        env -u SHOALRUN_MPICH_YIELD -u SHOAL_PROGRESS_THREAD "$@" timeout 60 "$run" -n "$n" sh -c 'echo "pre[$LD_PRELOAD]"; sleep 0.2' |
            grep -c '^pre\[.*libshoal-mpich-yield\.so\]$'
    }
    if [ "$SHOAL_MPI" = mpich ]; then
        [ "$(shim_count $((cores + 1)))" = $((cores + 1)) ] ||
            fail "an oversubscribed MPICH run did not preload libshoal-mpich-yield.so"
        [ "$(shim_count 1)" = 0 ] || fail "a 1-unit MPICH run preloaded the yield shim"
        [ "$(shim_count 1 SHOALRUN_MPICH_YIELD=1)" = 1 ] || fail "SHOALRUN_MPICH_YIELD=1 was ignored"
        [ "$(shim_count 1 SHOAL_PROGRESS_THREAD=1)" = 1 ] ||
            fail "a 1-unit MPICH run with the progress thread did not preload the yield shim"
        [ "$(shim_count 1 SHOAL_PROGRESS_THREAD=0)" = 0 ] ||
            fail "SHOAL_PROGRESS_THREAD=0 preloaded the yield shim"
        [ "$(shim_count $((cores + 1)) SHOALRUN_MPICH_YIELD=0)" = 0 ] ||
            fail "SHOALRUN_MPICH_YIELD=0 was ignored"
        if SHOALRUN_MPICH_YIELD=maybe "$run" -n 1 true 2>/dev/null; then
            fail "SHOALRUN_MPICH_YIELD=maybe was accepted"
        fi
    else
        [ "$(shim_count $((cores + 1)))" = 0 ] || fail "Open MPI runs got the MPICH shim"
    fi
    ;;

oshcc)
    cc="${OSHCC_BUILD:?}"
    show="$("$cc" -show -std=c11 -o x x.c)"
    echo "oshcc -show: $show"
    grep -q -- "mpicc.$SHOAL_MPI" <<<"$show" || fail "-show does not use mpicc.$SHOAL_MPI"
    grep -q -- "-I${SHOAL_SOURCE_DIR:?}/include" <<<"$show" || fail "-show lacks the include dir"
    grep -q -- "-lshoal" <<<"$show" || fail "-show lacks -lshoal"
    grep -q "usage: oshcc" <<<"$("$cc" --help)" || fail "--help does not name oshcc"
    mkdir -p "$WORK"
    rm -f "$WORK/oshcc-hello" "$WORK/oshcc-hello.o"
    # One step, then separate compile and link steps as make would do them.
    "$cc" -std=c11 -pedantic -Wall -Wextra -Werror -O2 "$shmem_dir/hello_generic.c" \
        -o "$WORK/oshcc-hello" || fail "oshcc -std=c11 hello_generic.c failed"
    "$cc" -std=c11 -Wall -Werror -c "$shmem_dir/hello_generic.c" -o "$WORK/oshcc-hello.o" ||
        fail "oshcc -c failed"
    "$cc" "$WORK/oshcc-hello.o" -o "$WORK/oshcc-hello2" || fail "oshcc link of the object failed"
    check_mpi_linked "$WORK/oshcc-hello"
    ;;

oshcxx)
    cxx="${OSHCXX_BUILD:?}"
    show="$("$cxx" -show -o x x.cpp)"
    echo "oshc++ -show: $show"
    grep -q -- "mpicxx.$SHOAL_MPI" <<<"$show" || fail "-show does not use mpicxx.$SHOAL_MPI"
    grep -q -- "-lshoal" <<<"$show" || fail "-show lacks -lshoal"
    grep -q "usage: oshc++" <<<"$("$cxx" --help)" || fail "--help does not name oshc++"
    mkdir -p "$WORK"
    rm -f "$WORK/oshcxx-hello"
    "$cxx" -std=c++11 -pedantic -Wall -Wextra -Werror -O2 "$shmem_dir/hello_cxx.cpp" \
        -o "$WORK/oshcxx-hello" || fail "oshc++ hello_cxx.cpp failed"
    check_mpi_linked "$WORK/oshcxx-hello"
    ;;

oshcc_bad_type)
    cc="${OSHCC_BUILD:?}"
    # The same calls on accepted types compile: what fails below fails for the type alone.
    "$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only "$shmem_dir/bad_type.c" ||
        fail "bad_type.c does not compile with accepted types"
    for case in "1 shmem_put" "2 shmem_atomic_add" "3 shmem_wait_until"; do
        read -r n routine <<<"$case"
        if out="$("$cc" -std=c11 -fsyntax-only -DSHMEM_TOOLS_BAD="$n" "$shmem_dir/bad_type.c" 2>&1)"; then
            fail "$routine on a type outside its table compiled"
        fi
        echo "-- $routine on a bad type: $(grep -m1 'error' <<<"$out")"
        grep -q "$routine: the pointed-to type is not in the OpenSHMEM type table of $routine" \
            <<<"$out" || { echo "$out"; fail "the error for $routine does not say what is wrong"; }
    done
    ;;

oshrun)
    run="${OSHRUN_BUILD:?}"
    grep -q "usage: oshrun" <<<"$("$run" --help)" || fail "--help does not name oshrun"
    if "$run" -np 0 true 2>/dev/null; then fail "-np 0 was accepted"; fi
    for flag in -np -n; do
        show="$("$run" --show "$flag" 3 prog a b)"
        echo "oshrun --show $flag 3 prog a b: $show"
        grep -q -- "mpiexec.$SHOAL_MPI" <<<"$show" || fail "--show does not use mpiexec.$SHOAL_MPI"
        grep -q -- "-n 3 prog a b" <<<"$show" || fail "--show $flag 3 does not pass -n 3 prog a b"
    done
    if [ "$SHOAL_MPI" = openmpi ]; then
        show="$(SHMEM_SYMMETRIC_SIZE=1M SHOAL_FOO_TEST=1 "$run" --show -n 2 prog)"
        grep -q -- "-x SHMEM_SYMMETRIC_SIZE" <<<"$show" || fail "--show does not forward SHMEM_*"
        grep -q -- "-x SHOAL_FOO_TEST" <<<"$show" || fail "--show does not forward SHOAL_*"
        grep -q -- "--oversubscribe" <<<"$show" || fail "--show lacks --oversubscribe"
    fi
    out="$(SHMEM_FOO_TEST="a b" timeout 60 "$run" -np 2 sh -c 'echo "got[$SHMEM_FOO_TEST]"; sleep 0.2')" ||
        fail "running sh at 2 processes failed"
    [ "$(grep -c '^got\[a b\]$' <<<"$out")" = 2 ] || fail "SHMEM_FOO_TEST did not reach 2 processes"
    mkdir -p "$WORK"
    "${OSHCC_BUILD:?}" -std=c11 -O2 "$shmem_dir/hello_generic.c" -o "$WORK/oshrun-hello" ||
        fail "oshcc could not build the program to run"
    run_shmem_hello "$run" "$WORK/oshrun-hello" "oshrun"
    ;;

shmem_info)
    info="${2:?usage: run_install_test.sh shmem_info <shoal-shmem-info> <shoal-info>}"
    shoal_info="${3:?usage: run_install_test.sh shmem_info <shoal-shmem-info> <shoal-info>}"
    grep -q -- "--version" <<<"$("$info" --help)" || fail "--help does not list --version"
    if "$info" --bogus >/dev/null 2>&1; then fail "an unknown option did not fail"; fi
    [ "$("$info" --version)" = "OpenSHMEM 1.5" ] || fail "--version is not 'OpenSHMEM 1.5'"
    out="$(env -u SHMEM_DEBUG SHMEM_SYMMETRIC_SIZE=1G SHOAL_POOL_SIZE=8M timeout 60 "$info")" ||
        fail "shoal-shmem-info failed"
    echo "$out"
    [ "$(head -n 1 <<<"$out")" = "OpenSHMEM 1.5" ] || fail "the first line is not the version"
    grep -q "^Library: Shoal" <<<"$out" || fail "no 'Library:' line with shmem_info_get_name's name"
    for var in SHMEM_SYMMETRIC_SIZE SHMEM_DEBUG SHMEM_VERSION SHMEM_INFO; do
        grep -q "^  $var " <<<"$out" || fail "$var is not listed"
    done
    grep -q "SHMEM_SYMMETRIC_SIZE *= 1G .*default 128M, set by environment" <<<"$out" ||
        fail "SHMEM_SYMMETRIC_SIZE=1G from the environment is not shown"
    grep -q "SHMEM_DEBUG *= (unset) " <<<"$out" || fail "an unset SHMEM_DEBUG is not shown as unset"
    grep -q "SHOAL_POOL_SIZE *= 8M .*set by environment" <<<"$out" ||
        fail "SHOAL_POOL_SIZE=8M from the environment is not shown"
    nvars=$(($("$shoal_info" --config-markdown | wc -l) - 2))
    [ "$(grep -c '^  SHOAL_' <<<"$out")" = "$nvars" ] ||
        fail "lists a different number of SHOAL_* variables than shoal-info --config-markdown ($nvars)"
    ;;

shmem)
    need_fixture
    bin="$WORK/relocated/$bindir_rel"
    # oshcc and oshc++ of the relocated install; the program runs under the installed oshrun.
    show="$("$bin/oshcc" -show -o x x.c)"
    grep -q -- "-I$WORK/relocated/include" <<<"$show" || fail "oshcc -show lacks the relocated include dir"
    grep -q -- "-L$WORK/relocated/$libdir_rel" <<<"$show" || fail "oshcc -show lacks the relocated lib dir"
    "$bin/oshcc" -std=c11 -O2 -Wall -Werror "$shmem_dir/hello_generic.c" -o "$WORK/shmem-oshcc" ||
        fail "the installed oshcc failed"
    resolved="$(env -u LD_LIBRARY_PATH ldd "$WORK/shmem-oshcc" | awk '/libshoal/ {print $3}')"
    [ "$resolved" = "$WORK/relocated/$libdir_rel/libshoal.so.0" ] ||
        fail "libshoal resolves to '$resolved', not the relocated install"
    run_shmem_hello "$bin/oshrun" "$WORK/shmem-oshcc" "installed oshcc + oshrun"
    "$bin/oshc++" -std=c++11 -O2 -Wall -Werror "$shmem_dir/hello_cxx.cpp" -o "$WORK/shmem-oshcxx" ||
        fail "the installed oshc++ failed"
    check_mpi_linked "$WORK/shmem-oshcxx"
    # pkg-config: shoal-shmem (which requires shoal) with the MPI's compiler wrapper.
    export PKG_CONFIG_PATH="$WORK/relocated/$libdir_rel/pkgconfig"
    flags="$(pkg-config --cflags --libs shoal-shmem)" || fail "pkg-config --cflags --libs shoal-shmem failed"
    echo "pkg-config --cflags --libs shoal-shmem: $flags"
    [ "$(pkg-config --modversion shoal-shmem)" = "${SHOAL_VERSION:?}" ] || fail "wrong --modversion"
    [ "$(pkg-config --variable=openshmem shoal-shmem)" = 1.5 ] || fail "wrong openshmem variable"
    # shellcheck disable=SC2086 # the flags are meant to split
    "$SHOAL_MPICC" -std=c11 -O2 -Wall -Werror "$shmem_dir/hello_generic.c" -o "$WORK/shmem-pc" $flags ||
        fail "mpicc with shoal-shmem's pkg-config flags failed"
    run_shmem_hello "$bin/oshrun" "$WORK/shmem-pc" "pkg-config shoal-shmem"
    # CMake: find_package(Shoal) and Shoal::shmem.
    bdir="$WORK/shmem-cmake-build"
    rm -rf "$bdir"
    cmake -S "$shmem_dir" -B "$bdir" -DCMAKE_PREFIX_PATH="$WORK/prefix" \
        >"$WORK/shmem-cmake-configure.log" 2>&1 ||
        { cat "$WORK/shmem-cmake-configure.log"; fail "configuring the Shoal::shmem program failed"; }
    cmake --build "$bdir" -j2 >"$WORK/shmem-cmake-build.log" 2>&1 ||
        { cat "$WORK/shmem-cmake-build.log"; fail "building the Shoal::shmem program failed"; }
    check_mpi_linked "$bdir/hello_generic"
    run_shmem_hello "$WORK/prefix/$bindir_rel/oshrun" "$bdir/hello_generic" "CMake Shoal::shmem"
    [ "$("$bin/shoal-shmem-info" --version)" = "OpenSHMEM 1.5" ] ||
        fail "the installed shoal-shmem-info --version is not 'OpenSHMEM 1.5'"
    ;;

*)
    fail "unknown mode"
    ;;
esac
echo "$mode: OK"
