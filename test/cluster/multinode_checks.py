#!/usr/bin/env python3
"""The multi-node tier's judgements, from what the runs did: the suites' and runs' statuses (kubectl get -o json),
the nodes (their pools), and the pods as pod_watch.py saw them while they ran. Prints one line per check, "ok ..." or
"FAIL ...", and the facts each rests on.
   multinode_checks.py headline SUITE.json RUNS.json PODS.jsonl NODES.json
   multinode_checks.py node-lost SUITE.json RUNS.json PODS.jsonl NODES.json LOST_NODE
   multinode_checks.py run-node-lost RUNS.json PODS.jsonl RUN LOST_NODE
   multinode_checks.py faster SUITE.json DASHBOARD.txt TABLE.md   (query_dashboards.py --values of the "% faster" panel,
                                                                  pacer report --format markdown of the suite)"""
import ipaddress
import json
import re
import sys
from datetime import datetime


def check(what, ok, facts=""):
    print(("ok   " if ok else "FAIL ") + what + (f": {facts}" if facts else ""))


def load_pods(path):
    pods = {}
    try:
        with open(path) as f:
            for line in f:
                record = json.loads(line)
                pods[record["uid"]] = record   # the last sighting holds every peer seen
    except FileNotFoundError:
        pass
    return list(pods.values())


def runs_by_name(path):
    return {r["metadata"]["name"]: r for r in json.load(open(path))["items"]}


def condition(run, kind):
    return next((c for c in run.get("status", {}).get("conditions", []) if c["type"] == kind), {})


def epoch_ms(text):
    return int(datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000)


RANGES = {}   # node -> its pod range, from the annotation node-up.sh sets


def pools(path):
    by_pool = {}
    for node in json.load(open(path))["items"]:
        name = node["metadata"]["name"]
        by_pool.setdefault(node["metadata"].get("labels", {}).get("pacer.dev/pool"), set()).add(name)
        RANGES[name] = ipaddress.ip_network(node["metadata"].get("annotations", {}).get("pacer.dev/test-pod-range", "0.0.0.0/32"))
    return by_pool


def pod_range(node):
    return RANGES[node]


def placement(run_name, run, pods, server_pool, client_pool):
    mine = [p for p in pods if p["run"] == run_name]
    servers = [p for p in mine if p["role"] == "server"]
    clients = [p for p in mine if p["role"] == "client"]
    probes = [p for p in mine if p["role"] in ("probe", "server-probe")]
    spec = run["spec"]
    measure = spec["server"].get("measure", "agent")
    wanted_clients = spec["clients"]["count"]
    if len(servers) != 1:
        check(f"{run_name}: its server pod seen running", False, f"{len(servers)} seen")
        return
    server = servers[0]
    check(f"{run_name}: the server on the server pool's node, pinned on one CPU of its own (the kernel's cpuset)",
          server["node"] in server_pool and server["cpuset"].isdigit(), f"{server['pod']} on {server['node']}, cpuset {server['cpuset']}")
    status_pods = {p["name"]: p for p in run.get("status", {}).get("pods", [])}
    reported = status_pods.get(server["pod"], {})
    if reported.get("cpuset") is not None:
        check(f"{run_name}: status.pods names the server's node and cpuset as the kernel has them",
              reported.get("node") == server["node"] and reported.get("cpuset") == server["cpuset"],
              f"status {reported.get('node')} {reported.get('cpuset')}")
    offsets = ", ".join(f"{p['role']}@{p.get('node')} "
                        f"{p['clockOffsetMicros'] / 1000:+.3f} ms (round trip {p.get('clockRoundTripMicros', 0) / 1000:.3f} ms)"
                        for p in run.get("status", {}).get("pods", []) if p.get("clockOffsetMicros") is not None)
    print(f"     {run_name}: clock offsets against the operator's: {offsets or 'none measured'}")
    nodes = sorted({c["node"] for c in clients})
    check(f"{run_name}: {wanted_clients} clients, each on a client node, none on the server's, spread over {len(client_pool)} nodes",
          len(clients) == wanted_clients and all(c["node"] in client_pool for c in clients)
          and server["node"] not in nodes and len(nodes) == min(len(client_pool), wanted_clients),
          ", ".join(f"{c['pod']} on {c['node']} (cpuset {c['cpuset']})" for c in sorted(clients, key=lambda c: c["pod"])))
    if measure in ("probe", "both"):
        check(f"{run_name}: one probe pod, on the server's node and nowhere else",
              len(probes) == 1 and probes[0]["node"] == server["node"], ", ".join(f"{p['pod']} on {p['node']}" for p in probes) or "none")
    else:
        check(f"{run_name}: no probe pod (measure: {measure})", not probes)
    peers = [ipaddress.ip_address(a.strip("[]").replace("::ffff:", "")) for a in server["peers"]]
    client_ranges = {n: pod_range(n) for n in client_pool}
    from_nodes = sorted({n for n, r in client_ranges.items() for a in peers if a in r})
    client_ips = {ipaddress.ip_address(c["podIP"]) for c in clients if c.get("podIP")}
    check(f"{run_name}: the server's connections come from the client nodes' pod ranges, from each client's pod",
          peers and all(any(a in r for r in client_ranges.values()) for a in peers) and client_ips <= set(peers)
          and len(from_nodes) == len(nodes),
          f"peers {sorted(str(a) for a in set(peers))} from {from_nodes}")
    if measure in ("probe", "both") and len(probes) == 1:
        timed = {ipaddress.ip_address(a): n for a, n in probes[0].get("probePeers", {}).items()}
        by_node = {n: sum(count for a, count in timed.items() if a in r) for n, r in client_ranges.items()}
        check(f"{run_name}: the probe timed requests from each client pod, on each client node, and from no other address",
              timed and client_ips <= set(timed) and all(any(a in r for r in client_ranges.values()) for a in timed)
              and sum(1 for count in by_node.values() if count) == len(nodes),
              "requests by node " + ", ".join(f"{n} {c}" for n, c in sorted(by_node.items()))
              + "; by address " + ", ".join(f"{a} {n}" for a, n in sorted(timed.items(), key=lambda e: str(e[0]))))


