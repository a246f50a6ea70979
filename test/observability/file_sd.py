#!/usr/bin/env python3
"""Writes Prometheus file_sd targets for pacer's pods every 2 seconds, from the API server, with the labels the
chart's PodMonitor and ServiceMonitor give them (Debian's Prometheus is built without Kubernetes discovery).

  file_sd.py KUBECONFIG OUT_DIR
"""
import json
import os
import subprocess
import sys
import time


def pods(kubeconfig, selector):
    out = subprocess.run(["kubectl", f"--kubeconfig={kubeconfig}", "get", "pods", "-A", "-l", selector, "-o", "json"],
                         capture_output=True, text=True, timeout=20)
    return json.loads(out.stdout)["items"] if out.returncode == 0 else None


def port(pod, name):
    for container in pod["spec"]["containers"]:
        for p in container.get("ports", []):
            if p.get("name") == name:
                return p["containerPort"]
    return None


def targets(items, port_name, labels):
    result = []
    for pod in items:
        ip = pod.get("status", {}).get("podIP")
        number = port(pod, port_name)
        if ip and number and pod["status"].get("phase") == "Running":
            result.append({"targets": [f"{ip}:{number}"], "labels": labels(pod)})
    return result


def write(path, content):
    temp = path + ".tmp"
    with open(temp, "w") as f:
        json.dump(content, f)
    os.replace(temp, path)


def main():
    kubeconfig, out = sys.argv[1], sys.argv[2]
    while True:
        agents = pods(kubeconfig, "app.kubernetes.io/managed-by=pacer-operator")
        if agents is not None:
            write(os.path.join(out, "agents.json"), targets(agents, "admin", lambda p: {
                # a probe's series belong to its run's namespace, as the chart's PodMonitor relabels them
                "namespace": p["metadata"]["labels"].get("pacer.dev/run-namespace") or p["metadata"]["namespace"],
                "pod": p["metadata"]["name"],
                "run": p["metadata"]["labels"].get("pacer.dev/run", ""), "pod_role": p["metadata"]["labels"].get("pacer.dev/role", "")}))
        operators = pods(kubeconfig, "app.kubernetes.io/component=operator,app.kubernetes.io/name=pacer")
        if operators is not None:
            write(os.path.join(out, "operator.json"), targets(operators, "metrics", lambda p: {"pod": p["metadata"]["name"]}))
        time.sleep(2)


if __name__ == "__main__":
    main()
