#!/usr/bin/env python3
"""Independent reference results for the .lift corpus in this folder.

For every corpus program NAME.lift this script writes NAME.case.json with the sizes, the inputs
(reproducible pseudo-random numbers) and the result computed here in plain Python, written from
the meaning of the Lift constructs, not from egopt's interpreter. tests/lift/test_corpus.cpp
checks egopt's interpreter (and, where "pipeline" is true, the whole compiler on PoCL) against
these files. Run it after adding a program:  python3 tests/lift/corpus/reference.py
"""
import json
import math
import os
import struct
import sys
from reference_lib import (rnd, vec, mat, cube, clamp, mirror, wrap, pad, slide, pad2, fill_like,
                           padc, padc2, padc3, slide2, pad3, window3, slide3, f32, scan,
                           reduce_while, insertion_sort, ints)

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = {}


# The programs the sanitizer run takes end to end (one small program per group of
# tests/pipeline/test_corpus.cpp; the normal run takes every "pipeline" program).
SMOKE = {"def_typed_params", "value_forms", "stencil1d_wrap", "zip2d", "zip3d", "printed_warp_maps",
         "seq_scan_rows"}


def case(name, sizes, inputs, pipeline=False, tolerance=1e-4):
    def register(fn):
        CASES[name] = (sizes, inputs, fn, pipeline, tolerance)
        return fn
    return register



# ---------------------------------------------------------------- Scala constructs
@case("block_vals", {"N": 8}, lambda s: {"xs": vec(8, 1), "ys": vec(8, 2)}, pipeline=True)
def _(s, i):
    return [x * y + 1.0 for x, y in zip(i["xs"], i["ys"])]


@case("def_typed_params", {"N": 8}, lambda s: {"xs": vec(8, 3), "w": 0.75}, pipeline=True)
def _(s, i):
    return [(x + x) * i["w"] for x in i["xs"]]


def neighbours_combine(m, b):
    p = pad2(m, 1, 1, 1, 1, b)
    return [[p[r][c + 1] - p[r + 1][c] + 2.0 * p[r + 1][c + 1] for c in range(len(m[0]))]
            for r in range(len(m))]


@case("def_tuple_destructure", {"M": 5, "N": 4}, lambda s: {"input": mat(4, 5, 4)}, pipeline=True)
def _(s, i):
    return neighbours_combine(i["input"], clamp)


@case("lambda_forms", {"N": 8}, lambda s: {"xs": vec(8, 5)}, pipeline=True)
def _(s, i):
    return [-((2.0 * x) ** 2 + 1.0) for x in i["xs"]]


@case("sizevar_names", {"R": 3, "C": 2}, lambda s: {"m": mat(3, 2, 6), "v": vec(4, 7)},
      pipeline=True)
def _(s, i):
    return [[x * y for x in row for y in i["v"]] for row in i["m"]]


@case("comments_commas", {"N": 8}, lambda s: {"xs": vec(8, 8), "ys": vec(8, 9), "s": 1.5},
      pipeline=True)
def _(s, i):
    return [a * i["s"] + b for a, b in zip(i["xs"], i["ys"])]


@case("type_getlength", {"N": 8}, lambda s: {"xs": vec(8, 10), "ws": [0.25, 0.5, 0.25]},
      pipeline=True)
def _(s, i):
    w = slide(pad(i["xs"], 1, 1, clamp), 3, 1)
    return [[sum(a * b for a, b in zip(win, i["ws"]))] for win in w]


@case("literal_arith", {"N": 8}, lambda s: {"xs": vec(8, 11)}, pipeline=True)
def _(s, i):
    return [0.25 * (x * 2.0) + 2.0 for x in i["xs"]]


@case("def_helper_arrays", {"N": 16}, lambda s: {"x": vec(16, 12), "y": vec(16, 13), "alpha": 2.5},
      pipeline=True)
def _(s, i):
    return [sum(i["alpha"] * a + b for a, b in zip(i["x"], i["y"]))]


@case("program_as_val", {"N": 16}, lambda s: {"xs": vec(16, 14)}, pipeline=True)
def _(s, i):
    return [sum(x * x for x in i["xs"])]


