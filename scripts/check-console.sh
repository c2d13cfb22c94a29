#!/bin/bash
# check-console.sh LOG: fail (exit 1) when the guest console log holds a
# panic, oops, WARNING, BUG, lockdep, RCU, KASAN, UBSAN or kmemleak report,
# printing an excerpt of each.  Passing tests do not excuse such a report.
set -u
[ $# -eq 1 ] && [ -f "$1" ] || { echo "usage: $0 CONSOLE-LOG" >&2; exit 2; }
pat='Kernel panic|Oops|general protection fault|WARNING:|BUG:|KASAN:|UBSAN:'
pat="$pat|suspicious RCU usage|possible (circular|recursive) locking|inconsistent lock state"
pat="$pat|unreferenced object|blocked for more than|rcu: INFO|self-detected stall|Call Trace:"
pat="$pat|soft lockup|int3: |invalid opcode:"
hits=$(grep -naE "$pat" "$1")
[ -z "$hits" ] && exit 0
echo "console: kernel reported problems ($(echo "$hits" | wc -l) lines) in $1:" >&2
first=$(echo "$hits" | head -n1 | cut -d: -f1)
sed -n "$((first > 3 ? first - 3 : 1)),$((first + 25))p" "$1" | sed 's/^/  | /' >&2
echo "$hits" | head -n 10 | sed 's/^/  match: /' >&2
exit 1
