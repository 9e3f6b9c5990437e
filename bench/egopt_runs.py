#!/usr/bin/env python3
"""The egopt side of a `scripts/bench` run as CSV: per kernel tag, how egopt's run ended, the
e-graph after its last stage (e-nodes, e-classes, its data in MB), egopt's wall time and the
seconds of its saturation stages, the process's peak resident set, and Kendall's tau over the
distinct kernels it measured, read from the run's report (DIR/TAG/*.report.json) and status
(DIR/TAG/status).

Usage: egopt_runs.py DIR TAG...
Rows: kernel,status,enodes,eclasses,egraph_mb,egopt_seconds,saturate_seconds,peak_rss_mb,
kendall_tau (empty where the run wrote no report, e.g. after a time-out).
"""
import csv
import glob
import json
import os
import sys

COLUMNS = ["kernel", "status", "enodes", "eclasses", "egraph_mb", "egopt_seconds",
           "saturate_seconds", "peak_rss_mb", "kendall_tau"]


def row(directory, tag):
    run = os.path.join(directory, tag)
    status = ""
    if os.path.exists(os.path.join(run, "status")):
        with open(os.path.join(run, "status")) as f:
            status = f.read().strip()
    reports = sorted(glob.glob(os.path.join(run, "*.report.json")))
    if not reports:
        return [tag, status] + [""] * (len(COLUMNS) - 2)
    with open(reports[0]) as f:
        report = json.load(f)
    egraph = report.get("egraph", {})
    tau = report.get("kendall_tau", {}).get("distinct_kernels")
    def fixed(value, digits):
        return "" if value is None else f"{value:.{digits}f}"
    egraph_bytes = egraph.get("bytes")
    return [tag, status, egraph.get("nodes", ""), egraph.get("classes", ""),
            fixed(None if egraph_bytes is None else egraph_bytes / 1e6, 1),
            fixed(report.get("seconds"), 1),
            fixed(report.get("stages", {}).get("saturate"), 1),
            fixed(report.get("peak_rss_mb"), 0), fixed(tau, 3)]


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(COLUMNS)
    for tag in argv[1:]:
        out.writerow(row(argv[0], tag))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
