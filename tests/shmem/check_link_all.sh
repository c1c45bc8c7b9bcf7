#!/usr/bin/env bash
# Checks that test_shmem_link_all.c's table names every routine include/shmem.h declares (and
# nothing else): both sides are read from the preprocessor's output, so the typed families are
# expanded from the header's own type tables.
#   check_link_all.sh CC INCLUDE_DIR test_shmem_link_all.c
set -euo pipefail
cc=$1 inc=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The header's declarations: every identifier directly before "(" in a declaration, but for the
# library's own (shmem__*, read by the header's in-line quiet and fence).
echo '#include <shmem.h>' | "$cc" -E -P -DSHOAL_BUILDING_SHMEM -I"$inc" -x c - |
    tr ';' '\n' | grep -oE '\b[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' | sed 's/[[:space:]]*($//' |
    grep -E '^(shmem_|shmemalign$|shmalloc$|shfree$|shrealloc$|_my_pe$|_num_pes$|start_pes$)' | grep -v '^shmem__' | sort -u >"$tmp/header"
# The table: the text after link_all_table_begin, up to main.
"$cc" -E -P -DSHOAL_BUILDING_SHMEM -I"$inc" "$src" |
    sed -n '/link_all_table_begin\[\]/,/^int main/p' | grep -oE '\(fn_t\)[[:space:]]*[A-Za-z_][A-Za-z0-9_]*' |
    sed 's/(fn_t)[[:space:]]*//' | sort >"$tmp/table.all"
sort -u "$tmp/table.all" >"$tmp/table"
status=0
if ! diff -q "$tmp/table.all" "$tmp/table" >/dev/null; then
    echo "listed twice:"; uniq -d "$tmp/table.all"; status=1
fi
missing=$(comm -23 "$tmp/header" "$tmp/table")
extra=$(comm -13 "$tmp/header" "$tmp/table")
if [ -n "$missing" ]; then
    echo "declared in shmem.h but not in test_shmem_link_all.c's table:"; echo "$missing"; status=1
fi
if [ -n "$extra" ]; then
    echo "in the table but not declared in shmem.h:"; echo "$extra"; status=1
fi
echo "shmem.h declares $(wc -l <"$tmp/header") routines; the table lists $(wc -l <"$tmp/table.all")"
exit $status
