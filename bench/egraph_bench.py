#!/usr/bin/env python3
"""E-graph engine throughput, egopt next to egglog on the same workloads (scripts/bench-egraph).

Each (workload, system) pair runs in its own process, so peak RSS is that run's alone:
  egopt   `egopt saturate` on the workload's .lift program and rule file (no backoff scheduler,
          since egglog's default schedule has none; the saturated e-graph is the same either way)
  egglog  this script with --egglog-worker, in the venv that scripts/bench-egraph sets up

Workloads (docs/egraph-performance.md, "Throughput: egopt next to egglog"):
  arith-n         commutativity, associativity and distributivity over an n-term sum
  rules-P-100k    egopt alone: core, algorithmic and OpenCL rules on P (mm, asum, nbody) up to
                  100k e-nodes (not with --quick)
  lift-P-L        the Lift rules of bench/egraph/split-join.rules (structural.rules and split-join
                  with split sizes 2 and 4) on program P (mm, asum, nbody from examples/), whole
                  iterations until the e-graph holds L e-nodes (100k, 1M; LIFT_ITERATIONS);
                  egglog gets the same initial e-graph (egopt's --dump-egraph before any
                  iteration, De Bruijn variables and all) over a datatype with one constructor
                  per Lift operator, and the same rules

After each workload both sides ran, a line on stderr says whether they had the same e-graph
after every iteration (the same e-nodes and e-classes; on arith egopt's two user-function
e-nodes more); the exit code is 1 if any differs.

Rows: workload,system,iterations,enodes,eclasses,seconds,enodes_per_s,bytes_per_enode,peak_rss_mb
  iterations      egglog runs `(run 1)` until an iteration changes nothing, as egopt counts,
                  or until the row's iteration count
  seconds         the saturation loop only (egopt: the sum of its iteration times; egglog: the
                  `run` commands), not parsing or start-up; with --repeat N (default 5) each
                  system runs N times, the systems taking turns, and the row is its median run
  bytes_per_enode egopt: bytes of e-graph data as EGraph::memoryBytes counts them (container
                  capacities, hash-map entries and buckets) / e-nodes; egglog: the growth of the
                  process's peak RSS over saturation / e-nodes (it exposes no byte count)
"""
import argparse
import collections
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
EGOPT_ARITH_RULES = os.path.join(ROOT, "tests", "egraph", "data", "sum.rules")

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


# --- workload (b): Lift programs under structural rules and split-join with constant sizes

LIFT_PROGRAMS = [("mm", "examples/mm.lift"), ("asum", "examples/asum.lift"),
                 ("nbody", "examples/nbody.lift")]
# The e-graphs double in size every iteration. A row with node limit L runs whole iterations
# until the e-graph holds at least L e-nodes, as egglog checks a limit (between iterations);
# egopt would stop inside the iteration that crosses it (between applications) and go on while
# rebuilding leaves it below, so both run this many iterations with no node limit instead
# (check_limit_iterations says if a count no longer fits its limit).
LIFT_ITERATIONS = {("mm", 100_000): 12, ("asum", 100_000): 14, ("nbody", 100_000): 13,
                   ("mm", 1_000_000): 15, ("asum", 1_000_000): 17, ("nbody", 1_000_000): 16}
LIFT_RULES = os.path.join(ROOT, "bench", "egraph", "split-join.rules")

# The operator names of e-node labels (lift::opName), as --dump-egraph writes them.
LIFT_OPS = set("""Map MapSeq MapGlb MapWrg MapLcl MapVec Reduce ReduceSeq PartRed Iterate toGlobal
    toLocal toPrivate Gather Scatter VectorizeUserFun ReorderWithStride reverse shift Split Join
    Transpose TransposeW Zip Unzip Tuple Get asVector asScalar Slide Pad At Filter id Reorder
    ArrayFromUserFunGenerator""".split())

