#!/usr/bin/env bash
# The test suite leaves nothing in the temporary directory: runs test cases that write temporary
# files (theirs and the egopt binary's) with TMPDIR set to a fresh, empty directory, and fails if
# anything is left in it afterwards (tests/main.cpp gives each test process a scratch directory
# there and removes it at exit).
#   leaves_no_temporary_files.sh TEST_EXE "TEST NAME" [TEST_EXE "TEST NAME" ...]
set -euo pipefail
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || {
    echo "usage: $0 TEST_EXE 'TEST NAME' [...]" >&2
    exit 2
}
dir=$(mktemp -d "${TMPDIR:-/tmp}/egopt-tmpcheck-XXXXXX")
trap 'rm -rf "$dir"' EXIT
while [ $# -gt 0 ]; do
    TMPDIR=$dir "$1" "$2" >/dev/null || {
        echo "FAIL: $1 \"$2\" failed" >&2
        exit 1
    }
    shift 2
done
left=$(ls -A "$dir")
if [ -n "$left" ]; then
    echo "FAIL: the tests left these in the temporary directory:" >&2
    echo "$left" >&2
    exit 1
fi
echo "OK: nothing left in the temporary directory"
