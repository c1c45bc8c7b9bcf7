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
# Settings come from the environment (set by CTest): SHOAL_BUILD_DIR, SHOAL_SOURCE_DIR, WORK,
# SHOAL_MPI, SHOAL_MPICC, SHOAL_LIBDIR, SHOAL_BINDIR, SHOALRUN_BUILD.
# Prints "<mode>: OK" and exits 0 on success; prints why and exits 1 on failure.
set -euo pipefail

mode="${1:?usage: run_install_test.sh prefix|cmake|shoalcc|pkgconfig|info|shoalrun}"
: "${WORK:?}" "${SHOAL_MPI:?}"
libdir_rel="${SHOAL_LIBDIR:-lib}"
bindir_rel="${SHOAL_BINDIR:-bin}"
example_dir="${SHOAL_SOURCE_DIR:-}/tests/install/example"
NP=2

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
        "$bindir_rel/shoalrun" "$bindir_rel/shoalcc" "$bindir_rel/shoal-info"; do
        [ -e "$WORK/prefix/$f" ] || fail "installed tree lacks $f"
    done
    for f in shoalrun shoalcc shoal-info; do
        [ -x "$WORK/prefix/$bindir_rel/$f" ] || fail "$bindir_rel/$f is not executable"
    done
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
    out="$(SHOAL_FOO_TEST="a b" timeout 60 "$run" -n 3 sh -c 'echo "got[$SHOAL_FOO_TEST]"')" ||
        fail "running sh at 3 processes failed"
    echo "$out"
    [ "$(grep -c '^got\[a b\]$' <<<"$out")" = 3 ] || fail "SHOAL_FOO_TEST did not reach 3 processes"
    # More processes than cores must work (oversubscription).
    cores="$(nproc)"
    out="$(timeout 60 "$run" -n $((cores + 2)) echo hi)" || fail "oversubscribed run failed"
    [ "$(grep -c '^hi$' <<<"$out")" = $((cores + 2)) ] || fail "oversubscribed run lost processes"
    if timeout 60 "$run" -n 2 sh -c 'exit 3' >/dev/null 2>&1; then
        fail "a failing program's exit status was lost"
    fi
    ;;

*)
    fail "unknown mode"
    ;;
esac
echo "$mode: OK"
