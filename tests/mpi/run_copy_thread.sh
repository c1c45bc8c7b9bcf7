#!/bin/sh
# Usage: run_copy_thread.sh NP SHOALRUN [SHOALRUN OPTIONS...] TEST
# Runs a fence test with the epochs' copy thread taking every direct-path operation
# (SHOAL_EPOCH_COPY_THREAD=1: from 1 byte) and passes when the test passes and every unit's thread
# copied something (its SHOAL_DEBUG=2 report at finalize): a run in which no operation reached the
# thread would test nothing.
np="$1" shoalrun="$2"
shift 2
out="$(SHOAL_EPOCH_COPY_THREAD=1 SHOAL_DEBUG=2 "$shoalrun" -n "$np" "$@" 2>&1)"
rc=$?
printf '%s\n' "$out" | grep -v ': debug: ' # the test's own output, and any warning
[ "$rc" = 0 ] || { echo "FAIL: exit status $rc"; exit 1; }
copied="$(printf '%s\n' "$out" | grep -c 'epoch copy thread: copied [1-9]')"
[ "$copied" = "$np" ] || { echo "FAIL: $copied of $np units' copy threads copied anything"; exit 1; }
echo "OK: every unit's copy thread copied"