# bench/egraph/split-join.rules (structural.rules and the two split-joins) for egglog, rule for
# rule. A Lift e-node (operator, integer, attribute, children) is the constructor o<operator>
# with the label's arguments as one String (the sizes and the integer as --dump-egraph prints
# them: Split "N", MapGlb "0", Get "1") and its child e-classes; an application with k
# arguments is oAppk.
EGGLOG_LIFT_RULES = """\
(rewrite (oApp1 (oJoin) (oApp1 (oSplit n) x)) x)
(rewrite (oApp1 (oid) x) x)
(rewrite (oApp1 (oMap (oid)) x) x)
(rewrite (oApp1 (oReorder) x) x)
(rewrite (oApp1 (oTranspose) (oApp1 (oTranspose) x)) x)
(rewrite (oApp1 (oTransposeW) x) (oApp1 (oTranspose) x))
(rewrite (oApp1 (oUnzip) (oApp2 (oZip) a b)) (oApp2 (oTuple) a b))
(rewrite (oApp1 (oGet "0") (oApp2 (oTuple) a b)) a)
(rewrite (oApp1 (oGet "1") (oApp2 (oTuple) a b)) b)
(birewrite (oApp1 (oMap f) (oApp1 (oReorder) x)) (oApp1 (oReorder) (oApp1 (oMap f) x)))
(birewrite (oApp1 (oMap f) (oApp1 (oGather r) x)) (oApp1 (oGather r) (oApp1 (oMap f) x)))
(birewrite (oApp1 (oMap f) (oApp1 (oScatter r) x)) (oApp1 (oScatter r) (oApp1 (oMap f) x)))
(rewrite (oApp1 (oJoin) (oApp1 (oMap (oMap f)) (oApp1 (oSplit n) x))) (oApp1 (oMap f) x))
(birewrite (oApp1 (oSplit n) (oApp1 (oMap f) x)) (oApp1 (oMap (oMap f)) (oApp1 (oSplit n) x)))
(birewrite (oApp1 (oJoin) (oApp1 (oMap (oMap f)) x)) (oApp1 (oMap f) (oApp1 (oJoin) x)))
(birewrite (oApp1 (oTranspose) (oApp1 (oMap (oMap f)) x)) (oApp1 (oMap (oMap f)) (oApp1 (oTranspose) x)))
(birewrite (oMap f) (oMapGlb "0" f))
(birewrite (oMap f) (oMapGlb "1" f))
(birewrite (oMap f) (oMapGlb "2" f))
(birewrite (oMap f) (oMapWrg "0" f))
(birewrite (oMap f) (oMapWrg "1" f))
(birewrite (oMap f) (oMapWrg "2" f))
(birewrite (oMap f) (oMapLcl "0" f))
(birewrite (oMap f) (oMapLcl "1" f))
(birewrite (oMap f) (oMapLcl "2" f))
(birewrite (oMap f) (oMapSeq f))
(birewrite (oReduce f) (oReduceSeq f))
(rewrite (oApp1 (oMap f) x) (oApp1 (otoGlobal (oMap f)) x))
(rewrite (oApp1 (oMap f) x) (oApp1 (otoLocal (oMap f)) x))
(rewrite (oApp1 (oMap f) x) (oApp1 (otoPrivate (oMap f)) x))
(rewrite (oApp1 (otoGlobal f) x) (oApp1 f x))
(rewrite (oApp1 (otoLocal f) x) (oApp1 f x))
(rewrite (oApp1 (otoPrivate f) x) (oApp1 f x))
(rewrite (oApp1 (oMap f) x) (oApp1 (oJoin) (oApp1 (oMap (oMap f)) (oApp1 (oSplit "2") x))))
(rewrite (oApp1 (oMap f) x) (oApp1 (oJoin) (oApp1 (oMap (oMap f)) (oApp1 (oSplit "4") x))))
"""

# Constructors the rules use: name -> (String arguments, children).
EGGLOG_RULE_CONSTRUCTORS = {
    "oApp1": (0, 2), "oApp2": (0, 3), "oJoin": (0, 0), "oSplit": (1, 0), "oid": (0, 0),
    "oMap": (0, 1), "oReorder": (0, 0), "oTranspose": (0, 0), "oTransposeW": (0, 0),
    "oUnzip": (0, 0), "oZip": (0, 0), "oTuple": (0, 0), "oGet": (1, 0), "oGather": (0, 1),
    "oScatter": (0, 1), "oMapGlb": (1, 1), "oMapWrg": (1, 1), "oMapLcl": (1, 1),
    "oMapSeq": (0, 1), "oReduce": (0, 1), "oReduceSeq": (0, 1), "otoGlobal": (0, 1),
    "otoLocal": (0, 1), "otoPrivate": (0, 1)}


