#!/usr/bin/env bash
# check_frameless.sh OBJDUMP LIBRARY: fails when one of ZCom's four counter calls sets up a stack
# frame (a push, or room made on the stack) on its path. Programs poll these calls in loops of
# their own, and the frame's stores and loads on every poll cost the 8-byte hand-off with data
# 1.6-1.9x the data floor on an Intel Xeon (src/zcom/zcom.c, "The error paths are calls of their
# own"). Optimised x86-64 builds only (CMake decides).
set -euo pipefail
objdump="$1" lib="$2"
dis="$("$objdump" -d --no-show-raw-insn "$lib")"
fail=0
for fn in ZCom_can_write_c ZCom_have_written_c ZCom_can_read_c ZCom_have_read_c; do
    # the function's own body: from its label to the blank line that ends it (its .cold part,
    # the error path, is a separate symbol)
    body="$(awk -v f="<$fn>:" '$2 == f { on = 1; next } on && NF == 0 { exit } on' <<<"$dis")"
    if [ -z "$body" ]; then
        echo "check_frameless: $fn not found in $lib"
        fail=1
        continue
    fi
    frame="$(grep -E $'\t(push|sub +\\$0x[0-9a-f]+,%rsp)' <<<"$body" || true)"
    if [ -n "$frame" ]; then
        echo "check_frameless: $fn sets up a stack frame:"
        echo "$frame"
        fail=1
    else
        echo "check_frameless: $fn: no stack frame ($(wc -l <<<"$body") instructions)"
    fi
done
exit $fail
