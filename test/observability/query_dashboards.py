#!/usr/bin/env python3
"""Runs every query of a dashboard through a real Grafana, as its panels would, and fails on an error or no data.

  query_dashboards.py GRAFANA_URL DASHBOARD.json --var name=value ... [--minutes N] [--skip-panel TITLE ...] [--values TITLE]
                      [--datasource UID]

Template variables are filled from --var (the frontend does that in a browser); Grafana's backend expands the rest
($__rate_interval, $__interval, $__range) as it does for a panel. Each variable's own query (label_values) is checked
to offer the value given. One line per panel; exit status 1 when any panel has no data. With --values TITLE, the
panel's values as Grafana returns them, one line each: "value REFID {labels} NUMBER".
A SQL dashboard (its targets hold rawSql: the history's, on PostgreSQL) is queried the same way through --datasource
(the provisioned datasource's uid); its variables' SQL must offer the value given, and its annotation queries must
return rows, each printed as "annotation NAME: TEXT".
"""
import argparse
import json
import re
import sys
import time
import urllib.parse
import urllib.request

DATASOURCE_UID = "prometheus"


def call(url, body=None):
    request = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def fill(text, values):
    text = text.replace("${datasource}", DATASOURCE_UID)
    for name, value in sorted(values.items(), key=lambda kv: -len(kv[0])):
        text = text.replace("${" + name + "}", value).replace("$" + name, value)
    return text


def has_data(result):
    for frame in result.get("frames", []):
        values = frame.get("data", {}).get("values", [])
        if len(values) >= 2 and any(v is not None for v in values[-1]):
            return True
    return False


def sql_rows(grafana, sql, window, ref="A"):
    """The rows of a SQL query run by Grafana's backend as a panel's, macros expanded: (status, columns, rows)."""
    query = {"refId": ref, "datasource": {"uid": DATASOURCE_UID}, "rawSql": sql, "format": "table", "rawQuery": True}
    status, answer = call(f"{grafana}/api/ds/query", dict(window, queries=[query]))
    result = answer.get("results", {}).get(ref, {})
    if status != 200 or result.get("error"):
        return status, [], [], result.get("error") or answer.get("message", "")
    frames = result.get("frames", [])
    if not frames:
        return status, [], [], ""
    columns = [f["name"] for f in frames[0]["schema"]["fields"]]
    values = frames[0].get("data", {}).get("values", [])
    return status, columns, list(zip(*values)) if values else [], ""


def check_sql_variables(grafana, dashboard, values, window):
    problems = []
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        sql = fill(variable["query"], values)
        status, columns, rows, error = sql_rows(grafana, sql, window)
        offered = [row[columns.index("__value")] for row in rows] if "__value" in columns else [row[0] for row in rows]
        ok = status == 200 and bool(offered) and values.get(variable["name"], offered[0] if offered else None) in offered
        print(f"{'ok  ' if ok else 'FAIL'} variable {variable['name']}: offers {offered[:6]} {error}")
        if not ok:
            problems.append(variable["name"])
    return problems


def check_sql_annotations(grafana, dashboard, values, window):
    problems = []
    for annotation in dashboard.get("annotations", {}).get("list", []):
        sql = annotation.get("rawQuery") or annotation.get("target", {}).get("rawSql")
        if not sql:
            continue
        status, columns, rows, error = sql_rows(grafana, fill(sql, values), window, "Anno")
        ok = status == 200 and bool(rows) and {"time", "text"} <= set(columns)
        print(f"{'ok  ' if ok else 'FAIL'} annotations \"{annotation['name']}\": {len(rows)} {error}")
        for row in rows:
            print(f"annotation {annotation['name']}: {row[columns.index('text')] if 'text' in columns else row}")
        if not ok:
            problems.append(annotation["name"])
    return problems


