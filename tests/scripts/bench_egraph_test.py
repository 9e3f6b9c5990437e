#!/usr/bin/env python3
"""The egopt side of `scripts/bench-egraph --quick` (no egglog): every workload has its row, the
numbers are well-formed, and the arithmetic sum and mm, asum and nbody under the structural rules
saturate at the sizes their rules determine.

Usage: bench_egraph_test.py SOURCE_DIR EGOPT [--sanitized]
  --sanitized  EGOPT is built with the sanitizers: the Lift workloads only (arith-8 takes 80 s
               there; test_search.cpp checks an arith sum's saturated size under them)
"""
import csv
import io
import json
import os
import subprocess
import sys
import tempfile

COLUMNS = ["workload", "system", "iterations", "enodes", "eclasses", "seconds", "enodes_per_s",
           "bytes_per_enode", "peak_rss_mb"]
WORKLOADS = ["arith-8", "lift-mm-100k", "lift-asum-100k", "lift-nbody-100k",
             "lift-mm_tiled_8x4-100k"]


def arith_size(n):
    """(e-nodes, e-classes) of sum_{i<n} x_i * y saturated under commutativity, associativity
    and distributivity, counted by enumerating the subsets S of the n terms (independently of
    the closed form in docs/egraph.md). Each S has two classes: T_S, the sum of its terms (an add
    per ordered split of S into two non-empty parts, and mult(y, X_S) and mult(X_S, y)), and
    X_S, the sum of its x's (an add per ordered split; for |S| = 1 the parameter x_i). Then the
    parameter y, and the user functions add and mult, e-nodes of their own."""
    nodes = classes = 0
    for size in range(1, n + 1):
        subsets = comb(n, size)
        nodes += subsets * ((2 ** size - 2) + 2)  # T_S
        nodes += subsets * (2 ** size - 2 if size > 1 else 1)  # X_S
        classes += 2 * subsets
    return nodes + 1 + 2, classes + 1 + 2


def structural_size(egopt, program, rules):
    """(e-nodes, e-classes) of a program without splits, joins, transposes of maps or tuples
    saturated under bench/egraph/structural.rules, from its initial e-graph: each Map class gains
    the ten lowered maps (MapGlb, MapWrg, MapLcl in three dimensions, MapSeq), each Reduce class
    ReduceSeq, and each application of a map gains toGlobal/toLocal/toPrivate of the map (three
    e-nodes in three new classes) applied to the same argument (three e-nodes in its class)."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "initial.json")
        subprocess.run([egopt, "saturate", program, "--rules", rules, "--iterations", "0",
                        "--dump-egraph", path], check=True, capture_output=True, timeout=60)
        with open(path) as f:
            nodes = json.load(f)["nodes"]
    op = {key: n["op"] for key, n in nodes.items()}
    maps = sum(1 for o in op.values() if o == "Map")
    reduces = sum(1 for o in op.values() if o == "Reduce")
    map_apps = sum(1 for n in nodes.values() if n["op"] == "$" and op[n["children"][0]] == "Map")
    return (len(nodes) + 10 * maps + reduces + 6 * map_apps, len(nodes) + 3 * map_apps)


def comb(n, k):
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def main():
    source, egopt = sys.argv[1], sys.argv[2]
    workloads = WORKLOADS[1:] if "--sanitized" in sys.argv[3:] else WORKLOADS
    run = subprocess.run([f"{source}/scripts/bench-egraph", "--egopt", egopt, "--quick", "--csv",
                          "--egopt-only", "--repeat", "1", "--only", ",".join(workloads)],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        sys.exit(f"bench-egraph failed ({run.returncode}):\n{run.stderr[-3000:]}")
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    failures = []
    header = run.stdout.splitlines()[0].split(",") if run.stdout else []
    if header != COLUMNS:
        failures.append(f"columns: {header}")
    by_name = {r["workload"]: r for r in rows if r["system"] == "egopt"}
    for name in workloads:
        r = by_name.get(name)
        if r is None:
            failures.append(f"no egopt row for {name}")
            continue
        iterations, nodes, classes = int(r["iterations"]), int(r["enodes"]), int(r["eclasses"])
        seconds, rate = float(r["seconds"]), float(r["enodes_per_s"])
        if not (iterations > 0 and 0 < classes <= nodes <= 100_000):
            failures.append(f"{name}: sizes {iterations} iterations, {nodes} e-nodes, {classes}")
        if seconds >= 0.1 and abs(rate - nodes / seconds) > 0.01 * rate:
            failures.append(f"{name}: {rate} e-nodes/s is not {nodes} / {seconds}")
        if not (float(r["bytes_per_enode"]) > 0 and float(r["peak_rss_mb"]) > 0):
            failures.append(f"{name}: bytes per e-node or peak RSS missing: {r}")
    arith = by_name.get("arith-8")
    if arith and "arith-8" in workloads:
        want = arith_size(8)
        got = (int(arith["enodes"]), int(arith["eclasses"]))
        if got != want:
            failures.append(f"arith-8 saturates at {got} (e-nodes, e-classes), expected {want}")
    rules = f"{source}/bench/egraph/structural.rules"
    for name in ["mm", "asum", "nbody"]:
        r = by_name.get(f"lift-{name}-100k")
        want = structural_size(egopt, f"{source}/examples/{name}.lift", rules)
        if r and (int(r["enodes"]), int(r["eclasses"])) != want:
            failures.append(f"lift-{name}-100k saturates at ({r['enodes']}, {r['eclasses']}), "
                            f"expected {want}")
    if failures:
        sys.exit("\n".join(failures) + "\n--- output:\n" + run.stdout)
    print(run.stdout, end="")


if __name__ == "__main__":
    main()
