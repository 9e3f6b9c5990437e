#!/usr/bin/env python3
"""bench/egopt_runs.py on a real egopt run: its row holds the report's e-graph size and bytes,
wall time, saturation seconds, peak resident set and tau (so a change of the report's keys breaks this test, not a device run's table), and a run
that wrote no report (a time-out) gets empty fields.

Usage: egopt_runs_test.py SOURCE_DIR EGOPT
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile


def main(source, egopt):
    with tempfile.TemporaryDirectory() as out:
        run = os.path.join(out, "scal")
        os.makedirs(os.path.join(out, "late"))
        subprocess.run([egopt, os.path.join(source, "examples", "scal.lift"), "--size", "N=1024",
                        "--search.draws", "0", "--candidates", "1", "--output-dir", run],
                       check=True, stdout=subprocess.DEVNULL, cwd=source)
        with open(os.path.join(run, "status"), "w") as f:
            f.write("ok after 1 s\n")
        with open(os.path.join(run, "scal.report.json")) as f:
            report = json.load(f)
        text = subprocess.run([sys.executable, os.path.join(source, "bench", "egopt_runs.py"),
                               out, "scal", "late"], check=True, capture_output=True,
                              text=True).stdout
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["kernel"] for r in rows] == ["scal", "late"], rows
    scal, late = rows
    assert scal["status"] == "ok after 1 s", scal
    assert int(scal["enodes"]) == report["egraph"]["nodes"] > 0, (scal, report["egraph"])
    assert int(scal["eclasses"]) == report["egraph"]["classes"] > 0, scal
    assert abs(float(scal["egopt_seconds"]) - report["seconds"]) < 0.05, scal
    assert abs(float(scal["egraph_mb"]) - report["egraph"]["bytes"] / 1e6) < 0.05, scal
    assert float(scal["egraph_mb"]) > 0, scal
    assert abs(float(scal["saturate_seconds"]) - report["stages"]["saturate"]) < 0.05, scal
    assert abs(float(scal["peak_rss_mb"]) - report["peak_rss_mb"]) < 0.5, scal
    assert report["peak_rss_mb"] > 1, report["peak_rss_mb"]
    tau = report["kendall_tau"]["distinct_kernels"]
    assert scal["kendall_tau"] == ("" if tau is None else f"{tau:.3f}"), scal
    assert all(late[c] == "" for c in ("status", "enodes", "eclasses", "egraph_mb",
                                       "egopt_seconds", "saturate_seconds", "peak_rss_mb")), late
    print("egopt_runs.py: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
