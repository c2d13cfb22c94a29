#!/bin/bash
# check.sh [TESTS]: boot the guest once with every in-guest test (or TESTS),
# print one line per test case, check the console log, prove that a kernel
# WARNING fails a run (second short boot), and end with
# "N passed, N failed[, N skipped]".  Exit status 0 only with no failure.
set -u
. "$(dirname "$0")/lib.sh"

tests=${1:-all}
# TOPO (scripts/boot.sh): another layout's logs beside the 2n ones
sfx=; [ "${TOPO:-2n}" != 2n ] && sfx=-$TOPO
res=$OUT/results$sfx.txt
mkdir -p "$OUT"
LOG=$OUT/console$sfx.log
step "boot guest (${TOPO:-2n}) and run tests ($tests)" env LOG="$LOG" "$TOP/scripts/boot.sh" "$tests"
boot_rc=$?
"$TOP/scripts/results.sh" "$LOG" > "$res"
[ $boot_rc = 0 ] || echo "FAIL boot: guest did not complete the test run (see $LOG)" >> "$res"
# A boot retried after an early-boot hang still fails the run (scripts/boot.sh)
early_hangs() {
	[ -s "$1.early-hangs" ] || return 0
	echo "FAIL boot: $(wc -l < "$1.early-hangs") early-boot hang(s) before ##GUEST-UP, retried ($1.stuck-N, tasks in $1.stuck-N.tasks): $(head -n 1 "$1.early-hangs")" >> "$res"
}
early_hangs "$LOG"
if "$TOP/scripts/check-console.sh" "$LOG"; then
	echo "PASS console: no panic, oops, WARNING, BUG, lockdep, KASAN or kmemleak report" >> "$res"
else
	echo "FAIL console: kernel reported a problem in $LOG (excerpt above)" >> "$res"
fi

if [ "${SKIP_WARN_SELFTEST:-0}" != 1 ]; then
	wlog=$OUT/console-warn-selftest$sfx.log
	step "boot guest with a forced WARNING (harness self-test)" \
		env LOG="$wlog" "$TOP/scripts/boot.sh" lkdtm-warning >/dev/null
	early_hangs "$wlog"
	if grep -q '^ok 1 lkdtm.warning' "$wlog" && ! "$TOP/scripts/check-console.sh" "$wlog" 2>/dev/null; then
		echo "PASS harness: a kernel WARNING in the console log fails the run" >> "$res"
	else
		echo "FAIL harness: forced WARNING (lkdtm) was not caught in $wlog" >> "$res"
	fi
fi

# The cover letter's figures, shortlog and diffstat are those of now
"$TOP/scripts/cover-letter.sh" --check >> "$res"

cat "$res"
p=$(grep -c '^PASS' "$res"); f=$(grep -c '^FAIL' "$res"); s=$(grep -c '^SKIP' "$res")
echo "$p passed, $f failed$([ "$s" -gt 0 ] && echo ", $s skipped")"
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