@case("highlevel_kmeans", {"P": 6, "C": 3, "F": 4},
      lambda s: {"features": mat(4, 6, 70), "clusters": mat(3, 4, 71)}, pipeline=True)
def _(s, i):
    out = []
    for p in range(6):
        feature = [i["features"][f][p] for f in range(4)]
        best, count, index = 3.40282347e+38, 0, 0
        for cluster in i["clusters"]:
            dist = sum((a - b) * (a - b) for a, b in zip(feature, cluster))
            best, count, index = (dist, count + 1, count) if dist < best else (best, count + 1, index)
        out.append([[index]])
    return out


# ---------------------------------------------------------------- user functions
@case("uf_concat", {"N": 8}, lambda s: {"xs": vec(8, 15)}, pipeline=True)
def _(s, i):
    return [max(-1.0, min(1.0, 3.0 * x)) for x in i["xs"]]


@case("uf_strip_margin", {"N": 8}, lambda s: {"xs": vec(8, 16), "ys": vec(8, 17)}, pipeline=True)
def _(s, i):
    return [0.5 * math.sqrt(a * a + b * b) for a, b in zip(i["xs"], i["ys"])]


def first_above(x, limit):
    v, k = abs(x), 0
    for _ in range(8):
        if v > limit:
            break
        elif v < 0.001:
            v = 0.001
        v *= 2.0
        k += 1
    return k + min(v, 100.0) * 0.01


@case("uf_define_loop", {"N": 8}, lambda s: {"xs": vec(8, 18), "limit": 3.0}, pipeline=True)
def _(s, i):
    return [first_above(x, i["limit"]) for x in i["xs"]]


@case("uf_tuple_struct", {"N": 16}, lambda s: {"xs": vec(16, 19)}, pipeline=True)
def _(s, i):
    return [[min(i["xs"]), max(i["xs"])]]


@case("uf_tuple_result", {"N": 16}, lambda s: {"xs": vec(16, 20)})
def _(s, i):
    pos = [x for x in i["xs"] if x > 0.0]
    return [[sum(pos), len(pos)]]


@case("uf_tuple3", {"N": 8}, lambda s: {"xs": vec(8, 21)}, pipeline=True)
def _(s, i):
    return [x * 2.0 + int(x * 10.0) + (1 if x > 0.0 else 0) for x in i["xs"]]


@case("value_forms", {"N": 8}, lambda s: {"xs": vec(8, 22)}, pipeline=True)
def _(s, i):
    return [1.5 + 2.0 + 0.25 + x for x in i["xs"]]


@case("library_funs", {"N": 16}, lambda s: {"xs": vec(16, 23), "ys": vec(16, 24)}, pipeline=True)
def _(s, i):
    xs, ys = i["xs"], i["ys"]
    a = sum(abs(x) for x in xs)
    b = sum(x * y for x, y in zip(xs, ys))
    return [(a + b) + (max(ys) ** 2 + min(ys))]


# ---------------------------------------------------------------- stencils
def avg3(xs, b):
    return [sum(w) / 3.0 for w in slide(pad(xs, 1, 1, b), 3, 1)]


for name, b in (("clamp", clamp), ("mirror", mirror), ("wrap", wrap)):
    case("stencil1d_" + name, {"N": 10}, lambda s: {"xs": vec(10, 25)}, pipeline=True)(
        lambda s, i, b=b: avg3(i["xs"], b))


@case("stencil1d_uneven", {"N": 10}, lambda s: {"xs": vec(10, 26)}, pipeline=True)
def _(s, i):
    return [w[3] - w[0] for w in slide(pad(i["xs"], 2, 0, clamp), 4, 2)]


@case("stencil2d_jacobi", {"M": 6, "N": 5}, lambda s: {"input": mat(5, 6, 27)}, pipeline=True)
def _(s, i):
    m = i["input"]
    p = pad2(m, 1, 1, 1, 1, clamp)
    return [[(p[r][c + 1] + p[r + 2][c + 1] + p[r + 1][c] + p[r + 1][c + 2] + p[r + 1][c + 1]) / 5.0
             for c in range(len(m[0]))] for r in range(len(m))]


