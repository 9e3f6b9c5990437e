// Kernel facts (codegen.hpp, docs/codegen.md "Kernel facts"): the structure returned beside the
// text describes that text.
#include "codegen_support.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>

using namespace egopt;
using namespace egopt::codegen;
using namespace egopt::codegen::test;
namespace fs = std::filesystem;

namespace {

struct Counts {
    size_t loops = 0, ifs = 0, barriers = 0, vectorAccesses = 0, unrolled = 0, calls = 0,
           breaks = 0;
};

void count(const std::vector<KernelNode>& nodes, Counts& c) {
    for (const KernelNode& n : nodes) {
        c.loops += n.kind == KernelNode::Kind::Loop ? 1 : 0;
        c.ifs += n.kind == KernelNode::Kind::If ? 1 : 0;
        c.breaks += n.breaks ? 1 : 0;
        c.unrolled += n.unrolled ? 1 : 0;
        c.barriers += n.barrier ? 1 : 0;
        c.calls += n.calls.size();
        c.vectorAccesses += static_cast<size_t>(
            std::count_if(n.accesses.begin(), n.accesses.end(),
                          [](const MemoryAccess& a) { return a.vectorWidth > 0; }));
        count(n.body, c);
    }
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) {
        ++n;
    }
    return n;
}

// Calls of `name`: the name followed by '(' and not preceded by an identifier character.
size_t callsOf(const std::string& text, const std::string& name) {
    size_t n = 0;
    for (size_t p = text.find(name + "("); p != std::string::npos;
         p = text.find(name + "(", p + 1)) {
        bool word = p == 0 ||
                    !(std::isalnum(static_cast<unsigned char>(text[p - 1])) || text[p - 1] == '_');
        n += word ? 1 : 0;
    }
    return n;
}

// The statements of the facts, depth first.
void statements(const std::vector<KernelNode>& nodes, std::vector<const KernelNode*>& out) {
    for (const KernelNode& n : nodes) {
        if (n.kind == KernelNode::Kind::Statement) {
            out.push_back(&n);
        }
        statements(n.body, out);
    }
}

} // namespace

TEST_CASE("kernel facts: loops, ifs, barriers, vector accesses and calls match the text",
          "[codegen]") {
    size_t checked = 0;
    for (const char* dir : {"/tests/codegen/programs", "/examples/lowlevel"}) {
        for (const auto& e : fs::directory_iterator(std::string(EGOPT_SOURCE_DIR) + dir)) {
            if (e.path().extension() != ".lift") {
                continue;
            }
            INFO(e.path().string());
            Generated g = generateFile(e.path().string(), {{"N", 256}, {"M", 64}, {"K", 32}});
            Counts c;
            int barriers = 0;
            for (const KernelInfo& k : g.code.kernels) {
                count(k.facts.body, c);
                barriers += k.barriers;
            }
            const std::string& src = g.code.source;
            std::string kernels = src.substr(src.find("__kernel"));
            CHECK(c.loops == occurrences(kernels, "for ("));
            CHECK(c.ifs + c.breaks == occurrences(kernels, "if ("));
            CHECK(c.breaks == occurrences(kernels, ") break;"));
            CHECK(c.barriers == occurrences(kernels, "barrier("));
            CHECK(c.barriers == static_cast<size_t>(barriers));
            CHECK(c.unrolled == occurrences(kernels, "#pragma unroll"));
            CHECK(c.vectorAccesses ==
                  occurrences(kernels, "vload") + occurrences(kernels, "vstore"));
            size_t calls = 0;
            for (const FunctionDef& f : g.code.functions) {
                calls += callsOf(kernels, f.name);
            }
            CHECK(c.calls == calls);
            ++checked;
        }
    }
    CHECK(checked > 40);
}

TEST_CASE("kernel facts: a global map reads and writes the thread's element", "[codegen]") {
    Generated g = generateText(R"(val N = SizeVar("N")
fun(ArrayType(Float, N), xs => MapGlb(0)(id) $ xs))",
                               {{"N", 1024}});
    REQUIRE(g.code.kernels.size() == 1);
    std::vector<const KernelNode*> s;
    statements(g.code.kernel.facts.body, s);
    REQUIRE(s.size() == 2);
    // `int v = get_global_id(0);` then `out[v] = id(xs[v]);`
    CHECK(s[0]->threadIndexRead);
    CHECK(s[0]->intValue == arith::Size::var(threadIndexVar(ThreadIndex::Global, 0)));
    arith::Size v = arith::Size::var(s[0]->intVar);
    CHECK(s[1]->calls == std::vector<std::string>{"id"});
    REQUIRE(s[1]->accesses.size() == 2);
    const MemoryAccess& read = s[1]->accesses[0];
    const MemoryAccess& write = s[1]->accesses[1];
    CHECK(read.buffer == "xs");
    CHECK(!read.write);
    CHECK(read.space == MemorySpace::Global);
    CHECK(read.index == v);
    CHECK(read.elementBytes == 4);
    CHECK(read.offset == 0);
    CHECK(read.bytes == 4);
    CHECK(write.buffer == "out");
    CHECK(write.write);
    CHECK(write.index == v);
    REQUIRE(g.code.functions.size() == 1);
    CHECK(g.code.functions[0].name == "id");
}

TEST_CASE("kernel facts: a mirrored boundary is an index function and a helper call", "[codegen]") {
    Generated g = generateFile(testProgram("stencil_mirror"), {{"N", 64}});
    const KernelFacts& f = g.code.kernel.facts;
    CHECK(std::any_of(f.indexFunctions.begin(), f.indexFunctions.end(), [](const auto& kv) {
        return kv.second.kind == IndexFunction::Kind::Mirror && kv.second.length == 64;
    }));
    CHECK(std::any_of(g.code.functions.begin(), g.code.functions.end(),
                      [](const FunctionDef& d) { return d.name == "egopt_mirror"; }));
}
