#!/usr/bin/env bash
# A long build run beside the tests, at the lowest CPU priority, and waited for when its output is needed: make test
# builds Grafana and the dashboard linter (about 20 minutes of CPU on a cold 2-core machine) while the Maven tests run.
# The tests count what each run did, never a time, and hold beside a CPU hog (docs/development.md); at nice 19 the
# build takes only the CPU they leave.
#   background-job.sh start NAME [--owner PID] COMMAND...   starts it, its output in ~/.cache/pacer/logs/NAME.log;
#                                       with --owner, it is stopped should PID end before the job does (a failed make
#                                       test leaves no build running)
#   background-job.sh wait NAME         waits for it; exits with its status, its log's tail shown on failure
set -euo pipefail
LOGS=${PACER_CACHE:-$HOME/.cache/pacer}/logs
mkdir -p "$LOGS"
what=${1:-}; name=${2:?usage: background-job.sh start|wait NAME [--owner PID] [COMMAND...]}
job=$LOGS/$name
STOPPED_STATUS=143   # what wait reports for a job stopped because its owner ended: 128 + SIGTERM
case $what in
  start)
    shift 2
    owner=""
    if [[ ${1:-} == --owner ]]; then owner=${2:?--owner needs a PID}; shift 2; fi
    rm -f "$job.rc"
    # a session of its own: the job and all it started are one process group, stopped together; Ctrl-C on make stops
    # the job through its owner's end, not directly
    setsid bash -c 'nice -n 19 "$@" >"$0.log" 2>&1; echo $? >"$0.rc"' "$job" "$@" </dev/null >/dev/null 2>&1 &
    group=$!
    echo "$name: building in the background (nice 19), log $job.log"
    if [[ -n $owner ]]; then
      ( while kill -0 "$owner" 2>/dev/null && [[ ! -f $job.rc ]]; do sleep 1; done
        if [[ ! -f $job.rc ]]; then
          kill -TERM -- "-$group" 2>/dev/null || true
          echo "stopped: its owner (PID $owner) ended before it did" >>"$job.log"
          echo "$STOPPED_STATUS" >"$job.rc"
        fi ) </dev/null >/dev/null 2>&1 &
    fi
    ;;
  wait)
    t0=$(date +%s)
    until [[ -f $job.rc ]]; do sleep 2; done
    rc=$(cat "$job.rc")
    echo "$name: done (exit $rc), waited $(( $(date +%s) - t0 )) s for it"
    [[ $rc == 0 ]] || { tail -40 "$job.log"; exit "$rc"; }
    ;;
  *) echo "usage: background-job.sh start|wait NAME [--owner PID] [COMMAND...]" >&2; exit 2 ;;
esac