def check_variables(grafana, dashboard, values):
    problems = []
    for variable in dashboard.get("templating", {}).get("list", []):
        if variable.get("type") != "query":
            continue
        query = fill(variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"], values)
        match = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", query.strip())
        if not match:
            problems.append(f"variable {variable['name']}: cannot read '{query}'")
            continue
        selector, label = match.groups()
        url = f"{grafana}/api/datasources/proxy/uid/{DATASOURCE_UID}/api/v1/label/{label}/values?" + urllib.parse.urlencode({"match[]": selector})
        status, answer = call(url)
        offered = answer.get("data", []) if status == 200 else []
        wanted = values.get(variable["name"], ".*")
        ok = bool(offered) and (wanted == ".*" or wanted in offered)
        print(f"{'ok  ' if ok else 'FAIL'} variable {variable['name']}: {query} offers {offered[:6]}")
        if not ok:
            problems.append(variable["name"])
    return problems


def main():
    global DATASOURCE_UID
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("grafana")
    parser.add_argument("dashboard")
    parser.add_argument("--var", action="append", default=[])
    parser.add_argument("--minutes", type=int, default=15)
    parser.add_argument("--values", action="append", default=[], help="a panel whose values to print, each with its labels")
    parser.add_argument("--datasource", default=DATASOURCE_UID, help="the uid of the datasource the dashboard's ${datasource} picks")
    parser.add_argument("--skip-panel", action="append", default=[],
                        help="a panel whose data the runs cannot have (a sweep's, after fixed-rate runs): said, not queried")
    args = parser.parse_args()
    DATASOURCE_UID = args.datasource
    values = dict(v.split("=", 1) for v in args.var)
    dashboard = json.load(open(args.dashboard))
    now_ms = int(time.time() * 1000)
    window = {"from": str(now_ms - args.minutes * 60_000), "to": str(now_ms)}
    values.setdefault("__range", f"{args.minutes}m")
    sql = any("rawSql" in t for p in dashboard["panels"] for t in p.get("targets", []))
    failed = (check_sql_variables(args.grafana, dashboard, values, window) + check_sql_annotations(args.grafana, dashboard, values, window)
              if sql else check_variables(args.grafana, dashboard, values))
    for panel in dashboard["panels"]:
        if panel["title"] in args.skip_panel:
            print(f"skip panel \"{panel['title']}\"")
            continue
        if sql:
            for target in panel.get("targets", []):
                status, columns, rows, error = sql_rows(args.grafana, fill(target["rawSql"], values), window, target["refId"])
                ok = status == 200 and bool(rows)
                print(f"{'ok  ' if ok else 'FAIL'} panel \"{panel['title']}\": {len(rows)} rows of {columns} {error}")
                if panel["title"] in args.values:
                    for row in rows:
                        print(f"value {target['refId']} {json.dumps(dict(zip(columns, row)), sort_keys=True, default=str)}")
                if not ok:
                    failed.append(panel["title"])
            continue
        queries = [{"refId": t["refId"], "datasource": {"type": "prometheus", "uid": DATASOURCE_UID}, "expr": fill(t["expr"], values),
                    "range": t.get("range", True), "instant": t.get("instant", False), "format": t.get("format", "time_series"),
                    "intervalMs": 2000, "maxDataPoints": 600} for t in panel.get("targets", [])]
        status, answer = call(f"{args.grafana}/api/ds/query", dict(window, queries=queries))
        results = answer.get("results", {})
        empty = [q["refId"] for q in queries if q["refId"] not in results or results[q["refId"]].get("error") or not has_data(results[q["refId"]])]
        errors = [results[r].get("error") for r in empty if r in results and results[r].get("error")]
        if panel["title"] in args.values:
            for ref, result in sorted(results.items()):
                for frame in result.get("frames", []):
                    fields = frame.get("schema", {}).get("fields", [])
                    columns = frame.get("data", {}).get("values", [])
                    if len(fields) >= 2 and len(columns) >= 2 and columns[-1]:
                        print(f"value {ref} {json.dumps(fields[-1].get('labels', {}), sort_keys=True)} {columns[-1][-1]}")
        ok = status == 200 and not empty
        print(f"{'ok  ' if ok else 'FAIL'} panel \"{panel['title']}\": {len(queries)} quer{'y' if len(queries) == 1 else 'ies'}"
              + ("" if ok else f", no data from {empty} {errors or answer.get('message', '')}"))
        if not ok:
            failed.append(panel["title"])
            for q in queries:
                if q["refId"] in empty:
                    print(f"       {q['refId']}: {q['expr']}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