@case("stencil2d_ninepoint", {"M": 6, "N": 5}, lambda s: {"input": mat(5, 6, 29)}, pipeline=True)
def _(s, i):
    m = i["input"]
    p = pad2(m, 1, 1, 1, 1, clamp)

    def at(r, c):
        return 0.0625 * (p[r][c] + p[r][c + 2] + p[r + 2][c] + p[r + 2][c + 2]) + 0.125 * (
            p[r][c + 1] + p[r + 1][c] + p[r + 1][c + 2] + p[r + 2][c + 1]) + 0.25 * p[r + 1][c + 1]
    return [[at(r, c) for c in range(len(m[0]))] for r in range(len(m))]


@case("stencil2d_hotspot", {"M": 5, "N": 4},
      lambda s: {"heat": mat(4, 5, 68), "power": mat(4, 5, 69)}, pipeline=True)
def _(s, i):
    p = pad2(i["heat"], 1, 1, 1, 1, clamp)
    out = []
    for r in range(4):
        row = []
        for c in range(5):
            top, bottom = p[r][c + 1], p[r + 2][c + 1]
            left, right, center = p[r + 1][c], p[r + 1][c + 2], p[r + 1][c + 1]
            power = i["power"][r][c]
            row.append(center + 1.365333 * (power + (bottom + top - 2.0 * center) * 0.1 +
                                            (left + right - 2.0 * center) * 0.1 +
                                            (80.0 - center) * 3.2e-4))
        out.append(row)
    return out


@case("stencil2d_mirror_sum", {"M": 5, "N": 4}, lambda s: {"input": mat(4, 5, 28)}, pipeline=True)
def _(s, i):
    w = slide2(pad2(i["input"], 1, 1, 1, 1, mirror), 3, 1, 3, 1)
    return [[[sum(sum(r) for r in win)] for win in row] for row in w]


@case("stencil2d_rect", {"M": 5, "N": 4}, lambda s: {"input": mat(4, 5, 29)}, pipeline=True)
def _(s, i):
    w = slide2(pad2(i["input"], 0, 1, 1, 1, wrap), 2, 1, 3, 1)
    return [[x[0][0] + 2.0 * x[0][2] + 3.0 * x[1][0] + 4.0 * x[1][2] for x in row] for row in w]


@case("stencil2d_step", {"M": 6, "N": 4}, lambda s: {"input": mat(4, 6, 30)}, pipeline=True)
def _(s, i):
    w = slide2(i["input"], 2, 2, 2, 2)
    return [[[0.25 * sum(sum(r) for r in t)] for t in row] for row in w]


def seven_point(a, b):
    p = pad3(a, 1, 1, 1, b)
    w = slide3(p, 3, 1, 3, 1, 3, 1)
    return [[[n[0][1][1] + n[2][1][1] + n[1][0][1] + n[1][2][1] + n[1][1][0] + n[1][1][2]
              - 6.0 * n[1][1][1] for n in row] for row in plane] for plane in w]


for name, b in (("wrap", wrap), ("clamp", clamp), ("mirror", mirror)):
    case("stencil3d_" + name, {"M": 4, "N": 3, "O": 3}, lambda s: {"mat": cube(3, 3, 4, 31)},
         pipeline=True)(lambda s, i, b=b: seven_point(i["mat"], b))


@case("stencil3d_sixarg", {"M": 7, "N": 3, "O": 2}, lambda s: {"mat": cube(2, 3, 7, 32)},
      pipeline=True)
def _(s, i):
    w = slide3(i["mat"], 1, 1, 2, 1, 3, 2)
    return [[[[sum(x for pl in n for r in pl for x in r)] for n in row] for row in plane]
            for plane in w]


@case("stencil1d_constant", {"N": 9}, lambda s: {"xs": vec(9, 60)}, pipeline=True)
def _(s, i):
    return [0.1 * w[0] + 0.2 * w[1] + 0.3 * w[2] + 0.4 * w[3]
            for w in slide(padc(i["xs"], 2, 1, 0.0), 4, 1)]


