"""The meanings of Lift's views, boundaries and sequential patterns in plain Python, and the
corpus's reproducible inputs: the building blocks of reference.py's results."""
import random


def rnd(seed):
    r = random.Random(seed)
    return lambda: round(r.uniform(-1.0, 1.0), 3)


def vec(n, seed):
    g = rnd(seed)
    return [g() for _ in range(n)]


def mat(rows, cols, seed):
    g = rnd(seed)
    return [[g() for _ in range(cols)] for _ in range(rows)]


def cube(o, n, m, seed):
    g = rnd(seed)
    return [[[g() for _ in range(m)] for _ in range(n)] for _ in range(o)]


# ---- index helpers with Lift's boundary meanings
def clamp(i, n):
    return min(max(i, 0), n - 1)


def mirror(i, n):
    p = 2 * n
    m = ((i % p) + p) % p
    return m if m < n else p - 1 - m


def wrap(i, n):
    return ((i % n) + n) % n


def pad(xs, left, right, boundary):
    n = len(xs)
    return [xs[boundary(i, n)] for i in range(-left, n + right)]


def slide(xs, size, step):
    count = (len(xs) - size + step) // step
    return [xs[i * step:i * step + size] for i in range(count)]


def pad2(m, top, bottom, left, right, b):
    return pad([pad(r, left, right, b) for r in m], top, bottom, b)


def fill_like(x, c):
    return [fill_like(e, c) for e in x] if isinstance(x, list) else c


def padc(xs, left, right, c):
    f = fill_like(xs[0], c)
    return [f] * left + xs + [f] * right


def padc2(m, top, bottom, left, right, c):
    return padc([padc(r, left, right, c) for r in m], top, bottom, c)


def padc3(a, x, y, z, c):
    return padc([padc2(p, y, y, x, x, c) for p in a], z, z, c)


def slide2(m, size_r, step_r, size_c, step_c):
    rows = slide([slide(r, size_c, step_c) for r in m], size_r, step_r)
    # rows: [window of rows][row][col window] -> [row window][col window][r][c]
    out = []
    for rw in rows:
        ncol = len(rw[0])
        out.append([[rw[r][c] for r in range(len(rw))] for c in range(ncol)])
    return out


def pad3(a, x, y, z, b):
    return pad([pad2(p, y, y, x, x, b) for p in a], z, z, b)


def window3(a, i, j, k, sz, sy, sx, tz=1, ty=1, tx=1):
    return [[[a[i * tz + dz][j * ty + dy][k * tx + dx] for dx in range(sx)] for dy in range(sy)]
            for dz in range(sz)]


def slide3(a, sz, tz, sy, ty, sx, tx):
    o, n, m = len(a), len(a[0]), len(a[0][0])
    co, cn, cm = (o - sz + tz) // tz, (n - sy + ty) // ty, (m - sx + tx) // tx
    return [[[window3(a, i, j, k, sz, sy, sx, tz, ty, tx) for k in range(cm)] for j in range(cn)]
            for i in range(co)]


def f32(x):
    return float(x)


# ---------------------------------------------------------------- Lift's sequential patterns
def scan(f, init, xs):
    out, acc = [], init
    for x in xs:
        acc = f(acc, x)
        out.append(acc)
    return out


def reduce_while(f, init, p, xs):
    acc = init
    for x in xs:
        if not p(acc, x):
            break
        acc = f(acc, x)
    return [acc]


def insertion_sort(before, xs):
    """Lift's insertion sort: x moves down past out[j - 1] while before(x, out[j - 1])."""
    out = []
    for x in xs:
        j = len(out)
        while j > 0 and before(x, out[j - 1]):
            j -= 1
        out.insert(j, x)
    return out


def ints(rows, cols, seed):
    r = random.Random(seed)
    return [[r.randint(-20, 20) for _ in range(cols)] for _ in range(rows)]
