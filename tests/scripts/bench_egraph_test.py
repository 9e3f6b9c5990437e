#!/usr/bin/env python3
"""The egopt side of `scripts/bench-egraph --quick` (no egglog): every workload has its row, the
numbers are well-formed, the arithmetic sum saturates at the size its rules determine, and mm,
asum and nbody under bench/egraph/split-join.rules reach egglog's e-graph sizes after every
iteration.

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
WORKLOADS = ["arith-8", "lift-mm-100k", "lift-asum-100k", "lift-nbody-100k"]


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


# egglog 13.2.0's (e-nodes, e-classes) after every iteration of the Lift workloads (the same
# rules over bench/egraph_bench.py's encoding of the same initial e-graph; scripts/bench-egraph
# --sizes FILE records them): egopt must reach the same e-graph after every iteration.
EGGLOG_SIZES = {
    "lift-mm-100k": [
        (101, 55), (215, 97), (395, 163), (713, 283), (1307, 511), (2453, 955), (4703, 1831),
        (9161, 3571), (18035, 7039), (35741, 13963), (71111, 27799), (141809, 55459)
    ],
    "lift-asum-100k": [
        (35, 19), (73, 33), (133, 55), (239, 95), (437, 171), (819, 319), (1569, 611), (3055,
        1191), (6013, 2347), (11915, 4655), (23705, 9267), (47271, 18487), (94389, 36923),
        (188611, 73791)
    ],
    "lift-nbody-100k": [
        (68, 37), (144, 65), (264, 109), (476, 189), (872, 341), (1636, 637), (3136, 1221), (6108,
        2381), (12024, 4693), (23828, 9309), (47408, 18533), (94540, 36973), (188776, 73845)
    ],
}


def comb(n, k):
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def main():
    source, egopt = sys.argv[1], sys.argv[2]
    workloads = WORKLOADS[1:] if "--sanitized" in sys.argv[3:] else WORKLOADS
    with tempfile.TemporaryDirectory() as d:
        sizes_path = os.path.join(d, "sizes.json")
        run = subprocess.run([f"{source}/scripts/bench-egraph", "--egopt", egopt, "--quick",
                              "--csv", "--egopt-only", "--repeat", "1", "--sizes", sizes_path,
                              "--only", ",".join(workloads)],
                             capture_output=True, text=True, timeout=300)
        sizes = {}
        if run.returncode == 0:
            with open(sizes_path) as f:
                sizes = json.load(f)
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
        if not (iterations > 0 and 0 < classes <= nodes):
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
    for name, want in EGGLOG_SIZES.items():
        got = [tuple(x) for x in sizes.get(name, {}).get("egopt", [])]
        if name in workloads and got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                         min(len(got), len(want)))
            failures.append(f"{name}: after iteration {first + 1} egopt has "
                            f"{got[first:first + 1]} (e-nodes, e-classes), egglog "
                            f"{want[first:first + 1]} ({len(got)} and {len(want)} iterations)")
    if failures:
        sys.exit("\n".join(failures) + "\n--- output:\n" + run.stdout)
    print(run.stdout, end="")


if __name__ == "__main__":
    main()
