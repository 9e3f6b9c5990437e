#!/usr/bin/env python3
"""E-graph engine throughput, egopt next to egglog on the same workloads (scripts/bench-egraph).

Each (workload, system) pair runs in its own process, so peak RSS is that run's alone:
  egopt   `egopt saturate` on a generated .lift program and rule file (no backoff scheduler,
          since egglog's default schedule has none; the saturated e-graph is the same either way)
  egglog  this script with --egglog-worker, in the venv that scripts/bench-egraph sets up

Rows: workload,system,iterations,enodes,eclasses,seconds,enodes_per_s,bytes_per_enode,peak_rss_mb
  seconds         the saturation loop only (egopt: the sum of its iteration times; egglog: the
                  `run` command), not parsing or start-up
  bytes_per_enode egopt: bytes of e-graph data as EGraph::memoryBytes counts them (container
                  capacities, hash-map entries and buckets) / e-nodes; egglog: the growth of the
                  process's peak RSS over saturation / e-nodes (it exposes no byte count)
"""
import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

# --- workload (a): commutativity, associativity and distributivity over an n-term sum
# sum_i x_i * y, left-nested: ((x0*y + x1*y) + x2*y) + ...  With these rules the saturated
# e-graph holds every sum of a subset of the terms, in every bracketing and order, and each
# such sum also as y times the sum of its x's; it is finite (about 2 * 3^n e-nodes).

# The egopt rules are tests/egraph/data/sum.rules (test_search.cpp checks the saturated size
# against the closed form that egglog reaches with the rules below).
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
with open(os.path.join(ROOT, "tests", "egraph", "data", "sum.rules")) as f:
    EGOPT_ARITH_RULES = f.read()

EGGLOG_ARITH_RULES = """\
(datatype Math (Add Math Math) (Mul Math Math) (V String))
(rewrite (Add a b) (Add b a))
(rewrite (Mul a b) (Mul b a))
(birewrite (Add (Add a b) c) (Add a (Add b c)))
(birewrite (Mul (Mul a b) c) (Mul a (Mul b c)))
(birewrite (Mul a (Add b c)) (Add (Mul a b) (Mul a c)))
"""


def arith_lift(n):
    params = [f"x{i}" for i in range(n)] + ["y"]
    term = f"mult(x0, y)"
    for i in range(1, n):
        term = f"add({term}, mult(x{i}, y))"
    types = ", ".join(["Float"] * len(params))
    return f"fun({types}, ({', '.join(params)}) => {term})\n"


def arith_egglog(n):
    term = '(Mul (V "x0") (V "y"))'
    for i in range(1, n):
        term = f'(Add {term} (Mul (V "x{i}") (V "y")))'
    return EGGLOG_ARITH_RULES + f"(let $e {term})\n"


# --- runners

def run_child(cmd, timeout):
    """Runs cmd; returns (stdout, peak RSS in MB of that child)."""
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"time-out after {timeout} s: {' '.join(cmd)}")
    # wait4 was done by communicate; the children's maximum is that of the largest child so
    # far, so each run is measured by a fresh helper process (run_measured below).
    if proc.returncode != 0:
        raise RuntimeError(f"exit {proc.returncode}: {' '.join(cmd)}\n{err[-2000:]}")
    return out, time.time() - start


def run_measured(cmd, timeout):
    """Runs cmd under a fresh Python process that reports the child's peak RSS (ru_maxrss of
    RUSAGE_CHILDREN is a maximum over all children ever waited for, so one child per helper)."""
    helper = (
        "import resource, subprocess, sys, json\n"
        "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024\n"
        "print(json.dumps({'rc': p.returncode, 'out': p.stdout, 'err': p.stderr[-2000:],"
        " 'rss': rss}))\n"
    )
    out, _ = run_child([sys.executable, "-c", helper] + cmd, timeout)
    r = json.loads(out)
    if r["rc"] != 0:
        raise RuntimeError(f"exit {r['rc']}: {' '.join(cmd)}\n{r['err']}")
    return r["out"], r["rss"]


