#!/usr/bin/env python3
"""cuBLAS-class anchors through PyTorch, for issue 7's second GPU anchor.

Times, on one CUDA device, the library routine that PyTorch dispatches for each of the cases that
scripts/bench runs and prints the same CSV tables as bench/egopt_bench --csv, with a cublas_gbps
(and cublas_gflops) column, so bench/plot_bench.py can join them by kernel tag.

    python3 bench/cublas_anchor.py [--runs R] [--warmup W] TAG:PROGRAM:VAR=V,... ...

What runs for each program (fp32 throughout, TF32 off so sgemm is a true fp32 GEMM):
    scal     x.mul_(alpha)                     ATen elementwise kernel (no cuBLAS call)
    asum     torch.linalg.vector_norm(x, 1)    ATen reduction (cuBLAS has Sasum; PyTorch does
                                               not expose it)
    dot      torch.dot(x, y)                   cublasSdot
    gemv     torch.mv(A, x)                    cublasSgemv
    gesummv  torch.addmv(torch.mv(B, x), A, x) two cublasSgemv calls
    mm       torch.mm(A, B)                    cublasSgemm
Programs without a BLAS routine (blackscholes, nbody, jacobi3) print an empty cell.

Bytes and flops are counted exactly as bench/egopt_bench counts them, so the GB/s columns compare.
Times are CUDA-event spans of one call, median of --runs after --warmup calls.
"""
import argparse
import statistics
import sys


def parse_case(text):
    tag, program, sizes = text.split(":", 2)
    values = {}
    for pair in sizes.split(","):
        name, value = pair.split("=")
        values[name] = int(value)
    return tag, program, values


def workload(torch, program, s):
    """(callable, bytes, flops) for one program; None when there is no library routine."""
    dev = "cuda"
    f32 = torch.float32
    if program == "scal":
        x = torch.rand(s["N"], device=dev, dtype=f32)
        return (lambda: x.mul_(1.0)), 2 * s["N"] * 4, s["N"]
    if program == "asum":
        x = torch.rand(s["N"], device=dev, dtype=f32) - 0.5
        return (lambda: torch.linalg.vector_norm(x, 1)), s["N"] * 4, 2 * s["N"]
    if program == "dot":
        x = torch.rand(s["N"], device=dev, dtype=f32)
        y = torch.rand(s["N"], device=dev, dtype=f32)
        return (lambda: torch.dot(x, y)), 2 * s["N"] * 4, 2 * s["N"]
    if program == "gemv":
        m, n = s["M"], s["N"]
        a = torch.rand(m, n, device=dev, dtype=f32)
        x = torch.rand(n, device=dev, dtype=f32)
        return (lambda: torch.mv(a, x)), (m * n + m + n) * 4, 2 * m * n
    if program == "gesummv":
        n, k = s["N"], s["K"]
        a = torch.rand(n, k, device=dev, dtype=f32)
        b = torch.rand(n, k, device=dev, dtype=f32)
        x = torch.rand(k, device=dev, dtype=f32)
        return (lambda: torch.addmv(torch.mv(b, x), a, x)), (2 * n * k + n + k) * 4, 4 * n * k
    if program == "mm":
        m, n, k = s["M"], s["N"], s["K"]
        a = torch.rand(m, k, device=dev, dtype=f32)
        b = torch.rand(k, n, device=dev, dtype=f32)
        return (lambda: torch.mm(a, b)), (m * k + k * n + m * n) * 4, 2 * m * n * k
    return None


def median_seconds(torch, call, runs, warmup):
    for _ in range(warmup):
        call()
    torch.cuda.synchronize()
    samples = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        samples.append(start.elapsed_time(end) / 1e3)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("cases", nargs="+", help="TAG:PROGRAM:VAR=V,...")
    args = parser.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("cublas_anchor: PyTorch is not installed")
    if not torch.cuda.is_available():
        sys.exit("cublas_anchor: no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    device = torch.cuda.get_device_name(0).replace(",", " ")
    gb_rows, gflop_rows = [], []
    for text in args.cases:
        tag, program, sizes = parse_case(text)
        work = workload(torch, program, sizes)
        if work is None:
            gb_rows.append(f"{tag},{device},")
            continue
        call, nbytes, flops = work
        seconds = median_seconds(torch, call, args.runs, args.warmup)
        gb_rows.append(f"{tag},{device},{nbytes / seconds / 1e9:.3f}")
        if program == "mm":
            gflop_rows.append(f"{tag},{device},{flops / seconds / 1e9:.3f}")
        print(f"cublas_anchor: {tag} {seconds * 1e3:.4f} ms", file=sys.stderr)
        del call
        torch.cuda.empty_cache()
    print("kernel,device,cublas_gbps")
    print("\n".join(gb_rows))
    print("\nkernel,device,cublas_gflops")
    print("\n".join(gflop_rows))


if __name__ == "__main__":
    main()
