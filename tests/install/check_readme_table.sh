#!/usr/bin/env bash
# Checks that README.md's configuration table is the one shoal-info prints, so the documentation
# cannot drift from the table in the code (src/runtime/config.c).
#
#   check_readme_table.sh <shoal-info> <README.md>
#
# The table sits between the lines "<!-- config-table-begin -->" and "<!-- config-table-end -->".
# To update it:  <build>/bin/shoal-info --config-markdown  and paste the output between the markers.
set -euo pipefail
info="${1:?usage: check_readme_table.sh <shoal-info> <README.md>}"
readme="${2:?usage: check_readme_table.sh <shoal-info> <README.md>}"

fail() {
    echo "check_readme_table: FAILED: $*" >&2
    exit 1
}

[ -f "$readme" ] || fail "$readme does not exist (the README must carry the configuration table)"
begins=$(grep -c '^<!-- config-table-begin -->$' "$readme" || true)
ends=$(grep -c '^<!-- config-table-end -->$' "$readme" || true)
[ "$begins" = 1 ] && [ "$ends" = 1 ] ||
    fail "$readme must have exactly one '<!-- config-table-begin -->' line and one '<!-- config-table-end -->' line (found $begins and $ends)"

# The lines strictly between the markers; blank lines around the table are allowed.
documented="$(awk '/^<!-- config-table-end -->$/ {inside = 0}
                   inside && NF {print}
                   /^<!-- config-table-begin -->$/ {inside = 1}' "$readme")"
generated="$("$info" --config-markdown)" || fail "$info --config-markdown failed"
[ -n "$generated" ] || fail "$info --config-markdown printed nothing"

if [ "$documented" != "$generated" ]; then
    echo "README's table differs from 'shoal-info --config-markdown' (< README, > shoal-info):" >&2
    diff <(printf '%s\n' "$documented") <(printf '%s\n' "$generated") >&2 || true
    fail "regenerate it: $info --config-markdown, pasted between the markers in $readme"
fi
echo "check_readme_table: OK ($(($(wc -l <<<"$generated") - 2)) variables)"