def run_egopt(egopt, lift_text, rules_text, args, timeout):
    with tempfile.TemporaryDirectory() as d:
        lift = os.path.join(d, "w.lift")
        rules = os.path.join(d, "w.rules")
        with open(lift, "w") as f:
            f.write(lift_text)
        with open(rules, "w") as f:
            f.write(rules_text)
        cmd = [egopt, "saturate", lift, "--rules", rules, "--iterations", "10000",
               "--node-limit", str(args.node_limit), "--time-limit", str(timeout),
               "--memory-limit", "100G", "--match-limit", "0", "--threads",
               str(args.threads)]
        out, rss = run_measured(cmd, timeout + 60)
    iters = re.findall(r"iteration (\d+): (\d+) e-nodes, (\d+) e-classes, (\d+) bytes, "
                       r"\d+ applied, ([0-9.]+) s", out)
    final = re.search(r"final: (\d+) e-nodes, (\d+) e-classes", out)
    stop = re.search(r"stop: (.*)", out).group(1)
    seconds = sum(float(i[4]) for i in iters)
    nodes, classes = int(final.group(1)), int(final.group(2))
    return {"iterations": len(iters), "enodes": nodes, "eclasses": classes,
            "seconds": seconds, "bytes_per_enode": int(iters[-1][3]) / nodes if iters else 0,
            "peak_rss_mb": rss, "stop": stop}


def egglog_worker(program, node_limit):
    """In the venv: runs one egglog saturation and prints its numbers as JSON."""
    import egglog.bindings as eb

    g = eb.EGraph()
    g.run_program(*g.parse_program(program))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    out = g.run_program(*g.parse_program("(run 10000)"))
    seconds = time.perf_counter() - start
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    iterations = len(out[0].report.iterations)
    sizes = g.run_program(*g.parse_program("(print-size)"))[0].sizes
    nodes = sum(n for name, n in sizes if not name.startswith("$"))
    # E-classes: the distinct output values of the constructors' rows (each row is an e-node;
    # its output is its e-class).
    classes = set()
    for name, fn in g.freeze().functions.items():
        if name.startswith("$"):
            continue
        for row in fn.rows:
            classes.add(row.output)
    print(json.dumps({"iterations": iterations, "enodes": nodes, "eclasses": len(classes),
                      "seconds": seconds, "grown_mb": rss1 - rss0}))


def run_egglog(python, program, args, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".egg", delete=False) as f:
        f.write(program)
        path = f.name
    try:
        out, rss = run_measured([python, os.path.abspath(__file__), "--egglog-worker", path],
                                timeout)
    finally:
        os.unlink(path)
    r = json.loads(out)
    r["bytes_per_enode"] = r.pop("grown_mb") * 1024 * 1024 / max(1, r["enodes"])
    r["peak_rss_mb"] = rss
    r["stop"] = "saturated"
    return r


def workloads(quick):
    sizes = [8, 10] if quick else [8, 10, 12]
    for n in sizes:
        yield f"arith-{n}", arith_lift(n), EGOPT_ARITH_RULES, arith_egglog(n)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--egopt")
    ap.add_argument("--egglog-python", help="python of the venv that has egglog")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--node-limit", type=int, default=5_000_000)
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--egglog-worker", metavar="FILE")
    args = ap.parse_args()
    if args.egglog_worker:
        with open(args.egglog_worker) as f:
            egglog_worker(f.read(), args.node_limit)
        return
    cols = ["workload", "system", "iterations", "enodes", "eclasses", "seconds", "enodes_per_s",
            "bytes_per_enode", "peak_rss_mb"]
    if args.csv:
        print(",".join(cols), flush=True)
    else:
        print("%-10s %-7s %6s %9s %9s %8s %12s %10s %8s  %s" % (tuple(cols) + ("stop",)),
              flush=True)
    only = set(filter(None, args.only.split(",")))
    for name, lift, rules, egg in workloads(args.quick):
        if only and name not in only:
            continue
        for system in ("egopt", "egglog"):
            print(f"bench-egraph: {name} on {system}...", file=sys.stderr, flush=True)
            if system == "egopt":
                r = run_egopt(args.egopt, lift, rules, args, args.timeout)
            else:
                r = run_egglog(args.egglog_python, egg, args, args.timeout)
            rate = r["enodes"] / r["seconds"] if r["seconds"] > 0 else 0
            row = [name, system, r["iterations"], r["enodes"], r["eclasses"],
                   f"{r['seconds']:.3f}", f"{rate:.0f}", f"{r['bytes_per_enode']:.0f}",
                   f"{r['peak_rss_mb']:.0f}"]
            if args.csv:
                print(",".join(map(str, row)), flush=True)
            else:
                print("%-10s %-7s %6s %9s %9s %8s %12s %10s %8s  %s"
                      % (tuple(row) + (r["stop"],)), flush=True)


if __name__ == "__main__":
    main()
