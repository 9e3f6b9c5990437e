// CLBlast anchors. Each routine call is one run for measure(); CLBlast returns the event of the
// last kernel it enqueued, and Timer spans from its stamp kernel to that event, so routines
// that launch several kernels (asum and dot: a main and an epilogue reduction) are timed whole.
#include "blas_rows.hpp"

#include <clblast_c.h>
#include <cmath>
#include <string>

namespace egopt::bench {

using runtime::Buffer;
using runtime::Handle;
using runtime::Session;

namespace {

void checkBlast(CLBlastStatusCode status, const std::string& routine) {
    if (status != CLBlastSuccess) {
        // CLBlast's codes below -1000 are its own; the others are OpenCL status codes.
        const std::string name = status > -1000 ? runtime::clStatusName(status)
                                                : "CLBlast status " + std::to_string(status);
        throw Error(ErrorKind::Internal, routine + " failed: " + name);
    }
}

// Runs one CLBlast call with the queue and event pointers it wants, and adopts its event.
template <typename Call>
Handle<cl_event> blastCall(cl_command_queue queue, const std::string& routine, Call call) {
    cl_event event = nullptr;
    checkBlast(call(&queue, &event), routine);
    return Handle<cl_event>(event);
}

float downloadFirst(Session& session, const Buffer& buffer) {
    return session.downloadValues<float>(buffer).at(0);
}

// Row 0 of A (row-major, `cols` wide) times column 0 of B (row-major, `cols` wide), in double.
double firstDot(size_t cols, unsigned seedA, unsigned seedB, size_t strideB) {
    double sum = 0;
    for (size_t k = 0; k < cols; ++k) {
        sum += double(patternValue(k, seedA)) * double(patternValue(k * strideB, seedB));
    }
    return sum;
}

std::string square(size_t n) {
    return std::to_string(n) + "x" + std::to_string(n);
}

} // namespace

float patternValue(size_t i, unsigned seed) {
    // A cheap hash spread over [-1, 1]; multiples of 1/1000 keep the host references exact enough.
    const size_t h = (i * 7919u + seed * 104729u) % 2001u;
    return (static_cast<float>(h) - 1000.0f) / 1000.0f;
}

std::vector<float> patternVector(size_t n, unsigned seed) {
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) {
        values[i] = patternValue(i, seed);
    }
    return values;
}

Buffer uploadPattern(Session& session, size_t n, unsigned seed) {
    const std::vector<float> values = patternVector(n, seed);
    return session.uploadValues<float>(values);
}

VectorData makeVectors(Session& session, size_t n) {
    VectorData data;
    data.n = n;
    data.x = uploadPattern(session, n, 1);
    data.y = uploadPattern(session, n, 2);
    for (size_t i = 0; i < n; ++i) {
        const double x = patternValue(i, 1);
        data.asum += std::abs(x);
        data.dot += x * double(patternValue(i, 2));
    }
    return data;
}

Row blasCopy(Timer& timer, const VectorData& data) {
    Session& session = timer.session();
    Buffer out = session.allocate(data.n * sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastScopy", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastScopy(data.n, data.x.get(), 0, 1, out.get(), 0, 1, q, e);
        });
    };
    Row row{"copy", "clblast", formatCount(data.n), "", streamWork(2.0 * data.n * 4), {}};
    row.samples = timer.measure(enqueue);
    row.check = checkPattern(session, out, data.n, 1);
    return row;
}

Row blasScal(Timer& timer, const VectorData& data) {
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSscal", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSscal(data.n, 1.0f, data.x.get(), 0, 1, q, e);
        });
    };
    Row row{"scal", "clblast", formatCount(data.n), "-", streamWork(2.0 * data.n * 4), {}};
    row.samples = timer.measure(enqueue);
    return row;
}

Row blasAsum(Timer& timer, const VectorData& data) {
    Session& session = timer.session();
    Buffer result = session.allocate(sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSasum", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSasum(data.n, result.get(), 0, data.x.get(), 0, 1, q, e);
        });
    };
    Row row{"asum", "clblast", formatCount(data.n), "", streamWork(1.0 * data.n * 4), {}};
    row.samples = timer.measure(enqueue);
    row.check = checkClose(downloadFirst(session, result), data.asum);
    return row;
}