@case("stencil2d_constant", {"M": 5, "N": 4}, lambda s: {"grid": mat(4, 5, 61)}, pipeline=True)
def _(s, i):
    p = padc2(i["grid"], 1, 1, 1, 1, 2.0)
    return [[(p[r][c + 1] + p[r + 2][c + 1]) - (p[r + 1][c] + p[r + 1][c + 2])
             for c in range(5)] for r in range(4)]


@case("stencil2d_constant_rect", {"M": 4, "N": 3}, lambda s: {"grid": mat(3, 4, 62)},
      pipeline=True)
def _(s, i):
    w = slide2(padc2(i["grid"], 0, 1, 1, 0, -1.0), 2, 1, 2, 1)
    return [[x[0][0] * x[1][1] + x[0][1] for x in row] for row in w]


@case("stencil3d_constant", {"M": 4, "N": 3, "O": 3}, lambda s: {"mat": cube(3, 3, 4, 63)},
      pipeline=True)
def _(s, i):
    p = padc3(i["mat"], 1, 1, 1, 0.5)
    w = slide3(p, 3, 1, 3, 1, 3, 1)
    return [[[n[0][1][1] + n[2][1][1] + n[1][0][1] + n[1][2][1] + n[1][1][0] + n[1][1][2]
              - 6.0 * n[1][1][1] for n in row] for row in plane] for plane in w]


@case("zip2d", {"M": 3, "N": 4}, lambda s: {"a": mat(4, 3, 33), "b": mat(4, 3, 34)}, pipeline=True)
def _(s, i):
    return [[x - y for x, y in zip(r, q)] for r, q in zip(i["a"], i["b"])]


@case("zip3d", {"M": 3, "N": 2, "O": 2},
      lambda s: {"a": cube(2, 2, 3, 35), "b": cube(2, 2, 3, 36), "c": cube(2, 2, 3, 37)},
      pipeline=True)
def _(s, i):
    return [[[x * y + z for x, y, z in zip(r1, r2, r3)] for r1, r2, r3 in zip(p1, p2, p3)]
            for p1, p2, p3 in zip(i["a"], i["b"], i["c"])]


# ---------------------------------------------------------------- generators
@case("generator_1d", {"N": 8}, lambda s: {"xs": vec(8, 65)}, pipeline=True)
def _(s, i):
    n = len(i["xs"])
    return [x * (k / n) for k, x in enumerate(i["xs"])]


@case("generator_2d", {"M": 4, "N": 3}, lambda s: {"a": mat(3, 4, 66)}, pipeline=True)
def _(s, i):
    def band(r, c):
        return 1.0 if r == c else 0.5 if r + 1 == c else 0.0
    return [[x + band(r, c) for c, x in enumerate(row)] for r, row in enumerate(i["a"])]


@case("generator_3d", {"M": 4, "N": 3, "O": 2}, lambda s: {"scale": vec(4, 67)}, pipeline=True)
def _(s, i):
    o, n, m = 2, 3, 4
    sc = i["scale"]
    return [[[sum((a * n * m + b * m + k) / (o * n * m) * sc[k] for k in range(m))]
             for b in range(n)] for a in range(o)]


# ---------------------------------------------------------------- layouts
@case("layout_gather_transpose", {"N": 3}, lambda s: {"m": mat(3, 4, 38)}, pipeline=True)
def _(s, i):
    rev = [list(reversed(r)) for r in i["m"]]
    return [[-rev[r][c] for r in range(3)] for c in range(4)]


# Filter's index arrays: the pipeline validates on random inputs, whose integers are in [0, 16),
# so the indexed arrays have at least 16 elements.
@case("layout_filter", {"N": 16, "K": 4}, lambda s: {"xs": vec(16, 39), "ids": [7, 0, 13, 3]},
      pipeline=True)
def _(s, i):
    return [i["xs"][k] ** 2 for k in i["ids"]]


@case("literal_ints", {"N": 12}, lambda s: {"xs": [7, -3, 0, 12, 5, -8, 1, 4, -6, 9, 2, -1]},
      pipeline=True)