def egglog_constructor(label, children, type_text):
    """The egglog constructor and String arguments of an e-node label of --dump-egraph."""
    if label == "$":
        return f"oApp{children - 1}", []
    if m := re.fullmatch(r"%(\d+)", label):
        return "oParam", [m.group(1), type_text]  # a De Bruijn variable and its type
    if (m := re.fullmatch(r"fun(\d+)", label)) and children == 1:
        return "oLam", [m.group(1), type_text]  # arity; the class's signature (parameter types)
    m = re.fullmatch(r"([A-Za-z][A-Za-z0-9]*)(?:\((.*)\))?", label)
    if m and m.group(1) in LIFT_OPS:
        return "o" + m.group(1), [] if m.group(2) is None else [m.group(2)]
    if children == 0:
        if "->" in type_text:
            return "oUserFun", [label]
        return "oLit", [label, type_text]
    raise ValueError(f"unknown e-node label '{label}' with {children} children")


def egglog_lift_program(dump):
    """The initial e-graph of a --dump-egraph document as an egglog program: the datatype, the
    rules, and one let per e-class (every class holds one e-node before saturation)."""
    constructors = dict(EGGLOG_RULE_CONSTRUCTORS)
    lets = []
    nodes = sorted(dump["nodes"].items(), key=lambda kv: int(kv[1]["eclass"]))
    for key, node in nodes:
        if not key.endswith(".0") or f"{node['eclass']}.1" in dump["nodes"]:
            raise ValueError("the initial e-graph must have one e-node per class")
        cls = node["eclass"]
        kids = [k.split(".")[0] for k in node["children"]]
        name, strings = egglog_constructor(node["op"], len(kids),
                                           dump["class_data"][cls]["type"])
        shape = (len(strings), len(kids))
        if constructors.setdefault(name, shape) != shape:
            raise ValueError(f"constructor {name} used with two shapes")
        args = [json.dumps(a) for a in strings] + [f"$c{k}" for k in kids]
        lets.append(f"(let $c{cls} ({' '.join([name] + args)}))")
    sorts = " ".join(f"({name}{' String' * s}{' Expr' * c})"
                     for name, (s, c) in sorted(constructors.items()))
    return "\n".join([f"(datatype Expr {sorts})", EGGLOG_LIFT_RULES] + lets) + "\n"


def initial_dump(egopt, program):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "initial.json")
        run_child([egopt, "saturate", program, "--rules", LIFT_RULES, "--iterations", "0",
                   "--dump-egraph", path], 120)
        with open(path) as f:
            return json.load(f)


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


# A node limit that never binds: the Lift rows stop after a number of whole iterations.
NO_LIMIT = 1_000_000_000


def run_egopt(egopt, lift_text, rules_path, node_limit, iterations, threads, timeout):
    """Saturates in egopt; its own statistics give the sizes, times and bytes."""
    with tempfile.TemporaryDirectory() as d:
        lift = os.path.join(d, "w.lift")
        with open(lift, "w") as f:
            f.write(lift_text)
        cmd = [egopt, "saturate", lift, "--rules", rules_path, "--iterations", str(iterations),
               "--node-limit", str(node_limit), "--time-limit", str(timeout),
               "--memory-limit", "100G", "--match-limit", "0", "--threads", str(threads)]
        out, rss = run_measured(cmd, timeout + 60)
    iters = re.findall(r"iteration (\d+): (\d+) e-nodes, (\d+) e-classes, (\d+) bytes, "
                       r"\d+ applied, ([0-9.]+) s", out)
    final = re.search(r"final: (\d+) e-nodes, (\d+) e-classes", out)
    stop = re.search(r"stop: (.*)", out).group(1)
    seconds = sum(float(i[4]) for i in iters)
    nodes, classes = int(final.group(1)), int(final.group(2))
    return {"iterations": len(iters), "enodes": nodes, "eclasses": classes,
            "seconds": seconds, "bytes_per_enode": int(iters[-1][3]) / nodes if iters else 0,
            "peak_rss_mb": rss, "stop": stop,
            "per_iteration": [(int(i[1]), int(i[2])) for i in iters]}


def egglog_worker(program, node_limit, max_iterations):
    """In the venv: runs one egglog saturation, one iteration at a time as egopt counts them
    (the last one finds nothing new), and prints its numbers as JSON, with the e-nodes and
    e-classes after each iteration (counted outside the timed `run` commands)."""
    import egglog.bindings as eb

    g = eb.EGraph()
    g.run_program(*g.parse_program(program))
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    seconds, iterations, stop = 0.0, 0, "iteration limit"

    def sizes():
        # E-nodes: the constructors' rows without the let globals; e-classes: the distinct
        # output values of those rows (each row is an e-node, its output its e-class).
        nodes, classes = 0, set()
        for name, fn in g.freeze().functions.items():
            if name.startswith("$"):
                continue
            nodes += len(fn.rows)
            classes.update(row.output for row in fn.rows)
        return nodes, len(classes)

    per_iteration = []
    while iterations < max_iterations:
        start = time.perf_counter()
        out = g.run_program(*g.parse_program("(run 1)"))
        seconds += time.perf_counter() - start
        iterations += 1
        per_iteration.append(sizes())
        if not out[0].report.updated:
            stop = "saturated"
            break
        if per_iteration[-1][0] >= node_limit:
            stop = "node limit"
            break
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    nodes, classes = per_iteration[-1] if per_iteration else sizes()
    print(json.dumps({"iterations": iterations, "enodes": nodes, "eclasses": classes,
                      "seconds": seconds, "grown_mb": rss1 - rss0, "stop": stop,
                      "per_iteration": per_iteration}))


