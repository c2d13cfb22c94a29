#!/bin/bash
# step.sh NAME CMD...: run CMD as a timed step (one line at start, one with
# the seconds it took).
set -u
. "$(dirname "$0")/lib.sh"
name=$1; shift
step "$name" "$@"