def _(s, i):
    scaled = [x * -2 + 3 for x in i["xs"]]
    return [max([-1000] + scaled) + sum(scaled) + len(i["xs"])]


@case("literal_limits", {"N": 10},
      lambda s: {"xs": vec(10, 72), "ids": [7, -3, 0, 12, 5, -8, 1, 4, -6, 9]}, pipeline=True)
def _(s, i):
    xs, ids = i["xs"], i["ids"]
    return [max(xs) + 2 * min(xs) + 4 * max(xs) + 8 * max(ids) + 16 * min(ids)]


@case("highlevel_iterate_halve", {"N": 64}, lambda s: {"xs": vec(64, 90)}, pipeline=True)
def _(s, i):
    xs = i["xs"]
    for _ in range(3):
        xs = [xs[k] + xs[k + 1] for k in range(0, len(xs), 2)]
    return [sum(xs)]


@case("literal_doubles", {"N": 16}, lambda s: {"a": vec(16, 91), "b": vec(16, 92)}, pipeline=True)
def _(s, i):
    return [2.0 * sum(x * y for x, y in zip(i["a"], i["b"]))]


def md_inputs(s):
    n, m = s["N"], s["M"]
    g = rnd(93)
    particles = [[round(4 * abs(g()), 3) for _ in range(3)] + [0.0] for _ in range(n)]
    # Neighbours other than the particle itself (a particle at distance 0 divides by zero).
    ids = [[(i + 1 + (7 * i + 3 * k) % (n - 1)) % n for k in range(m)] for i in range(n)]
    return {"particles": particles, "neighbourIds": ids, "cutsq": 4.0, "lj1": 1.5, "lj2": 2.0}