def run_egglog(python, program, node_limit, iterations, timeout):
    with tempfile.NamedTemporaryFile("w", suffix=".egg", delete=False) as f:
        f.write(program)
        path = f.name
    try:
        out, rss = run_measured([python, os.path.abspath(__file__), "--egglog-worker", path,
                                 "--node-limit", str(node_limit), "--iterations",
                                 str(iterations)], timeout)
    finally:
        os.unlink(path)
    r = json.loads(out)
    r["bytes_per_enode"] = r.pop("grown_mb") * 1024 * 1024 / max(1, r["enodes"])
    r["peak_rss_mb"] = rss
    r["per_iteration"] = [tuple(x) for x in r["per_iteration"]]
    return r


def check_limit_iterations(name, limit, per_iteration):
    """A Lift row's iteration count is the first whole iteration that reaches its limit."""
    nodes = [n for n, _ in per_iteration]
    if not (len(nodes) >= 2 and nodes[-2] < limit <= nodes[-1]):
        first = next((i + 1 for i, n in enumerate(nodes) if n >= limit), "more")
        print(f"bench-egraph: {name}: e-nodes per iteration {nodes}: {first} iterations reach "
              f"{limit} first, not {len(nodes)} (LIFT_ITERATIONS)", file=sys.stderr)
        sys.exit(1)


# A workload: egopt's (lift text, rules files); egglog's program (a function giving it), or
# None where egopt runs alone; whole: the row runs `iterations` whole iterations, which must be
# the first to reach `limit` e-nodes (LIFT_ITERATIONS), instead of stopping at the limit.
Workload = collections.namedtuple("Workload", "name limit iterations egopt egglog whole")


def workloads(args):
    for n in [8] if args.quick else [8, 10, 12]:
        yield Workload(f"arith-{n}", args.node_limit, 10000, (arith_lift(n), EGOPT_ARITH_RULES),
                       lambda n=n: arith_egglog(n), False)
    for limit in [100_000] if args.quick else [100_000, 1_000_000]:
        for name, path in LIFT_PROGRAMS:
            with open(os.path.join(ROOT, path)) as f:
                text = f.read()
            label = f"{limit // 1000}k" if limit < 1_000_000 else f"{limit // 1_000_000}M"
            yield Workload(f"lift-{name}-{label}", limit, LIFT_ITERATIONS[name, limit],
                           (text, LIFT_RULES), lambda path=path: egglog_lift_program(
                               initial_dump(args.egopt, os.path.join(ROOT, path))), True)
    if args.quick:
        return
    # egopt alone: the pipeline's rules, which grow without bound (no egglog encoding: docs)
    full = ",".join(os.path.join(ROOT, "rules", f) for f in
                    ("core.rules", "algorithmic.rules", "opencl.rules"))
    for name, path in LIFT_PROGRAMS:
        with open(os.path.join(ROOT, path)) as f:
            yield Workload(f"rules-{name}-100k", 100_000, 10000, (f.read(), full), None, False)


ROW_FORMAT = "%-20s %-7s %6s %9s %9s %8s %12s %10s %8s  %s"


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--egopt")
    ap.add_argument("--egglog-python", help="python of the venv that has egglog")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--csv", action="store_true")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--node-limit", type=int, default=5_000_000)
    ap.add_argument("--iterations", type=int, default=10000, help="(egglog worker)")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--only", default="", help="comma-separated workload names")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs per workload and system, interleaved; the median run's row")
    ap.add_argument("--egopt-only", action="store_true", help="skip egglog (no venv needed)")
    ap.add_argument("--sizes", metavar="FILE",
                    help="write each workload's (e-nodes, e-classes) after every iteration, "
                         "per system, as JSON")
    ap.add_argument("--egglog-worker", metavar="FILE")
    return ap.parse_args()


