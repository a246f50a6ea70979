#!/usr/bin/env bash
# Makes a pod's port unreachable from the cluster's daemons (the API server's pod proxy, the kubelet), as a network
# fault would: packets to IP:PORT sent from the cluster's network namespace are dropped, without an answer. Only the
# rule this script adds is touched. Usage: drop-traffic.sh on|off POD_IP PORT
set -euo pipefail
DIR="$(cd "$(dirname "$0")" && pwd)"
. "$DIR/env.sh"
[[ $# -eq 3 && ( $1 == on || $1 == off ) ]] || { echo "usage: $0 on|off POD_IP PORT" >&2; exit 2; }
rule=(OUTPUT -d "$2" -p tcp --dport "$3" -m comment --comment pacer-drop-traffic -j DROP)
if [[ $1 == on ]]; then
  innet iptables -C "${rule[@]}" 2>/dev/null || innet iptables -I "${rule[@]}"
else
  while innet iptables -C "${rule[@]}" 2>/dev/null; do innet iptables -D "${rule[@]}"; done
fi