@case("highlevel_md", {"N": 16, "M": 3}, md_inputs, pipeline=True, tolerance=1e-3)
def _(s, i):
    out = []
    for pos, ids in zip(i["particles"], i["neighbourIds"]):
        f = [0.0, 0.0, 0.0, 0.0]
        for j in ids:
            q = i["particles"][j]
            d = [f32(pos[k] - q[k]) for k in range(3)]
            r2 = f32(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
            if r2 < i["cutsq"]:
                r2inv = f32(1.0 / r2)
                r6inv = f32(r2inv * r2inv * r2inv)
                force = f32(r2inv * r6inv * (i["lj1"] * r6inv - i["lj2"]))
                f = [f32(f[k] + d[k] * force) for k in range(3)] + [f[3]]
        out.append([f])
    return out


def mriq_inputs(s):
    g = rnd(96)
    return {"x": vec(s["X"], 97), "y": vec(s["X"], 98), "z": vec(s["X"], 99),
            "kValues": [[g(), g(), g(), g()] for _ in range(s["K"])]}


@case("highlevel_mriq", {"X": 8, "K": 6}, mriq_inputs, pipeline=True, tolerance=1e-3)
def _(s, i):
    out = []
    for sx, sy, sz in zip(i["x"], i["y"], i["z"]):
        re, im = 0.0, 0.0
        for kx, ky, kz, phi in i["kValues"]:
            arg = f32(6.2831853071795864769252867665590058 * f32(kx * sx + ky * sy + kz * sz))
            re, im = f32(re + phi * math.cos(arg)), f32(im + phi * math.sin(arg))
        out.append([[re, im]])
    return out


def transpose_index(outer, inner):
    # IndexFunction.transposeFunction(outer, inner) of Lift's ir.ast.IndexFunction.
    return lambda i: i // inner + (i % inner) * outer


@case("layout_transpose_function", {"N": 4, "M": 6}, lambda s: {"m": mat(4, 6, 100)},
      pipeline=True)
def _(s, i):
    n, m = s["N"], s["M"]
    flat = [x for row in i["m"] for x in row]
    read = transpose_index(n, m)
    gathered = [flat[read(k)] + 1.0 for k in range(n * m)]
    write = transpose_index(m, n)
    scattered = [None] * (n * m)
    for k, x in enumerate(gathered):
        scattered[write(k)] = x
    return [[sum(scattered[r * n:(r + 1) * n])] for r in range(m)]


@case("highlevel_spmv", {"N": 6, "M": 3, "K": 16},
      lambda s: {"ids": [[(5 * r + 3 * k) % 16 for k in range(3)] for r in range(6)],
                 "vals": mat(6, 3, 94), "x": vec(16, 95)}, pipeline=True)
def _(s, i):
    return [[sum(i["x"][c] * v for c, v in zip(ids, vals))]
            for ids, vals in zip(i["ids"], i["vals"])]


@case("uf_scala_fun", {"N": 16}, lambda s: {"xs": vec(16, 96)}, pipeline=True)
def _(s, i):
    return [sum(2.0 * x for x in i["xs"])]


@case("layout_head_tail", {"N": 12}, lambda s: {"xs": vec(12, 70)}, pipeline=True)
def _(s, i):
    xs = i["xs"]
    total = xs[0] + sum(xs[1:])
    return [x * xs[1] + total for x in xs[1:]]


@case("layout_index_access", {"N": 16},
      lambda s: {"xs": vec(16, 74), "ids": [3, 15, 0, 7, 7, 12, 1, 9, 4, 4, 14, 2, 11, 6, 10, 5]},
      pipeline=True)
def _(s, i):
    xs = i["xs"]
    return [2.0 * xs[k] + xs[0] for k in i["ids"]]


@case("layout_stride", {"N": 16}, lambda s: {"xs": vec(16, 40)}, pipeline=True)
def _(s, i):
    out = []
    for c in range(0, 16, 8):
        chunk = i["xs"][c:c + 8]
        # ReorderWithStride(2) on 8 elements: element j reads (j * 2) % 8 + (j * 2) // 8
        out += [chunk[(j % 4) * 2 + j // 4] for j in range(8)]
    return [4.0 * x for x in out]


@case("layout_unzip", {"N": 8}, lambda s: {"xs": vec(8, 41), "ys": vec(8, 42)}, pipeline=True)
def _(s, i):
    return [2.0 * x + y for x, y in zip(i["xs"], i["ys"])]


@case("highlevel_gemv_block", {"M": 4, "N": 6},
      lambda s: {"mat": mat(4, 6, 43), "x": vec(6, 44), "y": vec(4, 45), "alpha": 1.5,
                 "beta": -0.5}, pipeline=True)
def _(s, i):
    return [i["alpha"] * sum(a * b for a, b in zip(row, i["x"])) + i["beta"] * y
            for row, y in zip(i["mat"], i["y"])]


# ---------------------------------------------------------------- printed low-level form
def mm(a_t, b):
    # p_0: [[F]M]K (A transposed), p_1: [[F]N]K; result [M][N][1]
    k, m, n = len(a_t), len(a_t[0]), len(b[0])
    return [[[sum(a_t[x][r] * b[x][c] for x in range(k))] for c in range(n)] for r in range(m)]


@case("printed_mm_implicit", {"M": 3, "N": 4, "K": 5},
      lambda s: {"p_0": mat(5, 3, 46), "p_1": mat(5, 4, 47)})
def _(s, i):
    return mm(i["p_0"], i["p_1"])


@case("printed_asum_vnames", {"N": 128}, lambda s: {"p_0": vec(128, 48)})
def _(s, i):
    xs = i["p_0"]
    return [sum(abs(x) for x in xs[c:c + 4]) for c in range(0, 128, 4)]


@case("printed_tuning_vars", {"N": 32, "v__1": 8, "v__2": 4},
      lambda s: {"p_0": vec(32, 49), "p_1": vec(32, 50)})
def _(s, i):
    prods = [a * b for a, b in zip(i["p_0"], i["p_1"])]
    return [sum(prods[c:c + 4]) for c in range(0, 32, 4)]


@case("printed_tuple_id", {"N": 6}, lambda s: {"p_0": vec(6, 51), "p_1": vec(6, 52)})
def _(s, i):
    return [[a, b] for a, b in zip(i["p_0"], i["p_1"])]


@case("printed_vector", {"N": 16}, lambda s: {"p_0": vec(16, 53)})
def _(s, i):
    return [x + 1.0 for x in i["p_0"]]


@case("printed_local_mem", {"N": 32}, lambda s: {"p_0": vec(32, 54)})
def _(s, i):
    return [x * x for x in i["p_0"]]


@case("printed_unroll", {"N": 32}, lambda s: {"p_0": vec(32, 64)})
def _(s, i):
    xs = i["p_0"]
    return [sum(x * x for x in xs[c:c + 4]) for c in range(0, 32, 4)]


@case("printed_mapseqslide", {"N": 18}, lambda s: {"xs": vec(18, 71)})
def _(s, i):
    xs = i["xs"]
    chunks = [xs[c:c + 6] for c in range(0, 18 - 6 + 1, 4)]
    return [sum(ch[j:j + 3]) for ch in chunks for j in range(4)]


@case("printed_atomic_maps", {"N": 32}, lambda s: {"xs": vec(32, 73)}, pipeline=True)
def _(s, i):
    return [x * x for x in i["xs"]]


def c_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


@case("uf_local_array", {"N": 16},
      lambda s: {"xs": vec(16, 80), "ks": [3, 0, 1, 2, 7, 11, 4, 5, 6, 9, 13, 38, 15, 21, 26, 8]},
      pipeline=True)
def _(s, i):
    out = []
    for x, k in zip(i["xs"], i["ks"]):
        acc = [w * x ** j for j, w in enumerate([0.5, -1.0, 2.0, 0.25])]
        sel = k & 3
        if sel == 0:
            r = acc[0] + acc[1] * 3.0
        elif sel == 1:
            r = acc[2] + acc[3]  # falls through into case 2
        elif sel == 2:
            r = acc[3]
        else:
            v = (k >> 1) ^ 0x5
            r = float(v - 7 * c_div(v, 7))
        out.append(r)
    return out


@case("layout_checked_access", {"N": 16},
      lambda s: {"xs": vec(16, 81), "ids": [3, -1, 15, 16, 0, 100, 7, -7, 12, 1, 9, 4, 4, 14, 2,
                                            -2147483648]},
      pipeline=True)
def _(s, i):
    xs = i["xs"]

    def at(k, default):
        return xs[k] if 0 <= k < len(xs) else default
    return [2.0 * at(k, 0.0) + at(k, -1.5) for k in i["ids"]]


@case("lambda_braces", {"N": 16}, lambda s: {"xs": vec(16, 82)}, pipeline=True)
def _(s, i):
    return [(x + 1.0) ** 2 * 4.0 for x in i["xs"]]


@case("printed_warp_maps", {"N": 256}, lambda s: {"xs": vec(256, 83)}, pipeline=True)
def _(s, i):
    return [x * x for x in i["xs"]]


@case("layout_search", {"N": 16, "M": 8},
      lambda s: {"sorted": [-3.5, -2.0, -1.25, 0.0, 0.5, 1.25, 2.0, 3.5, 4.0, 5.75, 7.0, 9.5, 10.0,
                            11.25, 12.5, 14.0],
                 "qs": [2.0, 3.0, 9.5, -3.5, 14.0, 0.25, 11.25, 15.0],
                 "keys": [5, 6, 0, 9, -4, 14, 12, -3]},
      pipeline=True)
def _(s, i):
    xs = i["sorted"]

    def first(pred, init):
        return next((x for x in xs if pred(x)), init)
    return [first(lambda x: x == q, -1.0) + first(lambda x: math.floor(x) == k, 100.0)
            for q, k in zip(i["qs"], i["keys"])]


@case("lambda_scala_forms", {"N": 16}, lambda s: {"xs": vec(16, 84)}, pipeline=True)
def _(s, i):
    return [x * 2.0 + 0.5 for x in reversed(i["xs"])]


@case("uf_c_forms", {"N": 16},
      lambda s: {"xs": [0.25, -0.75, 0.5, 0.999, -0.001, 1.0, -1.0, 0.3, 0.6, -0.5, 0.0, 0.75,
                        -0.25, 0.125, 0.9, -0.6],
                 "is": [0, 1, 7, -1, 123456, -98765, 42, 2147483647, -2147483648, 15, 16, 255,
                        1000, 3, 99, 65]},
      pipeline=True)
def _(s, i):
    out = []
    for x, n in zip(i["xs"], i["is"]):
        h = ((0x811C9DC5 ^ (n & 0xFFFFFFFF)) * 16777619) & 0xFFFFFFFF
        k = int(x * 4.0)  # truncates toward zero, as convert_int does
        bits = struct.unpack("<I", struct.pack("<f", x))[0]
        out.append(float(h >> 28) + float(k - 65 * c_div(k, 65)) + float(n & 0xF) + (bits & 0x7))
    return out


def wrap_signed(v, bits):
    v &= (1 << bits) - 1
    return v - (1 << bits) if v >= 1 << (bits - 1) else v


@case("uf_unsigned_widths", {"N": 16},
      lambda s: {"ks": [0, 1, 255, 256, -1, 33, 40, -40, 1000, 7, 12, 99, 200, -129, 31, 64]},
      pipeline=True)
def _(s, i):
    out = []
    for k in i["ks"]:
        h = ((14695981039346656037 ^ (k & 0xFF)) * 1099511628211) % (1 << 64)
        sh = wrap_signed(k * 1000, 16)
        u = (sh - 1) & 0xFFFF
        out.append(float(h >> 52) + sh * 0.001 + float(u & 0xF))
    return out


@case("seq_scan_rows", {"N": 4, "M": 8}, lambda s: {"rows": mat(4, 8, 90)}, pipeline=True)
def _(s, i):
    return [scan(lambda a, x: a + x, 0.0, row) for row in i["rows"]]


@case("seq_scan_tuples", {"N": 3, "M": 6}, lambda s: {"rows": mat(3, 6, 91)}, pipeline=True)
def _(s, i):
    return [[t[0] for t in scan(lambda a, x: (a[0] * x + a[1], a[1] + 1.0), (0.5, 1.0), row)]
            for row in i["rows"]]


# Rows of |x| summing past 1.5 at different places, and one that never does.
@case("seq_while_rows", {"N": 4, "M": 6},
      lambda s: {"rows": [[0.5, 0.75, 0.5, -0.25, 0.125, 0.0],
                          [-0.25, 0.125, 0.25, -0.125, 0.5, 0.125],
                          [1.75, 0.25, 0.125, 0.0, 0.5, 0.25],
                          [0.25, -0.5, 0.5, 0.125, 0.5, -0.75]]},
      pipeline=True)
def _(s, i):
    return [reduce_while(lambda a, x: a + abs(x), 0.0, lambda a, x: a + abs(x) < 1.5, row)[0]
            for row in i["rows"]]


@case("seq_while_never", {"N": 16}, lambda s: {"xs": vec(16, 92)}, pipeline=True)
def _(s, i):
    return reduce_while(lambda a, x: a + x, 0.0, lambda a, x: math.isfinite(a + x), i["xs"])


@case("seq_sort_floats", {"N": 12}, lambda s: {"xs": vec(12, 93)}, pipeline=True)
def _(s, i):
    return insertion_sort(lambda a, b: a < b, i["xs"])


@case("seq_sort_rows_int", {"N": 3, "M": 7}, lambda s: {"rows": ints(3, 7, 94)}, pipeline=True)
def _(s, i):
    return [insertion_sort(lambda a, b: a > b, row) for row in i["rows"]]


def main():
    names = sys.argv[1:] or sorted(CASES)
    for name in names:
        sizes, inputs, fn, pipeline, tolerance = CASES[name]
        data = inputs(sizes)
        doc = {"sizes": sizes, "inputs": data, "expected": fn(sizes, data), "pipeline": pipeline,
               "smoke": name in SMOKE,
               "tolerance": tolerance}
        with open(os.path.join(HERE, name + ".case.json"), "w") as out:
            json.dump(doc, out)
            out.write("\n")
    missing = [f[:-5] for f in os.listdir(HERE) if f.endswith(".lift") and f[:-5] not in CASES]
    if missing:
        print("no reference for: " + ", ".join(sorted(missing)), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
