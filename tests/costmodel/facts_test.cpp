// Features of kernels described directly as facts (codegen::KernelFacts), independent of what
// the code generator emits for any program: each case builds the facts by hand.
#include "support.hpp"

#include <catch2/catch.hpp>

using namespace egopt;
using namespace egopt::costmodel;
using namespace egopt::costmodel::test;
using arith::Size;
using codegen::KernelNode;
using codegen::MemoryAccess;
using codegen::MemorySpace;
using codegen::ThreadIndex;

namespace {

Size gid() {
    return Size::var(codegen::threadIndexVar(ThreadIndex::Global, 0));
}

// A float access at element `index`.
MemoryAccess access(const std::string& buffer, Size index, bool write = false,
                    MemorySpace space = MemorySpace::Global) {
    MemoryAccess a;
    a.buffer = buffer;
    a.space = space;
    a.index = std::move(index);
    a.write = write;
    return a;
}

KernelNode statement(std::vector<MemoryAccess> accesses, std::vector<std::string> calls = {}) {
    KernelNode n;
    n.accesses = std::move(accesses);
    n.calls = std::move(calls);
    return n;
}

// `int var = get_global_id(0);`
KernelNode readGid(const std::string& var) {
    KernelNode n;
    n.intVar = var;
    n.intValue = gid();
    n.threadIndexRead = true;
    return n;
}

KernelNode loop(const std::string& var, Size bound, std::vector<KernelNode> body) {
    KernelNode n;
    n.kind = KernelNode::Kind::Loop;
    n.statements = 0;
    n.var = var;
    n.init = 0;
    n.bound = std::move(bound);
    n.step = 1;
    n.body = std::move(body);
    return n;
}

// One kernel of `items` work-items in dimension 0, the driver choosing the work-group size.
codegen::GeneratedCode kernel(std::vector<KernelNode> body, int64_t items) {
    codegen::GeneratedCode code;
    codegen::KernelInfo k;
    k.name = "k";
    k.launch.globalSize[0] = items;
    k.launch.global[0] = static_cast<size_t>(items);
    k.facts.body = std::move(body);
    code.kernels.push_back(k);
    code.kernel = k;
    return code;
}

const Size kJ = Size::var("j");

} // namespace

TEST_CASE("facts: a loop's reads coalesce along the loop on a CPU, across work-items on a GPU",
          "[features]") {
    // Work-item g reads a[g*16 + j] for j < 16 and writes out[g].
    auto code =
        kernel({readGid("g"), loop("j", 16, {statement({access("a", Size::var("g") * 16 + kJ)})}),
                statement({access("out", Size::var("g"), true)})},
               64);
    Features cpu = computeFeatures(code, {}, testProfile());
    CHECK(cpu.total.globalReadCoalesced == 64 * 16 * 4);
    CHECK(cpu.total.globalReadStrided == 0);
    CHECK(cpu.total.globalWriteCoalesced == 64 * 4);
    CHECK(cpu.total.loopTrips == 16);
    CHECK(cpu.total.workPerItem == 17); // the thread-index read costs nothing
    CHECK(cpu.total.privateAccesses == 64 * 17);
    Features gpu = computeFeatures(code, {}, testGpuProfile());
    CHECK(gpu.total.globalReadStrided == 64 * 16 * 4); // neighbours are 64 bytes apart
    CHECK(gpu.total.globalReadCoalesced == 0);
    CHECK(gpu.total.globalWriteCoalesced == 64 * 4);
}

TEST_CASE("facts: loop bounds over size variables are bound at the sizes", "[features]") {
    auto code =
        kernel({readGid("g"), loop("j", Size::var("N"), {statement({access("a", kJ)}, {"f"})})}, 8);
    code.functions.push_back({"f", "{ return x * y + 1.0f; }", 1});
    Features f = computeFeatures(code, {{"N", 100}}, testProfile());
    CHECK(f.total.loopTrips == 100);
    CHECK(f.total.userFunCalls == 8 * 100);
    CHECK(f.total.arithOps == 8 * 100 * 2);
    CHECK(f.total.globalReadCoalesced == 8 * 100 * 4);
    code.functions[0].lanes = 4; // a 4-lane vector result counts every lane
    CHECK(computeFeatures(code, {{"N", 100}}, testProfile()).total.arithOps == 8 * 100 * 8);
}

TEST_CASE("facts: an if over thread indices counts the work-items that take it", "[features]") {
    KernelNode guard;
    guard.kind = KernelNode::Kind::If;
    guard.statements = 0;
    guard.lhs = gid();
    guard.rhs = 48;
    guard.body = {statement({access("out", gid(), true)})};
    Features f = computeFeatures(kernel({guard}, 64), {}, testProfile());
    CHECK(f.total.globalWriteCoalesced == 48 * 4);
    CHECK(f.total.privateAccesses == 48);
    CHECK(f.total.workPerItem == 1); // the busiest work-item takes it
}

TEST_CASE("facts: local and private accesses, barriers and statements of a line", "[features]") {
    KernelNode store = statement({access("l", gid(), true, MemorySpace::Local),
                                  access("p", 0, false, MemorySpace::Private)});
    store.statements = 2;
    KernelNode barrier;
    barrier.barrier = true;
    Features f = computeFeatures(kernel({store, barrier}, 32), {}, testProfile());
    CHECK(f.total.localBytes == 32 * 4);
    CHECK(f.total.globalReadCoalesced + f.total.globalReadStrided == 0); // private: registers
    CHECK(f.total.privateAccesses == 32 * 3);
    CHECK(f.total.barriers == 1);
}

TEST_CASE("facts: index functions are evaluated, an index read from memory is strided",
          "[features]") {
    // a[clamp(g - 1, 0, 63)] and a[mirror(g - 1, 64)] move with g; a[idx[g]] has no value.
    auto code = kernel({statement({access("a", Size::var("c")), access("a", Size::var("m")),
                                   access("a", Size::var("x"))},
                                  {"egopt_mirror"})},
                       64);
    auto& fns = code.kernels[0].facts.indexFunctions;
    using Kind = codegen::IndexFunction::Kind;
    fns["c"] = {Kind::Clamp, gid() - 1, 64};
    fns["m"] = {Kind::Mirror, gid() - 1, 64};
    fns["x"] = {Kind::Loaded, gid(), 0};
    code.functions.push_back(
        {"egopt_mirror",
         "{ int p = 2 * n; int m = ((i % p) + p) % p; return m < n ? m : p - 1 - m; }", 1});
    Features f = computeFeatures(code, {}, testGpuProfile());
    CHECK(f.total.globalReadCoalesced == 2 * 64 * 4);
    CHECK(f.total.globalReadStrided == 64 * 4);
    CHECK(f.total.userFunCalls == 64);
    CHECK(f.total.arithOps > 0);
}