def headline(suite_path, runs_path, pods_path, nodes_path):
    suite = json.load(open(suite_path))
    runs = runs_by_name(runs_path)
    pods = load_pods(pods_path)
    by_pool = pools(nodes_path)
    server_pool, client_pool = by_pool.get("server", set()), by_pool.get("clients", set())
    status = suite.get("status", {})
    expected = len(suite["spec"]["servers"]) * suite["spec"].get("repetitions", 1)
    listed = status.get("runs", [])
    check(f"the suite: {status.get('phase')}, {len(listed)} of {expected} runs", status.get("phase") == "Succeeded" and len(listed) == expected)
    for line in listed:
        run = runs.get(line["name"], {})
        result = run.get("status", {}).get("result", {})
        verdict = result.get("verdict")
        reasons = "; ".join(result.get("reasons", []))
        check(f"{line['name']} ({line.get('server')}): {line.get('phase')}, verdict {verdict}" + (f" ({reasons})" if reasons else ""),
              line.get("phase") == "Succeeded" and verdict in ("Passed", "Failed", "Invalid") and (verdict != "Invalid" or reasons))
        if run:
            placement(line["name"], run, pods, server_pool, client_pool)
    # one instrument: every run's line in the suite is the probe's service integral of that run, never its agent's
    figures = []
    for line in listed:
        server = runs.get(line["name"], {}).get("status", {}).get("result", {}).get("server", {})
        main = server.get("series")
        service = server.get("p99IntegralMicros") if main == "service" else next(
            (o.get("p99IntegralMicros") for o in server.get("otherSeries", []) if o.get("name") in ("service", "probe.service")), None)
        figures.append((line["name"], main, line.get("p99IntegralMicros"), service))
    check(f"the suite compares the probe's service series ({status.get('comparisonSeries')}), and each run's line in it is that "
          f"run's service P99 integral", status.get("comparisonSeries") == "service" and figures
          and all(line_value is not None and line_value == service for _, _, line_value, service in figures),
          ", ".join(f"{name} ({main} main): {line_value} µs in the suite, {service} µs its service" for name, main, line_value, service in figures))
    for comparison in status.get("comparisons", []):
        print(f"     {comparison}")


def faster(suite_path, dashboard_path, table_path):
    """The suite's sentences, its table (pacer report of its status) and Grafana's "% faster" panel give each server the
    same figure against the first."""
    suite = json.load(open(suite_path))
    label_of = {s["name"]: s.get("labels", {}).get("server", s["name"]) for s in suite["spec"]["servers"]}
    said = {}
    for sentence in suite.get("status", {}).get("comparisons", []):
        match = re.search(r": (\S+) is ([\d.]+) % (faster|slower) than ", sentence)
        if match:
            said[label_of.get(match.group(1), match.group(1))] = float(match.group(2)) * (1 if match.group(3) == "faster" else -1)
    panel = {}
    for line in open(dashboard_path):
        if line.startswith("value A "):
            labels = json.loads(line[len("value A "):line.rindex("}") + 1])
            panel[labels.get("server")] = float(line.split()[-1])
    table = {}   # pacer report's Markdown: | Server | Rate per client | Runs | P99 integral | interval | max integral | % faster |
    for line in open(table_path):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 7 and cells[-1].endswith("%"):
            table[label_of.get(cells[0], cells[0])] = float(cells[-1].rstrip("% ").replace("+", ""))
    check("each server's % faster than the first is the same in the suite's sentences, its table (pacer report) and Grafana's "
          "panel (one formula)",
          said and all(server in panel and abs(panel[server] - value) <= 0.051 and server in table and abs(table[server] - value) <= 0.051
                       for server, value in said.items()),
          ", ".join(f"{server}: sentence {value:+.1f} %, table {table.get(server, float('nan')):+.1f} %, panel {panel.get(server, float('nan')):+.1f} %"
                    for server, value in sorted(said.items())))


