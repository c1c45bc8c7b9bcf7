#!/usr/bin/env bash
# Prints the include graph between the folders (layers) of src/ and fails when an edge runs
# upward. The order below is the layer picture of docs/design.md, lowest first; an edge a -> b
# (a file in a/ includes "b/...") is allowed only when b is below a. Since every allowed edge
# points down a total order, an accepted graph has no cycle either. Public headers ("shoal.h",
# "shoal/...") are not layers. A folder missing from the order fails too, so a new layer must be
# placed in the picture.
set -euo pipefail
order=(runtime xport team mem rma sync coll epoch rbcast zcom lifecycle shmem)
src="$(cd "$(dirname "${BASH_SOURCE[0]}")/../src" && pwd)"

rank() {
    local i
    for i in "${!order[@]}"; do [ "${order[$i]}" = "$1" ] && { echo "$i"; return; }; done
    echo -1
}

bad=0
for dir in "$src"/*/; do
    layer="$(basename "$dir")"
    [ "$(rank "$layer")" -ge 0 ] || { echo "UNPLACED: src/$layer is not in the layer order"; bad=1; }
done
edges="$(cd "$src" && grep -oE '^#include "[a-z_]+/' -- */*.[ch] |
    sed -E 's|^([a-z_]+)/[^:]*:#include "([a-z_]+)/$|\1 \2|' | awk '$1 != $2 && $2 != "shoal"' | sort -u)"
echo "include graph of src/ (layer -> layer it includes), layers lowest first: ${order[*]}"
while read -r from to; do
    [ -n "$from" ] || continue
    rf="$(rank "$from")" rt="$(rank "$to")"
    if [ "$rt" -lt 0 ] || [ "$rt" -ge "$rf" ]; then
        echo "  $from -> $to   UPWARD (files: $(cd "$src" && grep -l "^#include \"$to/" "$from"/*.[ch] | tr '\n' ' '))"
        bad=1
    else
        echo "  $from -> $to"
    fi
done <<<"$edges"
if [ "$bad" = 0 ]; then echo "layers: OK"; else echo "layers: FAILED"; fi
exit "$bad"
