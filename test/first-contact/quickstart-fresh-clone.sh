#!/usr/bin/env bash
# README's first command as a newcomer meets it: a fresh clone, a JDK and no Go on the PATH. './pacer run
# examples/quickstart.yaml' builds what it needs and ends Passed (exit 0); a run that needs Go's programs (the Go peer
# server, the kernel probe) is refused before it starts, naming the field and how to get Go.
set -euo pipefail
PACER_HOME="$(cd "$(dirname "$0")/../.." && pwd)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "quickstart-fresh-clone: FAIL: $*" >&2; exit 1; }

git clone -q "$PACER_HOME" "$work/pacer"
cd "$work/pacer"
# no Go: every PATH entry holding a go binary is dropped
PATH=$(tr ':' '\n' <<<"$PATH" | while read -r dir; do [[ -n $dir && ! -x $dir/go ]] && echo "$dir"; done | paste -sd: -)
export PATH
! command -v go >/dev/null || fail "go still on PATH"

echo "quickstart-fresh-clone: ./pacer run examples/quickstart.yaml in a fresh clone, without Go"
set +e
./pacer run examples/quickstart.yaml --output "$work/quickstart" >"$work/out.txt" 2>"$work/err.txt"
code=$?
set -e
cat "$work/out.txt"
[[ $code == 0 ]] || { cat "$work/err.txt" >&2; fail "exit $code, expected 0 (verdict Passed)"; }
grep -q "verdict: Passed" "$work/out.txt" || fail "no 'verdict: Passed' in the output"
grep -q "Go is not on PATH" "$work/err.txt" || fail "the launcher did not say it builds without Go"
[[ ! -e probe/target/pacer-probe ]] || fail "the probe was built without Go?"
[[ -s $work/quickstart/result.json && -s $work/quickstart/report.html ]] || fail "no result.json or report.html"

echo "quickstart-fresh-clone: the Go peer server without Go is refused, naming the field and Go"
set +e
./pacer run examples/probe/go-net-http.yaml --output "$work/go" >"$work/go-out.txt" 2>"$work/go-err.txt"
code=$?
set -e
[[ $code == 2 ]] || { cat "$work/go-out.txt" "$work/go-err.txt" >&2; fail "exit $code, expected 2 (bad spec)"; }
grep -q "spec.server.command\[0\].*Go 1.26 or newer is on PATH" "$work/go-err.txt" || { cat "$work/go-err.txt" >&2; fail "the refusal does not name the command and Go"; }
grep -q "spec.server.measure.*Go 1.26 or newer is on PATH" "$work/go-err.txt" || { cat "$work/go-err.txt" >&2; fail "the refusal does not name the probe and Go"; }
echo "quickstart-fresh-clone: passed"
