#!/bin/bash
# results.sh LOG: turn the TAP output the guest printed between
# ##TEST-START/##TEST-END markers into one line per test case:
#   PASS|FAIL|SKIP <program>: <case>
# A program that exits non-zero without reporting a failed case, or that
# never reached its end marker, is a failure of its own.
set -u
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 CONSOLE-LOG" >&2; exit 2; }
tr -d '\r' < "$1" | awk '
/^##TEST-START / { prog = $2; fails = 0; cases = 0; open_ = 1; next }
/^##TEST-END / {
	rc = $3; sub(/^rc=/, "", rc)
	if (rc != 0 && fails == 0)
		printf "FAIL %s: exited with status %s\n", prog, rc
	if (cases == 0 && rc == 0)
		printf "FAIL %s: reported no test cases\n", prog
	open_ = 0; next
}
open_ && /^(not )?ok [0-9]+ / {
	line = $0; res = "PASS"
	if (line ~ /^not ok/) { res = "FAIL"; sub(/^not ok [0-9]+ /, "", line) }
	else sub(/^ok [0-9]+ /, "", line)
	if (line ~ /# *SKIP/) res = "SKIP"
	if (res == "FAIL") fails++
	cases++
	printf "%s %s: %s\n", res, prog, line
}
END { if (open_) printf "FAIL %s: did not finish (guest hang or panic?)\n", prog }
'
