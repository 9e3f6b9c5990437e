#!/usr/bin/env python3
"""Plots scripts/bench results: egopt / CLBlast / cuBLAS / copy per kernel, one PNG.

    python3 bench/plot_bench.py --title "H100, 2026-11-23" -o docs/bench-h100.png \
        egopt_bench.csv [cublas.csv ...]

Each input is a CSV printed by `bench/egopt_bench --csv` (or `scripts/bench --csv`) or by
bench/cublas_anchor.py: blank-line separated tables whose header names the columns
(kernel,device,<impl>_gbps|<impl>_gflops,...). Tables are joined on the kernel tag. The left
panel shows GB/s for the bandwidth-bound kernels, the right panel GFLOP/s for mm. Needs matplotlib.
"""
import argparse
import csv
import io
import sys
from datetime import date

IMPLS = [("egopt", "#1f77b4"), ("clblast", "#ff7f0e"), ("cublas", "#2ca02c"), ("copy", "#7f7f7f")]


def read_tables(path, devices):
    """Yields (unit, {kernel: {impl: value}}) for each table in a CSV file; adds the device
    column's values to `devices`."""
    blocks = []  # a table starts at each header line (kernel,...), blank line or not
    with open(path, encoding="utf-8") as f:
        for line in f.read().splitlines():
            if line.startswith("kernel,"):
                blocks.append([line])
            elif "," in line and blocks:
                blocks[-1].append(line)
    for lines in blocks:
        reader = csv.DictReader(io.StringIO("\n".join(lines)))
        table = {}
        unit = None
        for row in reader:
            values = {}
            for column, cell in row.items():
                for suffix in ("_gbps", "_gflops"):
                    if column and column.endswith(suffix) and cell not in (None, "", "nan", "-"):
                        unit = suffix
                        values[column[: -len(suffix)]] = float(cell)
            table[row["kernel"]] = values
            devices.add(row.get("device") or "")
        if unit:
            yield unit, table


def merge(paths, devices):
    merged = {"_gbps": {}, "_gflops": {}}
    for path in paths:
        for unit, table in read_tables(path, devices):
            for kernel, values in table.items():
                merged[unit].setdefault(kernel, {}).update(values)
    return merged


def bars(ax, table, ylabel):
    kernels = list(table)
    width = 0.8 / len(IMPLS)
    for i, (impl, color) in enumerate(IMPLS):
        xs, ys = [], []
        for k, kernel in enumerate(kernels):
            if impl in table[kernel]:
                xs.append(k + (i - (len(IMPLS) - 1) / 2) * width)
                ys.append(table[kernel][impl])
        if xs:
            ax.bar(xs, ys, width, label=impl, color=color)
    ax.set_xticks(range(len(kernels)))
    ax.set_xticklabels(kernels, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_yscale("log")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--title", default="", help="default: the device column, and the date")
    parser.add_argument("csv", nargs="+")
    args = parser.parse_args()
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_bench: matplotlib is not installed (pip install matplotlib)")
    devices = set()
    merged = merge(args.csv, devices)
    gbps = {k: v for k, v in merged["_gbps"].items() if k not in merged["_gflops"]}
    gflops = merged["_gflops"]
    if not gbps and not gflops:
        sys.exit("plot_bench: no rates found in " + ", ".join(args.csv))
    panels = [(t, label) for t, label in ((gbps, "GB/s"), (gflops, "GFLOP/s")) if t]
    ratios = [max(len(t), 2) for t, _ in panels]
    fig, axes = plt.subplots(1, len(panels), figsize=(4 + sum(ratios) * 0.9, 4.5),
                             gridspec_kw={"width_ratios": ratios}, squeeze=False)
    for ax, (table, label) in zip(axes[0], panels):
        bars(ax, table, label)
    title = args.title or ", ".join(sorted(d for d in devices if d))
    fig.suptitle(f"{title} ({date.today().isoformat()})")
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print(f"plot_bench: wrote {args.output}")


if __name__ == "__main__":
    main()
