#!/usr/bin/env bash
# check_reduce_vectorised.sh OBJDUMP LIBRARY: fails unless the reduction kernel
# (coll_reduce_local, src/coll/reduce_ops.c) is vectorised: its AVX2 copy must add doubles in
# 256-bit registers, and its default copy (SSE2, the x86-64 baseline) in 128-bit ones. GCC 12's
# -O2 vectorised none of its loops, and reductions of doubles ran 2.4-3x slower in cache than
# with AVX2 (Xeon family 6 model 106, session 38). Optimised x86-64 GCC builds only (CMake decides).
set -euo pipefail
objdump="$1" lib="$2"
dis="$("$objdump" -d --no-show-raw-insn "$lib")"
fail=0
check() { # check SYMBOL PATTERN WHAT
    local body
    body="$(awk -v f="<$1>:" '$2 == f { on = 1; next } on && NF == 0 { exit } on' <<<"$dis")"
    if [ -z "$body" ]; then
        echo "check_reduce_vectorised: $1 not found in $lib"
        fail=1
    elif grep -qE "$2" <<<"$body"; then
        echo "check_reduce_vectorised: $1 adds doubles in $3 ($(grep -cE "$2" <<<"$body") of its instructions)"
    else
        echo "check_reduce_vectorised: $1 does not add doubles in $3"
        fail=1
    fi
}
check coll_reduce_local.avx2 $'\tvaddpd .*%ymm' "256-bit registers"
check coll_reduce_local.default $'\taddpd ' "128-bit registers"
exit $fail
