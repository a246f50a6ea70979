#!/usr/bin/env python3
"""Three finished BenchmarkRuns carrying Jetty's blog figures: a P99 of 36.6, 34.8 and 30.0 µs in each of 180 periods
(P99 integrals of 6,588, 6,264 and 5,400 µs) of the probe's service series. chappe is measured by the probe alone;
jetty11 and jetty12 by both, their agent's processing a tenth of their service, so that a comparison taking it would
read 900 % faster. By Jetty's formula jetty11 is 5.2 % and jetty12 22.0 % faster than chappe. (The per-period P99s
are whole microseconds, as a status holds them: the integrals carry the blog's tenths.)
   blog_runs.py DIRECTORY   writes NAME.yaml (the run) and NAME.status.json (its status) for each"""
import json
import os
import sys

RUNS = [("chappe", "probe", 36.6), ("jetty11", "both", 34.8), ("jetty12", "both", 30.0)]
PERIODS = 180


def figures(p99_micros, name=None):
    periods = [p99_micros] * PERIODS
    out = {"p99IntegralMicros": round(p99_micros * PERIODS), "maxIntegralMicros": round(3 * p99_micros * PERIODS),
           "p50Micros": round(p99_micros / 2), "p99Micros": round(p99_micros), "maxMicros": round(3 * p99_micros),
           "periodP99Micros": [round(p) for p in periods]}
    if name:
        out["name"] = name
    return out


def main(directory):
    for name, measure, p99 in RUNS:
        run = {"apiVersion": "pacer.dev/v1alpha1", "kind": "BenchmarkRun", "metadata": {"name": name},
               "spec": {"server": {"image": "pacer/server-jetty12:0.1.0", "measure": measure, "cpus": "1", "memory": "512Mi",
                                   "labels": {"server": name, "variant": "blog"}},
                        "clients": {"count": 4, "rate": "60k", "cpus": "1", "memory": "512Mi"},
                        "duration": "180s", "samplePeriod": "1s"}}
        service = figures(p99)
        if measure == "probe":
            server = dict(service, series="service", otherSeries=[figures(p99 * 1.1, "residence")])
        else:
            server = dict(figures(p99 / 10), series="processing",
                          otherSeries=[figures(p99, "probe.service"), figures(p99 * 1.1, "probe.residence")])
        server.update(histogramsAvailable=True, measuredBy=measure, samples=PERIODS)
        status = {"status": {"phase": "Succeeded", "load": "4x60k",
                             "result": {"verdict": "Passed", "server": server,
                                        "clients": {"requests": 43_200_000, "offeredRate": 240_000.0, "achievedRate": 240_000.0,
                                                    "errors": 0, "p99Micros": 900, "maxMicros": 2_000,
                                                    "p99IntegralMicros": 162_000, "p99UncorrectedIntegralMicros": 150_000}}}}
        with open(os.path.join(directory, f"{name}.yaml"), "w") as f:
            json.dump(run, f)
        with open(os.path.join(directory, f"{name}.status.json"), "w") as f:
            json.dump(status, f)


if __name__ == "__main__":
    main(sys.argv[1])
