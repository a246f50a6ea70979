#!/usr/bin/env bash
# A long build run beside the tests, at the lowest CPU priority, and waited for when its output is needed: make test
# builds Grafana and the dashboard linter (about 20 minutes of CPU on a cold 2-core machine) while the Maven tests run.
# The tests count what each run did, never a time, and hold beside a CPU hog (docs/development.md); at nice 19 the
# build takes only the CPU they leave.
#   background-job.sh start NAME COMMAND...   starts it, its output in ~/.cache/pacer/logs/NAME.log
#   background-job.sh wait NAME               waits for it; exits with its status, its log's tail shown on failure
set -euo pipefail
LOGS=${PACER_CACHE:-$HOME/.cache/pacer}/logs
mkdir -p "$LOGS"
what=${1:-}; name=${2:?usage: background-job.sh start|wait NAME [COMMAND...]}
case $what in
  start)
    shift 2
    rm -f "$LOGS/$name.rc"
    ( nice -n 19 "$@" >"$LOGS/$name.log" 2>&1; echo $? >"$LOGS/$name.rc" ) </dev/null &
    echo "$name: building in the background (nice 19), log $LOGS/$name.log"
    ;;
  wait)
    t0=$(date +%s)
    until [[ -f $LOGS/$name.rc ]]; do sleep 2; done
    rc=$(cat "$LOGS/$name.rc")
    echo "$name: done (exit $rc), waited $(( $(date +%s) - t0 )) s for it"
    [[ $rc == 0 ]] || { tail -40 "$LOGS/$name.log"; exit "$rc"; }
    ;;
  *) echo "usage: background-job.sh start|wait NAME [COMMAND...]" >&2; exit 2 ;;
esac
