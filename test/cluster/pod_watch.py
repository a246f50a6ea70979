#!/usr/bin/env python3
"""Records where each benchmark pod ran, read while it runs (a run's pods may be gone once it ends): its node, its
container's effective cpuset as the kernel holds it (cpuset.effective_cpus of the container's cgroup, under the
node's kubelet's cgroup root), and, for a server, the peers of its established connections on its port, read from
its network namespace (ss); for a probe, the requests it timed per client address (its /pacer/v1/info, read in its
network namespace). One JSON object per pod and sighting with news, appended to OUT. Runs until killed.
   pod_watch.py KUBECONFIG OUT"""
import glob
import json
import subprocess
import sys
import time

kubeconfig, out = sys.argv[1], sys.argv[2]
seen = {}   # pod uid -> record


def cgroup_dir(uid, container_id):
    for path in glob.glob(f"/sys/fs/cgroup/cpuset/**/pod{uid}/{container_id}", recursive=True):
        return path
    return None


def peers(pid, port):
    try:
        text = subprocess.run(["nsenter", "-t", str(pid), "-n", "ss", "-tnH", "state", "established", f"( sport = :{port} )"],
                              capture_output=True, text=True, timeout=5).stdout
    except (OSError, subprocess.TimeoutExpired):
        return set()
    return {line.split()[-1].rsplit(":", 1)[0] for line in text.splitlines() if line.strip()}


def probe_peers(pid, port):
    try:
        text = subprocess.run(["nsenter", "-t", str(pid), "-n", "curl", "-sf", "--max-time", "3",
                               f"http://127.0.0.1:{port}/pacer/v1/info"], capture_output=True, text=True, timeout=5).stdout
        return {p["address"]: p["requests"] for p in json.loads(text).get("peers", [])}
    except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError, KeyError, TypeError):
        return None


while True:
    try:
        listed = json.loads(subprocess.run(["kubectl", "--kubeconfig", kubeconfig, "get", "pods", "-A", "-o", "json",
                                            "-l", "app.kubernetes.io/managed-by=pacer-operator"],
                                           capture_output=True, text=True, timeout=20).stdout or '{"items": []}')
    except (subprocess.TimeoutExpired, json.JSONDecodeError):
        listed = {"items": []}
    for pod in listed["items"]:
        meta, spec, status = pod["metadata"], pod["spec"], pod.get("status", {})
        statuses = [s for s in status.get("containerStatuses", []) if "running" in s.get("state", {})]
        if not statuses or not statuses[0].get("containerID"):
            continue
        uid = meta["uid"]
        record = seen.get(uid)
        if record is None:
            container_id = statuses[0]["containerID"].split("://", 1)[-1]
            directory = cgroup_dir(uid, container_id)
            if directory is None:
                continue
            try:
                cpuset = open(f"{directory}/cpuset.effective_cpus").read().strip()
                pid = int(open(f"{directory}/cgroup.procs").read().split()[0])
            except (OSError, IndexError, ValueError):
                continue
            labels = meta.get("labels", {})
            record = {"pod": meta["name"], "namespace": meta["namespace"], "uid": uid, "run": labels.get("pacer.dev/run"),
                      "role": labels.get("pacer.dev/role"), "node": spec.get("nodeName"), "podIP": status.get("podIP"),
                      "cpuset": cpuset, "pid": pid, "peers": []}
            seen[uid] = record
            with open(out, "a") as f:
                f.write(json.dumps(record) + "\n")
        if record["role"] in ("probe", "server-probe"):
            port = next((p["containerPort"] for c in spec["containers"] for p in c.get("ports", []) if p.get("name") == "admin"), 9090)
            counted = probe_peers(record["pid"], port)
            if counted and counted != record.get("probePeers"):
                record["probePeers"] = counted
                with open(out, "a") as f:
                    f.write(json.dumps(record) + "\n")
        if record["role"] == "server":
            port = next((p["containerPort"] for c in spec["containers"] for p in c.get("ports", []) if p.get("name") != "admin"), 8080)
            new = peers(record["pid"], port) - set(record["peers"])
            if new:
                record["peers"] = sorted(set(record["peers"]) | new)
                with open(out, "a") as f:
                    f.write(json.dumps(record) + "\n")
    time.sleep(1)