def print_row(args, name, system, r):
    rate = r["enodes"] / r["seconds"] if r["seconds"] > 0 else 0
    row = [name, system, r["iterations"], r["enodes"], r["eclasses"], f"{r['seconds']:.3f}",
           f"{rate:.0f}", f"{r['bytes_per_enode']:.0f}", f"{r['peak_rss_mb']:.0f}"]
    if args.csv:
        print(",".join(map(str, row)), flush=True)
    else:
        print(ROW_FORMAT % (tuple(row) + (r["stop"],)), flush=True)


def run_workload(args, workload, systems):
    """Runs one workload on its systems, --repeat times each, taking turns; prints each
    system's median row; returns {system: per-iteration (e-nodes, e-classes)}."""
    name, limit, iterations, (lift, rules), egg, whole = workload
    node_limit = NO_LIMIT if whole else limit
    program = egg() if egg and "egglog" in systems else None
    # The systems take turns, so that a change in the machine's load (other processes on a
    # shared machine) falls on both; each system's row is its median run by seconds.
    runs = {system: [] for system in (systems if egg else ("egopt",))}
    for k in range(max(1, args.repeat)):
        for system in runs:
            print(f"bench-egraph: {name} on {system} (run {k + 1} of {args.repeat})...",
                  file=sys.stderr, flush=True)
            if system == "egopt":
                r = run_egopt(args.egopt, lift, rules, node_limit, iterations, args.threads,
                              args.timeout)
            else:
                r = run_egglog(args.egglog_python, program, node_limit, iterations,
                               args.timeout)
            runs[system].append(r)
    sizes = {}
    for system, rs in runs.items():
        if len({tuple(r["per_iteration"]) for r in rs}) != 1:
            print(f"bench-egraph: {name} on {system}: sizes differ between runs",
                  file=sys.stderr)
            sys.exit(1)
        print_row(args, name, system, sorted(rs, key=lambda r: r["seconds"])[(len(rs) - 1) // 2])
        sizes[system] = rs[0]["per_iteration"]
        if whole:
            check_limit_iterations(name, limit, sizes[system])
    return sizes


def same_egraphs(name, sizes):
    """Whether egopt and egglog had the same e-nodes and e-classes after every iteration (on
    arith egopt's two user-function e-nodes, add and mult, more); says so on stderr."""
    extra = 2 if name.startswith("arith-") else 0
    egopt = sizes["egopt"]
    egglog = [(n + extra, c + extra) for n, c in sizes["egglog"]]
    same = egopt == egglog
    first = next((i for i, (a, b) in enumerate(zip(egopt, egglog)) if a != b),
                 min(len(egopt), len(egglog)))
    print(f"bench-egraph: {name}: {len(egopt)} iterations, (e-nodes, e-classes) after the last "
          f"egopt {egopt[-1:]}, egglog {sizes['egglog'][-1:]}: "
          + ("the same e-graph after every iteration" if same else
             f"DIFFERENT from iteration {first + 1} (egopt {egopt[first:first + 1]}, "
             f"egglog {sizes['egglog'][first:first + 1]})"), file=sys.stderr, flush=True)
    return same


def main():
    args = parse_args()
    if args.egglog_worker:
        with open(args.egglog_worker) as f:
            egglog_worker(f.read(), args.node_limit, args.iterations)
        return
    only = set(filter(None, args.only.split(",")))
    chosen = [w for w in workloads(args) if not only or w.name in only]
    if unknown := only - {w.name for w in chosen}:
        print(f"bench-egraph: unknown workload(s) {', '.join(sorted(unknown))}"
              f"{' (or not in --quick)' if args.quick else ''}", file=sys.stderr)
        sys.exit(2)
    cols = ["workload", "system", "iterations", "enodes", "eclasses", "seconds", "enodes_per_s",
            "bytes_per_enode", "peak_rss_mb"]
    if args.csv:
        print(",".join(cols), flush=True)
    else:
        print(ROW_FORMAT % (tuple(cols) + ("stop",)), flush=True)
    systems = ("egopt",) if args.egopt_only else ("egopt", "egglog")
    differ, all_sizes = [], {}
    for workload in chosen:
        sizes = all_sizes[workload.name] = run_workload(args, workload, systems)
        if len(sizes) == 2 and not same_egraphs(workload.name, sizes):
            differ.append(workload.name)
    if args.sizes:
        with open(args.sizes, "w") as f:
            json.dump(all_sizes, f, indent=1)
    if differ:
        print(f"bench-egraph: egopt and egglog differ on {', '.join(differ)}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
