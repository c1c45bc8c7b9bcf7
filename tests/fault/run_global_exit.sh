#!/usr/bin/env bash
# run_global_exit.sh LAUNCHER NP PROGRAM STATUS LIMIT: the job must end with exit status STATUS
# within LIMIT seconds (shmem_global_exit from one PE ends every PE with its status).
set -u
launcher="$1" np="$2" prog="$3" status="$4" limit="$5"
start=$SECONDS
timeout 60 "$launcher" -n "$np" "$prog" "$status"
rc=$?
took=$((SECONDS - start))
if [ "$rc" != "$status" ]; then
    echo "FAIL: exit status $rc, expected $status (the status given to shmem_global_exit)"
    exit 1
fi
if [ "$took" -gt "$limit" ]; then
    echo "FAIL: the job took $took s to end (limit $limit s)"
    exit 1
fi
echo "OK: status $rc after $took s"
