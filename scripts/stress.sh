#!/bin/bash
# make stress: boot the guest with tests/stress.c alone for STRESS_SECS
# seconds (default 600; make check runs it for 60), check the console for
# any kernel report, and end with "N passed, N failed" like make check.
set -u
. "$(dirname "$0")/lib.sh"
secs=${STRESS_SECS:-600}
export BOOT_TIMEOUT=$(( secs + ${BOOT_TIMEOUT_EXTRA:-900} ))
[ "$DEBUG" = 1 ] && export BOOT_TIMEOUT_DEBUG=$(( secs * 2 + 2400 ))
export APPEND="${APPEND:-} snstress=$secs" SKIP_WARN_SELFTEST=1
exec "$TOP/scripts/check.sh" stress