def lost_run(run_name, run, pods, lost_node):
    ready = condition(run, "Ready")
    on_lost = sorted(p["pod"] for p in pods if p["run"] == run_name and p["node"] == lost_node)
    message = ready.get("message", "")
    check(f"{run_name}: Failed as NodeLost, naming {lost_node} and the run's pods there ({', '.join(on_lost) or 'none seen'})",
          run.get("status", {}).get("phase") == "Failed" and ready.get("reason") == "NodeLost" and lost_node in message
          and on_lost and all(p in message for p in on_lost), message[:300])
    window = run.get("status", {}).get("window") or {}
    completion = run.get("status", {}).get("completionTime")
    if window.get("endEpochMs") and completion:
        ended = epoch_ms(completion)
        check(f"{run_name}: ended {(window['endEpochMs'] - ended) / 1000:.0f} s before its window's end, not at its timeout",
              ended < window["endEpochMs"])
    else:
        check(f"{run_name}: its window and end are in its status", False, f"window {window}, completion {completion}")


def node_lost(suite_path, runs_path, pods_path, nodes_path, lost_node):
    suite = json.load(open(suite_path))
    runs = runs_by_name(runs_path)
    pods = load_pods(pods_path)
    by_pool = pools(nodes_path)
    listed = suite.get("status", {}).get("runs", [])
    check(f"the suite went on after the lost run: {suite.get('status', {}).get('phase')}, {len(listed)} runs",
          suite.get("status", {}).get("phase") == "Succeeded" and len(listed) == 2)
    if len(listed) < 2:
        return
    first, second = listed[0], listed[1]
    check(f"the suite names the lost run and why: {first['name']} {first.get('phase')}, {first.get('reason', '')[:160]}",
          first.get("phase") == "Failed" and "NodeLost" in (first.get("reason") or "") and lost_node in (first.get("reason") or ""))
    lost_run(first["name"], runs.get(first["name"], {}), pods, lost_node)
    remaining = by_pool.get("clients", set()) - {lost_node}
    clients = [p for p in pods if p["run"] == second["name"] and p["role"] == "client"]
    verdict = runs.get(second["name"], {}).get("status", {}).get("result", {}).get("verdict")
    check(f"the next run, {second['name']}, on the remaining client node(s) {sorted(remaining)}: {second.get('phase')}, verdict {verdict}",
          second.get("phase") == "Succeeded" and verdict is not None and clients and all(c["node"] in remaining for c in clients),
          ", ".join(f"{c['pod']} on {c['node']}" for c in clients))


def run_node_lost(runs_path, pods_path, run_name, lost_node):
    lost_run(run_name, runs_by_name(runs_path).get(run_name, {}), load_pods(pods_path), lost_node)


def clock(run_path, skewed_node, skew_micros):
    run = json.load(open(run_path))
    status = run.get("status", {})
    ready = condition(run, "Ready")
    pods = status.get("pods", [])
    skewed = [p for p in pods if p.get("node") == skewed_node and p.get("role", "").startswith("client")]
    others = [p for p in pods if p not in skewed and p.get("clockOffsetMicros") is not None]
    message = ready.get("message", "")
    check(f"a client on {skewed_node}, its clock {int(skew_micros) / 1e6:+.0f} s: the run Failed as ClockOffset, naming the pod and the node",
          status.get("phase") == "Failed" and ready.get("reason") == "ClockOffset" and skewed
          and all(p["name"] in message for p in skewed) and f"node {skewed_node}" in message, message[:300])
    check("before any load: no start instant chosen, no window, no result",
          not status.get("startAtEpochMs") and not status.get("window") and not status.get("result"))
    facts = ", ".join(f"{p['name']}@{p.get('node')} {p.get('clockOffsetMicros', 0) / 1000:+.3f} ms" for p in pods)
    check(f"status.pods holds each agent's offset: the skewed node's client about {int(skew_micros) / 1e6:+.0f} s; only it is named",
          skewed and all(p.get("clockOffsetMicros") is not None and abs(p["clockOffsetMicros"] - int(skew_micros)) < 500_000 for p in skewed)
          and others and not any(p["name"] in message for p in others), facts)


if __name__ == "__main__":
    mode, args = sys.argv[1], sys.argv[2:]
    {"headline": headline, "node-lost": node_lost, "run-node-lost": run_node_lost, "clock": clock, "faster": faster}[mode](*args)