Row blasDot(Timer& timer, const VectorData& data) {
    Session& session = timer.session();
    Buffer result = session.allocate(sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSdot", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSdot(data.n, result.get(), 0, data.x.get(), 0, 1, data.y.get(), 0, 1, q,
                               e);
        });
    };
    Row row{"dot", "clblast", formatCount(data.n), "", streamWork(2.0 * data.n * 4), {}};
    row.samples = timer.measure(enqueue);
    // A float sum of N products of size <= 1 can drift by about sqrt(N) ulps of the partial sums.
    row.check = checkClose(downloadFirst(session, result), data.dot, 1e-2);
    return row;
}

Row blasAxpy(Timer& timer, const VectorData& data) {
    Buffer y = uploadPattern(timer.session(), data.n, 2);
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSaxpy", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSaxpy(data.n, 1.0f, data.x.get(), 0, 1, y.get(), 0, 1, q, e);
        });
    };
    Row row{"axpy", "clblast", formatCount(data.n), "-", streamWork(3.0 * data.n * 4), {}};
    row.samples = timer.measure(enqueue);
    return row;
}

Row blasGemv(Timer& timer, size_t n) {
    Session& session = timer.session();
    Buffer a = uploadPattern(session, n * n, 3);
    Buffer x = uploadPattern(session, n, 4);
    Buffer y = session.allocate(n * sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSgemv", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSgemv(CLBlastLayoutRowMajor, CLBlastTransposeNo, n, n, 1.0f, a.get(), 0,
                                n, x.get(), 0, 1, 0.0f, y.get(), 0, 1, q, e);
        });
    };
    const double elements = double(n) * double(n) + 2.0 * double(n);
    Row row{"gemv", "clblast", square(n), "", streamWork(elements * 4), {}};
    row.samples = timer.measure(enqueue);
    row.check = checkClose(downloadFirst(session, y), firstDot(n, 3, 4, 1));
    return row;
}

Row blasGemm(Timer& timer, size_t n) {
    return blasGemm(timer, n, n, n);
}

Row blasGemm(Timer& timer, size_t m, size_t n, size_t k) {
    Session& session = timer.session();
    Buffer a = uploadPattern(session, m * k, 5);
    Buffer b = uploadPattern(session, k * n, 6);
    Buffer c = session.allocate(m * n * sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSgemm", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n,
                                k, 1.0f, a.get(), 0, k, b.get(), 0, n, 0.0f, c.get(), 0, n, q, e);
        });
    };
    const double flops = 2.0 * double(m) * double(n) * double(k);
    // Bytes are the compulsory traffic, (MK + KN + MN) * 4, for reference in the CSV only.
    const double bytes =
        (double(m) * double(k) + double(k) * double(n) + double(m) * double(n)) * 4;
    std::string label = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    Row row{"sgemm", "clblast", label, "", {bytes, flops, true}, {}};
    row.samples = timer.measure(enqueue);
    row.check = checkClose(downloadFirst(session, c), firstDot(k, 5, 6, n));
    return row;
}

Row blasTranspose(Timer& timer, size_t n) {
    Session& session = timer.session();
    Buffer a = uploadPattern(session, n * n, 7);
    Buffer b = session.allocate(n * n * sizeof(float));
    auto enqueue = [&](cl_command_queue queue) {
        return blastCall(queue, "CLBlastSomatcopy", [&](cl_command_queue* q, cl_event* e) {
            return CLBlastSomatcopy(CLBlastLayoutRowMajor, CLBlastTransposeYes, n, n, 1.0f, a.get(),
                                    0, n, b.get(), 0, n, q, e);
        });
    };
    Row row{"transpose", "clblast", square(n), "", streamWork(2.0 * double(n) * double(n) * 4), {}};
    row.samples = timer.measure(enqueue);
    const std::vector<float> got = session.downloadValues<float>(b);
    row.check = "ok";
    for (size_t i = 0; i < n * n; ++i) {
        // b[r][c] = a[c][r]
        if (got[i] != patternValue((i % n) * n + i / n, 7)) {
            row.check = "FAIL at " + std::to_string(i);
            break;
        }
    }
    return row;
}

} // namespace egopt::bench
