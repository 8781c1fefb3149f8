#!/usr/bin/env bash
# Checks that docs/architecture.md's map of folders ("## Folders": one table of the top-level
# folders, one of the folders under tests/) names every folder of the tree that git tracks, and
# nothing else. Prints each difference; exit 1 when there is one, 77 (skipped) outside a git tree.
#
#   scripts/check_architecture_map.sh [SOURCE_DIR]
set -euo pipefail
root="$(cd "${1:-$(dirname "$0")/..}" && pwd)"
doc="$root/docs/architecture.md"
if ! git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "SKIPPED: $root is not a git work tree (the tracked folders are read with git ls-files)"
  exit 77
fi

# Folders holding a tracked file, one level under `dir` ("" for the top), hidden ones left out.
tracked() {
  git -C "$root" ls-files -- ${1:+"$1/"} | sed "s|^${1:+$1/}||" | grep / | cut -d/ -f1 | grep -v '^\.' | sort -u
}
# The first column of the map's table whose header starts with `header`, as folder names.
mapped() {
  awk -v header="$1" '
    /^## Folders/ { in_map = 1; next }
    in_map && /^## / { exit }
    in_map && index($0, header) == 1 { in_table = 1; next }
    in_table && /^\|---/ { next }
    in_table && /^\|/ { split($0, cell, "|"); name = cell[2]; gsub(/[ `]/, "", name); sub(/\/$/, "", name); print name; next }
    in_table { in_table = 0 }
  ' "$doc" | sort -u
}

status=0
compare() {  # what, tracked list, mapped list
  local missing extra
  missing=$(comm -23 <(echo "$2") <(echo "$3"))
  extra=$(comm -13 <(echo "$2") <(echo "$3"))
  if [ -n "$missing" ]; then echo "docs/architecture.md: $1 folders not in the map: $(echo $missing)"; status=1; fi
  if [ -n "$extra" ]; then echo "docs/architecture.md: $1 folders in the map but not in the tree: $(echo $extra)"; status=1; fi
}
compare "top-level" "$(tracked "")" "$(mapped '| folder | holds |')"
compare "tests/" "$(tracked tests)" "$(mapped '| folder under `tests/` | holds |')"
[ $status -eq 0 ] && echo "docs/architecture.md: the map of folders matches the tree"
exit $status
