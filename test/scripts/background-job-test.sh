#!/usr/bin/env bash
# scripts/background-job.sh: a job's status comes back through wait, and a job whose owner ends first is stopped with
# everything it started (a failed make test leaves no build running). Seconds; no network.
set -euo pipefail
cd "$(dirname "$0")/../.."
export PACER_CACHE; PACER_CACHE=$(mktemp -d)
token="pacer-background-job-test-$$"
cleanup() { pkill -f "$token" 2>/dev/null || true; rm -rf "$PACER_CACHE"; }
trap cleanup EXIT
failures=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAILED: $1" >&2; failures=$((failures + 1)); fi; }

# the owner outlives the job: its status, 0 or not, is what wait reports
sleep 120 & owner=$!
scripts/background-job.sh start passes --owner "$owner" true >/dev/null
scripts/background-job.sh start fails --owner "$owner" bash -c 'echo broken; exit 3' >/dev/null
check "a job that succeeded: wait exits 0" "scripts/background-job.sh wait passes >/dev/null"
set +e; out=$(scripts/background-job.sh wait fails 2>&1); rc=$?; set -e
check "a job that failed: wait exits with its status (3, got $rc)" "[[ $rc == 3 ]]"
check "a job that failed: wait shows its log" "[[ \$out == *broken* ]]"

# the owner ends first: the job and its children stop, and wait reports it stopped
scripts/background-job.sh start orphan --owner "$owner" bash -c "sleep 600 & sleep 601 # $token" >/dev/null
for _ in $(seq 50); do (( $(pgrep -fc "$token" || true) >= 2 )) && break; sleep 0.1; done
check "the job and its child run while the owner does ($(pgrep -fc "$token" || true) processes)" "(( \$(pgrep -fc '$token' || true) >= 2 ))"
kill "$owner"; wait "$owner" 2>/dev/null || true
for _ in $(seq 100); do (( $(pgrep -fc "$token" || true) == 0 )) && break; sleep 0.1; done
check "the owner ended: nothing of the job is left ($(pgrep -fc "$token" || true) processes)" "(( \$(pgrep -fc '$token' || true) == 0 ))"
set +e; scripts/background-job.sh wait orphan >/dev/null 2>&1; rc=$?; set -e
check "a job stopped with its owner: wait exits 143 (got $rc)" "[[ $rc == 143 ]]"

(( failures == 0 )) || { echo "background-job-test: $failures failed" >&2; exit 1; }
echo "background-job-test: all passed"
