#!/usr/bin/env bash
# make bench: the benchmarks of docs/benchmarks.md with the settings of its tables, read from the page's own commands
# (one home: change a table's command there, and this runs the new one). wrk2 runs where WRK2 names its binary; without
# it, the rows of wrk2 are left out and the ratios are to vegeta, as the scripts say. The kernel probe's table runs as
# root only. The operator's benchmark needs the test cluster and runs on its own (the page's commands). The time each
# takes is printed before any starts, from the scripts' own plans (BENCH_ESTIMATE_ONLY).
#   WRK2=/path/to/wrk2 scripts/bench-all.sh
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$DIR/.." && pwd)"
DOC=$REPO/docs/benchmarks.md
# the page's shell commands (continuation lines joined, comments dropped) that run a benchmark script, but the operator's
mapfile -t published < <(python3 "$REPO/test/first-contact/doc_command.py" --every "$DOC" "" "scripts/bench-" | grep -v bench-operator)
(( ${#published[@]} )) || { echo "docs/benchmarks.md names no benchmark command" >&2; exit 1; }
commands=() skipped=()
for command in "${published[@]}"; do
  if [[ $command == sudo\ * ]]; then
    if [[ $(id -u) -ne 0 ]]; then skipped+=("${command#sudo } (needs root: run 'sudo make bench' or it alone)"); continue; fi
    command=${command#sudo }
  fi
  if [[ -n ${WRK2:-} ]]; then
    command=${command//\/path\/to\/wrk2/$WRK2}
  else
    command=$(sed -e 's# WRK2=/path/to/wrk2##; s#^WRK2=/path/to/wrk2 ##; s#CLIENTS="wrk2 #CLIENTS="vegeta #' <<<"$command")
  fi
  commands+=("$command")
done
[[ -n ${WRK2:-} ]] || echo "WRK2 is unset: the tables' wrk2 rows are left out, vegeta stands in as the reference (build giltene/wrk2 and set WRK2 for the published tables)"
total=0
echo "make bench will run, from docs/benchmarks.md:"
for command in "${commands[@]}"; do
  seconds=$(cd "$REPO" && BENCH_ESTIMATE_ONLY=1 bash -c "$command" 2>/dev/null | tail -1)
  [[ $seconds =~ ^[0-9]+$ ]] || { echo "could not plan '$command': its script said '$seconds'" >&2; exit 1; }
  total=$(( total + seconds ))
  printf '  %3d min  %s\n' $(( (seconds + 59) / 60 )) "$command"
done
for command in "${skipped[@]}"; do echo "  skipped  $command"; done
echo "  separate scripts/bench-operator.sh (needs the test cluster: the operator's tables)"
echo "about $(( (total + 59) / 60 )) min in all, on a machine as busy as the tables' own; starting $(date +%H:%M)"
for command in "${commands[@]}"; do
  echo; echo "\$ $command"
  (cd "$REPO" && bash -c "$command")
done
